import { randomBytes } from 'node:crypto';
import {
  AppError,
  type AuditRecordInput,
  holdsStaffPermission,
  PERMISSION_UPDATE_STAFF,
} from '@pm/contracts';
import type { DbOrTx } from '@pm/db';
import type { Mailer } from './mail.ts';
import { passwordSetByStaffMail, resetMail } from './pages/mails.ts';
import { checkNewPassword, hashPassword, normalizeEmail } from './passwords.ts';
import type { UserRow, UsersRepository } from './users.repository.ts';
import { hashMailToken, MSG, RESET_TOKEN_TTL_MS } from './users.service.ts';

/** The staff member calling the admin API (from their verified access token). */
export interface StaffCaller {
  userId: string;
  permissions: readonly string[];
}

export interface StaffServiceDeps {
  repo: UsersRepository;
  mailer: Mailer;
  /** Public base URL of this host (links in mails). */
  issuer: () => string;
  appUrl: string;
}

export const STAFF_MSG = {
  staffTarget: `This is a staff account: changing its password, block or two-factor sign-in needs the ${PERMISSION_UPDATE_STAFF} permission.`,
  blockedField: 'blocked must be true or false.',
  mailFailed: 'The email could not be sent; nothing was changed. Try again later.',
} as const;

/** A reason from a request body: trimmed, at most 500 characters, undefined when empty. */
function readReason(raw: unknown): string | undefined {
  return typeof raw === 'string' && raw.trim() ? raw.trim().slice(0, 500) : undefined;
}

/**
 * What staff do to users through the admin API: block/unblock, read, set a password, mail a reset
 * link. Each change writes its `audit_log` row in the change's transaction; a change to an account
 * that holds a staff permission needs `update:staff`.
 */
export function createStaffService({ repo, mailer, issuer, appUrl }: StaffServiceDeps) {
  async function getUserByEmail(rawEmail: unknown): Promise<UserRow> {
    const email = normalizeEmail(rawEmail);
    const user = email ? await repo.findByEmail(email) : undefined;
    if (!user) throw new AppError('VALIDATION_FAILED', { userMessage: MSG.userNotFound });
    return user;
  }

  /** Refuses a change to a staff account unless the caller holds `update:staff`. */
  async function assertMayChange(caller: StaffCaller, user: UserRow): Promise<void> {
    if (caller.permissions.includes(PERMISSION_UPDATE_STAFF)) return;
    const accountPermissions = (await repo.findAccountPermissions(user.id)) ?? [];
    if (holdsStaffPermission(user.permissions) || holdsStaffPermission(accountPermissions)) {
      throw new AppError('FORBIDDEN', {
        message: `${caller.userId} without ${PERMISSION_UPDATE_STAFF} tried to change staff user ${user.id}`,
        userMessage: STAFF_MSG.staffTarget,
      });
    }
  }

  const audit = (caller: StaffCaller, user: UserRow, row: Omit<AuditRecordInput, 'actorId' | 'targetId'>) =>
    ({ actorId: caller.userId, targetId: user.id, ...row }) satisfies AuditRecordInput;

  /** A fresh reset token for the user (128 random bits; only the hash is stored), in `tx`. */
  async function newResetLink(userId: string, tx: DbOrTx): Promise<string> {
    const token = randomBytes(16).toString('base64url');
    await repo.insertEmailToken(
      {
        tokenHash: hashMailToken(token),
        userId,
        purpose: 'reset',
        expiresAt: new Date(Date.now() + RESET_TOKEN_TTL_MS),
      },
      tx,
    );
    return `${issuer()}/reset-password?token=${token}`;
  }

  return {
    /**
     * Blocks or unblocks. `blocked` true/false sets that state (a retry changes nothing and writes
     * no row); without it the state toggles (rules §7: one button). Blocking revokes every
     * grant and session, flags the market account and kills outstanding reset links.
     */
    async setBlocked(
      caller: StaffCaller,
      input: { email: unknown; blocked?: unknown; reason?: unknown },
    ): Promise<{ blocked: boolean; email: string }> {
      if (input.blocked !== undefined && typeof input.blocked !== 'boolean') {
        throw new AppError('VALIDATION_FAILED', { userMessage: STAFF_MSG.blockedField });
      }
      const found = await getUserByEmail(input.email);
      await assertMayChange(caller, found);
      return repo.transaction(async (tx) => {
        const user = (await repo.lockById(found.id, tx)) ?? found;
        const blocked = typeof input.blocked === 'boolean' ? input.blocked : !user.blocked;
        if (blocked === user.blocked) return { blocked, email: user.email };
        await repo.update(user.id, { blocked }, tx);
        await repo.setAccountBlocked(user.id, blocked, tx);
        if (blocked) {
          await repo.endSessions(user.id, tx);
          await repo.expireEmailTokens(user.id, 'reset', tx);
        }
        await repo.insertAudit(
          audit(caller, user, {
            action: blocked ? 'user.block' : 'user.unblock',
            before: { blocked: user.blocked },
            after: { blocked },
            reason: readReason(input.reason),
          }),
          tx,
        );
        return { blocked, email: user.email };
      });
    },

    /** The user data the admin area shows. */
    async getInfo(rawEmail: unknown) {
      const user = await getUserByEmail(rawEmail);
      return {
        username: user.email.split('@')[0] || user.email,
        emailVerified: user.emailVerified,
        email: user.email,
        inviteCode: user.referralCode,
        created: user.createdAt.toISOString(),
        lastLogin: user.lastLoginAt ? user.lastLoginAt.toISOString() : null,
        lastIp: user.lastLoginIp,
        blocked: user.blocked,
        userId: user.id,
        invitedBy: user.invitedBy,
        twoFactor: user.totpSecret !== null,
      };
    },

    /**
     * Sets a password chosen by staff: ends every session and grant, kills outstanding reset links
     * (an older link must not undo it), and mails the user that support changed it (never the
     * password itself).
     */
    async setPassword(
      caller: StaffCaller,
      input: { email: unknown; password: unknown; reason?: unknown },
    ): Promise<{ email: string }> {
      const user = await getUserByEmail(input.email);
      await assertMayChange(caller, user);
      const problem = checkNewPassword(input.password);
      if (problem) throw new AppError('VALIDATION_FAILED', { userMessage: problem });
      const passwordHash = await hashPassword(input.password as string);
      await repo.transaction(async (tx) => {
        await repo.update(user.id, { passwordHash }, tx);
        await repo.endSessions(user.id, tx);
        await repo.expireEmailTokens(user.id, 'reset', tx);
        await repo.insertAudit(
          audit(caller, user, { action: 'user.password', reason: readReason(input.reason) }),
          tx,
        );
      });
      await mailer
        .send(passwordSetByStaffMail(user.email, `${issuer()}/forgot`, appUrl))
        .catch((e: Error) => console.error(`identity: staff password mail failed: ${e.message}`));
      return { email: user.email };
    },

    /**
     * Turns a user's two-factor sign-in off (lost phone and recovery codes): ends every session and
     * token, audited with the reason. A staff account needs `update:staff`, as for its password.
     * Nothing to do (already off) writes no row.
     */
    async resetTwoFactor(
      caller: StaffCaller,
      input: { email: unknown; reason?: unknown },
    ): Promise<{ email: string }> {
      const found = await getUserByEmail(input.email);
      await assertMayChange(caller, found);
      await repo.transaction(async (tx) => {
        const user = (await repo.lockById(found.id, tx)) ?? found;
        if (!(await repo.disableTotp(user.id, tx))) return;
        await repo.endSessions(user.id, tx);
        await repo.insertAudit(
          audit(caller, user, {
            action: 'user.twoFactorReset',
            before: { twoFactor: true },
            after: { twoFactor: false },
            reason: readReason(input.reason),
          }),
          tx,
        );
      });
      return { email: found.email };
    },

    /**
     * Mails the user a reset link (the preferred way: staff never know the password). The link
     * and its audit row are written together; if the mail cannot be sent, neither is kept (503).
     */
    async mailResetLink(
      caller: StaffCaller,
      input: { email: unknown; reason?: unknown },
    ): Promise<{ email: string }> {
      const user = await getUserByEmail(input.email);
      await repo.transaction(async (tx) => {
        const link = await newResetLink(user.id, tx);
        await repo.insertAudit(
          audit(caller, user, { action: 'user.resetLink', reason: readReason(input.reason) }),
          tx,
        );
        try {
          await mailer.send(resetMail(user.email, link, appUrl));
        } catch (e) {
          throw new AppError('UNAVAILABLE', {
            message: (e as Error).message,
            userMessage: STAFF_MSG.mailFailed,
            cause: e,
          });
        }
      });
      return { email: user.email };
    },
  };
}

export type StaffService = ReturnType<typeof createStaffService>;
