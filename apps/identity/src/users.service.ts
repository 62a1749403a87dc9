import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { AppError, holdsStaffPermission } from '@pm/contracts';
import type { Mailer } from './mail.ts';
import { resetMail, signupAttemptMail, verifyMail } from './pages/mails.ts';
import {
  burnPasswordCheck,
  checkNewPassword,
  hashPassword,
  normalizeEmail,
  verifyPassword,
} from './passwords.ts';
import type { UserRow, UsersRepository } from './users.repository.ts';

export const RESET_TOKEN_TTL_MS = 30 * 60 * 1000;
export const VERIFY_TOKEN_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const MSG = {
  wrongCredentials: 'Wrong email or password.',
  blocked: 'Your account is blocked. Contact support.',
  invalidEmail: 'Enter a valid email address.',
  userNotFound: 'User not found',
  resetSent: "We've just sent you an email to reset your password.",
  linkInvalid: 'This link is invalid or has expired. Request a new one.',
} as const;

const REFCODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function newReferralCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += REFCODE_ALPHABET[randomInt(REFCODE_ALPHABET.length)];
  return code;
}

/** The mailed token: 128 random bits; only its SHA-256 is stored. */
function newMailToken(): { token: string; tokenHash: string } {
  const token = randomBytes(16).toString('base64url');
  return { token, tokenHash: hashMailToken(token) };
}

export function hashMailToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface UsersServiceDeps {
  repo: UsersRepository;
  mailer: Mailer;
  /** Public base URL of this host (links in mails). */
  issuer: () => string;
  appUrl: string;
}

export type AuthResult = { ok: true; user: UserRow } | { ok: false; message: string };

/** Account rules: sign-up, sign-in checks, mailed links (staff operations: staff.service.ts). */
export function createUsersService({ repo, mailer, issuer, appUrl }: UsersServiceDeps) {
  /** Inserts with a fresh referral code, retrying on the rare code collision. */
  async function insertUser(row: {
    email: string;
    passwordHash: string;
    emailVerified?: boolean;
    permissions?: string[];
    invitedBy?: string | null;
  }): Promise<UserRow | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const inserted = await repo.insert({ id: randomUUID(), referralCode: newReferralCode(), ...row });
      if (inserted) return inserted;
      if (await repo.findByEmail(row.email)) return undefined;
    }
    throw new AppError('INTERNAL', { message: 'could not allocate a referral code' });
  }

  async function sendVerifyMail(user: UserRow): Promise<void> {
    const { token, tokenHash } = newMailToken();
    await repo.insertEmailToken({
      tokenHash,
      userId: user.id,
      purpose: 'verify',
      expiresAt: new Date(Date.now() + VERIFY_TOKEN_TTL_MS),
    });
    await mailer.send(verifyMail(user.email, `${issuer()}/verify-email?token=${token}`, appUrl));
  }

  return {
    findById: (id: string) => repo.findById(id),

    /** Creates or updates a user (launcher demo users, tests). */
    async ensureUser(u: {
      email: string;
      password: string;
      permissions?: string[];
      emailVerified?: boolean;
    }): Promise<{ id: string; referralCode: string }> {
      const email = normalizeEmail(u.email);
      if (!email) throw new AppError('VALIDATION_FAILED', { userMessage: MSG.invalidEmail });
      const passwordHash = await hashPassword(u.password);
      const existing = await repo.findByEmail(email);
      if (existing) {
        const updated = await repo.update(existing.id, {
          passwordHash,
          ...(u.permissions ? { permissions: u.permissions } : {}),
          ...(u.emailVerified !== undefined ? { emailVerified: u.emailVerified } : {}),
        });
        return { id: existing.id, referralCode: (updated ?? existing).referralCode };
      }
      const created = await insertUser({
        email,
        passwordHash,
        permissions: u.permissions ?? [],
        emailVerified: u.emailVerified ?? false,
      });
      if (!created) return this.ensureUser(u);
      return { id: created.id, referralCode: created.referralCode };
    },

    /**
     * Registers a customer and mails the verification link; the inviter's code is kept pending
     * (`invited_by`, in the token only once the address is verified by that link). A registered
     * address gets no second account and no error: its owner is mailed instead, so the caller
     * answers both the same way. `created` is the new user, undefined for a registered address.
     */
    async signUp(input: {
      email: unknown;
      password: unknown;
      ref?: unknown;
    }): Promise<{ created: UserRow | undefined }> {
      const email = normalizeEmail(input.email);
      if (!email) throw new AppError('VALIDATION_FAILED', { userMessage: MSG.invalidEmail });
      const problem = checkNewPassword(input.password);
      if (problem) throw new AppError('VALIDATION_FAILED', { userMessage: problem });
      // Hashed either way, so both answers take as long.
      const passwordHash = await hashPassword(input.password as string);
      const ref = typeof input.ref === 'string' ? input.ref.trim().toUpperCase().slice(0, 32) : '';
      const inviter = ref ? await repo.findByReferralCode(ref) : undefined;
      const existing = await repo.findByEmail(email);
      const user = existing
        ? undefined
        : await insertUser({ email, passwordHash, invitedBy: inviter?.referralCode ?? null });
      const logFailure = (e: Error) => console.error(`identity: sign-up mail failed: ${e.message}`);
      if (!user) {
        const owner = existing ?? (await repo.findByEmail(email));
        if (owner) {
          await mailer.send(signupAttemptMail(owner.email, `${issuer()}/forgot`, appUrl)).catch(logFailure);
        }
        return { created: undefined };
      }
      // The account exists even if the mail relay is down; the user can still sign in.
      await sendVerifyMail(user).catch(logFailure);
      return { created: user };
    },

    /** Checks credentials; the blocked message is only revealed to someone who knows the password. */
    async authenticate(rawEmail: unknown, password: unknown): Promise<AuthResult> {
      const email = normalizeEmail(rawEmail);
      const pwd = typeof password === 'string' ? password.slice(0, 1024) : '';
      const user = email ? await repo.findByEmail(email) : undefined;
      if (!user) {
        await burnPasswordCheck(pwd);
        return { ok: false, message: MSG.wrongCredentials };
      }
      if (!(await verifyPassword(user.passwordHash, pwd)))
        return { ok: false, message: MSG.wrongCredentials };
      if (user.blocked) return { ok: false, message: MSG.blocked };
      return { ok: true, user };
    },

    /** True when `ip` is where the account last signed in successfully (the slow-down lets it through). */
    async isLastLoginIp(rawEmail: unknown, ip: string): Promise<boolean> {
      const email = normalizeEmail(rawEmail);
      const user = email ? await repo.findByEmail(email) : undefined;
      return user?.lastLoginIp != null && user.lastLoginIp === ip;
    },

    /**
     * True for a staff account: a staff permission in its sign-in permissions or its market
     * account's (the same test as the admin API's `update:staff` rule).
     */
    async isStaffAccount(user: UserRow): Promise<boolean> {
      if (holdsStaffPermission(user.permissions)) return true;
      return holdsStaffPermission((await repo.findAccountPermissions(user.id)) ?? []);
    },

    async recordLogin(userId: string, ip: string): Promise<void> {
      await repo.update(userId, { lastLoginAt: new Date(), lastLoginIp: ip });
    },

    /** Mails a reset link when the email is known; the caller answers the same either way. */
    async requestPasswordReset(rawEmail: unknown): Promise<void> {
      const email = normalizeEmail(rawEmail);
      const user = email ? await repo.findByEmail(email) : undefined;
      if (!user) return;
      const { token, tokenHash } = newMailToken();
      await repo.insertEmailToken({
        tokenHash,
        userId: user.id,
        purpose: 'reset',
        expiresAt: new Date(Date.now() + RESET_TOKEN_TTL_MS),
      });
      await mailer.send(resetMail(user.email, `${issuer()}/reset-password?token=${token}`, appUrl));
    },

    isResetTokenUsable: (token: string) => repo.isEmailTokenUsable(hashMailToken(token), 'reset'),

    /**
     * Sets a new password from a mailed link (single use) and ends every session and grant.
     * Returns the account's email (its sign-in slow-down starts over).
     */
    async resetPassword(token: string, password: unknown): Promise<{ email: string }> {
      const problem = checkNewPassword(password);
      if (problem) throw new AppError('VALIDATION_FAILED', { userMessage: problem });
      const passwordHash = await hashPassword(password as string);
      return repo.transaction(async (tx) => {
        const userId = await repo.consumeEmailToken(hashMailToken(token), 'reset', tx);
        if (!userId) throw new AppError('VALIDATION_FAILED', { userMessage: MSG.linkInvalid });
        // Receiving the mail proves the address, so the reset also verifies it. On an address
        // nobody had verified, whoever signed it up was not its owner as far as we know: their
        // pending invite code is dropped (referral by pre-registration) and so is the sign-up's
        // verification link.
        const before = await repo.findById(userId, tx);
        const unverified = before ? !before.emailVerified : false;
        const row = await repo.update(
          userId,
          { passwordHash, emailVerified: true, ...(unverified ? { invitedBy: null } : {}) },
          tx,
        );
        await repo.expireEmailTokens(userId, 'reset', tx);
        if (unverified) await repo.expireEmailTokens(userId, 'verify', tx);
        await repo.endSessions(userId, tx);
        return { email: row?.email ?? '' };
      });
    },

    /**
     * Mails a signed-in user a new link confirming their address (the app's banner), the older
     * links expired so one stays live; `sent` false when the address is already confirmed.
     * Throws when the mail cannot be handed to the relay (the caller answers 503).
     */
    async resendVerification(userId: string): Promise<{ sent: boolean; email: string }> {
      const user = await repo.findById(userId);
      if (!user) throw new AppError('UNAUTHENTICATED', { message: `no user ${userId}` });
      if (user.emailVerified) return { sent: false, email: user.email };
      await repo.expireEmailTokens(user.id, 'verify');
      await sendVerifyMail(user);
      return { sent: true, email: user.email };
    },

    /** Marks the address verified from the mailed link; false when the link is unusable. */
    async verifyEmail(token: string): Promise<boolean> {
      return repo.transaction(async (tx) => {
        const userId = await repo.consumeEmailToken(hashMailToken(token), 'verify', tx);
        if (!userId) return false;
        await repo.update(userId, { emailVerified: true }, tx);
        return true;
      });
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
