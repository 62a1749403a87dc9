import type { AuditRecordInput } from '@pm/contracts';
import type { Db, DbOrTx } from '@pm/db';
import { accounts, auditLog, emailTokens, handoffCodes, users } from '@pm/db';
import { and, eq, gt, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;

/** Data access for the identity tables; the only module here (with the adapter) that talks SQL. */
export function createUsersRepository(db: Db) {
  return {
    async findByEmail(email: string, tx: DbOrTx = db): Promise<UserRow | undefined> {
      const rows = await tx.select().from(users).where(eq(users.email, email)).limit(1);
      return rows[0];
    },

    async findById(id: string, tx: DbOrTx = db): Promise<UserRow | undefined> {
      const rows = await tx.select().from(users).where(eq(users.id, id)).limit(1);
      return rows[0];
    },

    async findByReferralCode(code: string, tx: DbOrTx = db): Promise<UserRow | undefined> {
      const rows = await tx.select().from(users).where(eq(users.referralCode, code)).limit(1);
      return rows[0];
    },

    /** Inserts a user; returns undefined when the email (or referral code) is already taken. */
    async insert(row: NewUserRow, tx: DbOrTx = db): Promise<UserRow | undefined> {
      const rows = await tx.insert(users).values(row).onConflictDoNothing().returning();
      return rows[0];
    },

    async update(id: string, patch: Partial<NewUserRow>, tx: DbOrTx = db): Promise<UserRow | undefined> {
      const rows = await tx.update(users).set(patch).where(eq(users.id, id)).returning();
      return rows[0];
    },

    /** Mirrors the block flag onto the market account, if the API has created one yet. */
    async setAccountBlocked(userId: string, blocked: boolean, tx: DbOrTx = db): Promise<void> {
      await tx.update(accounts).set({ blocked }).where(eq(accounts.userId, userId));
    },

    /** The market account's permissions (undefined before the API has created the account). */
    async findAccountPermissions(userId: string, tx: DbOrTx = db): Promise<string[] | undefined> {
      const rows = await tx
        .select({ permissions: accounts.permissions })
        .from(accounts)
        .where(eq(accounts.userId, userId))
        .limit(1);
      return rows[0]?.permissions;
    },

    /** Locks the user row for the rest of the transaction (staff changes of one user run one at a time). */
    async lockById(id: string, tx: DbOrTx): Promise<UserRow | undefined> {
      const rows = await tx.select().from(users).where(eq(users.id, id)).for('update');
      return rows[0];
    },

    /** A staff action's row in the shared audit trail (`audit_log`, owned by the server's audit module). */
    async insertAudit(row: AuditRecordInput, tx: DbOrTx = db): Promise<void> {
      await tx.insert(auditLog).values({
        actorId: row.actorId,
        action: row.action,
        targetId: row.targetId,
        before: row.before ?? null,
        after: row.after ?? null,
        reason: row.reason ?? null,
      });
    },

    async insertEmailToken(
      row: { tokenHash: string; userId: string; purpose: 'reset' | 'verify'; expiresAt: Date },
      tx: DbOrTx = db,
    ): Promise<void> {
      await tx.insert(emailTokens).values(row);
    },

    /** Marks an unused, unexpired token used and returns its user id; undefined otherwise (single use). */
    async consumeEmailToken(
      tokenHash: string,
      purpose: 'reset' | 'verify',
      tx: DbOrTx = db,
    ): Promise<string | undefined> {
      const rows = await tx
        .update(emailTokens)
        .set({ usedAt: sql`now()` })
        .where(
          and(
            eq(emailTokens.tokenHash, tokenHash),
            eq(emailTokens.purpose, purpose),
            isNull(emailTokens.usedAt),
            gt(emailTokens.expiresAt, sql`now()`),
          ),
        )
        .returning({ userId: emailTokens.userId });
      return rows[0]?.userId;
    },

    /** True when the token exists, is unused and unexpired (for showing the reset form). */
    async isEmailTokenUsable(
      tokenHash: string,
      purpose: 'reset' | 'verify',
      tx: DbOrTx = db,
    ): Promise<boolean> {
      const rows = await tx
        .select({ userId: emailTokens.userId })
        .from(emailTokens)
        .where(
          and(
            eq(emailTokens.tokenHash, tokenHash),
            eq(emailTokens.purpose, purpose),
            isNull(emailTokens.usedAt),
            gt(emailTokens.expiresAt, sql`now()`),
          ),
        )
        .limit(1);
      return rows.length > 0;
    },

    /** Invalidates every outstanding token of a purpose for a user (after a successful reset). */
    async expireEmailTokens(userId: string, purpose: 'reset' | 'verify', tx: DbOrTx = db): Promise<void> {
      await tx
        .update(emailTokens)
        .set({ usedAt: sql`now()` })
        .where(
          and(eq(emailTokens.userId, userId), eq(emailTokens.purpose, purpose), isNull(emailTokens.usedAt)),
        );
    },

    /**
     * Ends every session and token of a user now: access tokens issued before this second are
     * refused (the identity host's admin API reads `users`, the market API the account's copy),
     * and every stored OIDC artefact and unredeemed hand-off code is deleted.
     */
    async endSessions(userId: string, tx: DbOrTx = db, keepInteraction?: string): Promise<void> {
      const at = new Date();
      await tx.update(users).set({ tokensValidAfter: at }).where(eq(users.id, userId));
      await tx.update(accounts).set({ tokensValidAfter: at }).where(eq(accounts.userId, userId));
      await tx.delete(handoffCodes).where(eq(handoffCodes.userId, userId));
      await this.revokeOidcArtefacts(userId, tx, keepInteraction);
    },

    /**
     * Records `step` as the user's last used TOTP step, only when it is later than the one stored:
     * false when the code (or an older one) was already used, so two parallel requests with one
     * code cannot both pass.
     */
    async advanceTotpStep(userId: string, step: number, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(users)
        .set({ totpLastStep: step })
        .where(
          and(
            eq(users.id, userId),
            isNotNull(users.totpSecret),
            or(isNull(users.totpLastStep), lt(users.totpLastStep, step)),
          ),
        )
        .returning({ id: users.id });
      return rows.length > 0;
    },

    /** Uses up one recovery code by its hash; false when the user has no such unused code. */
    async consumeRecoveryCode(userId: string, codeHash: string, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(users)
        .set({ totpRecoveryHashes: sql`array_remove(${users.totpRecoveryHashes}, ${codeHash})` })
        .where(and(eq(users.id, userId), sql`${codeHash} = ANY(${users.totpRecoveryHashes})`))
        .returning({ id: users.id });
      return rows.length > 0;
    },

    /**
     * Turns two-factor sign-in on with the pending secret the user confirmed: false when it is on
     * already or the pending secret changed meanwhile (a parallel confirmation won).
     */
    async enableTotp(
      userId: string,
      pendingSecret: string,
      o: { step: number; recoveryHashes: string[] },
      tx: DbOrTx = db,
    ): Promise<boolean> {
      const rows = await tx
        .update(users)
        .set({
          totpSecret: pendingSecret,
          totpPendingSecret: null,
          totpEnabledAt: new Date(),
          totpLastStep: o.step,
          totpRecoveryHashes: o.recoveryHashes,
        })
        .where(
          and(eq(users.id, userId), eq(users.totpPendingSecret, pendingSecret), isNull(users.totpSecret)),
        )
        .returning({ id: users.id });
      return rows.length > 0;
    },

    /** Turns two-factor sign-in off; false when it was not on. */
    async disableTotp(userId: string, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(users)
        .set({
          totpSecret: null,
          totpPendingSecret: null,
          totpEnabledAt: null,
          totpLastStep: null,
          totpRecoveryHashes: [],
        })
        .where(and(eq(users.id, userId), isNotNull(users.totpSecret)))
        .returning({ id: users.id });
      return rows.length > 0;
    },

    async insertHandoffCode(
      row: { codeHash: string; userId: string; challenge: string; expiresAt: Date },
      tx: DbOrTx = db,
    ): Promise<void> {
      await tx.insert(handoffCodes).values(row);
    },

    /** Marks an unused, unexpired hand-off code used; its user and challenge, undefined otherwise. */
    async consumeHandoffCode(
      codeHash: string,
      tx: DbOrTx = db,
    ): Promise<{ userId: string; challenge: string } | undefined> {
      const rows = await tx
        .update(handoffCodes)
        .set({ usedAt: sql`now()` })
        .where(
          and(
            eq(handoffCodes.codeHash, codeHash),
            isNull(handoffCodes.usedAt),
            gt(handoffCodes.expiresAt, sql`now()`),
          ),
        )
        .returning({ userId: handoffCodes.userId, challenge: handoffCodes.challenge });
      return rows[0];
    },

    /**
     * Deletes every stored OIDC artefact (sessions, grants, codes, refresh tokens, interactions
     * under its grants) of a user. `keepInteraction` spares the sign-in in progress that made the
     * change (the two-factor settings: password and code just passed) and the browser session it
     * belongs to, which it goes on with; every grant and token is gone all the same.
     */
    async revokeOidcArtefacts(userId: string, tx: DbOrTx = db, keepInteraction?: string): Promise<void> {
      const keep = keepInteraction ?? '';
      const spared = sql`(type = 'Interaction' AND id = ${keep}) OR (type = 'Session' AND uid IS NOT NULL AND uid = (
        SELECT payload->'session'->>'uid' FROM oidc_payloads WHERE type = 'Interaction' AND id = ${keep}))`;
      await tx.execute(sql`DELETE FROM oidc_payloads WHERE grant_id IN (
        SELECT id FROM oidc_payloads WHERE type = 'Grant' AND payload->>'accountId' = ${userId})
        AND NOT COALESCE(${spared}, false)`);
      await tx.execute(
        sql`DELETE FROM oidc_payloads WHERE payload->>'accountId' = ${userId} AND NOT COALESCE(${spared}, false)`,
      );
    },

    transaction<T>(fn: (tx: DbOrTx) => Promise<T>): Promise<T> {
      return db.transaction((tx) => fn(tx));
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
