import { AppError } from '@pm/contracts';
import {
  cleanRecoveryCode,
  hashRecoveryCode,
  matchTotpStep,
  newRecoveryCodes,
  newTotpSecret,
  qrSvg,
  totpUri,
} from './totp.ts';
import type { UserRow, UsersRepository } from './users.repository.ts';

export const TWO_FACTOR_MSG = {
  wrongCode: 'That code is not valid. Enter the current code from your app, or one of your recovery codes.',
  wrongEnrolCode: 'That code does not match. Scan the QR code again and enter the current code from the app.',
  enterCode: 'Enter the 6-digit code from your authenticator app.',
  alreadyOn: 'Two-factor sign-in is already on.',
  notOn: 'Two-factor sign-in is not on for this account.',
} as const;

/** What the enrolment page shows: the secret (for typing), its otpauth:// address and QR code. */
export interface Enrolment {
  secret: string;
  uri: string;
  qrSvg: string;
}

export interface TwoFactorServiceDeps {
  repo: UsersRepository;
  now?: () => number;
}

/** True when the user has two-factor sign-in on. */
export const hasTwoFactor = (user: Pick<UserRow, 'totpSecret'>): boolean => Boolean(user.totpSecret);

/**
 * Two-factor sign-in (TOTP): enrolment with a pending secret confirmed by a code, ten one-time
 * recovery codes (stored hashed), code checks that never accept a step twice, turning it off.
 * Every change ends the account's sessions and tokens (`repo.endSessions`).
 */
export function createTwoFactorService({ repo, now = Date.now }: TwoFactorServiceDeps) {
  /** Accepts a TOTP code of a step later than the last used one, or an unused recovery code. */
  async function acceptCode(user: UserRow, raw: unknown): Promise<'totp' | 'recovery' | null> {
    if (!user.totpSecret) return null;
    const step = matchTotpStep(user.totpSecret, typeof raw === 'string' ? raw : '', now());
    if (step !== null) return (await repo.advanceTotpStep(user.id, step)) ? 'totp' : null;
    const recovery = cleanRecoveryCode(raw);
    if (!recovery) return null;
    return (await repo.consumeRecoveryCode(user.id, hashRecoveryCode(recovery))) ? 'recovery' : null;
  }

  return {
    /**
     * The secret to enrol: the pending one when the user already opened the page (a reload shows
     * the same QR code), else a new one.
     */
    async startEnrolment(user: UserRow): Promise<Enrolment> {
      if (user.totpSecret) throw new AppError('CONFLICT', { userMessage: TWO_FACTOR_MSG.alreadyOn });
      let secret = user.totpPendingSecret;
      if (!secret) {
        secret = newTotpSecret();
        await repo.update(user.id, { totpPendingSecret: secret });
      }
      const uri = totpUri(secret, user.email);
      return { secret, uri, qrSvg: await qrSvg(uri) };
    },

    /**
     * Turns two-factor sign-in on when `code` is a current code of the pending secret; returns the
     * ten recovery codes (shown once, only their hashes are kept). Ends every session and token
     * (but the sign-in in progress named by `keepInteraction`, which made the change).
     */
    async confirmEnrolment(userId: string, code: unknown, keepInteraction?: string): Promise<string[]> {
      const user = await repo.findById(userId);
      if (!user) throw new AppError('NOT_FOUND', { userMessage: TWO_FACTOR_MSG.notOn });
      if (user.totpSecret) throw new AppError('CONFLICT', { userMessage: TWO_FACTOR_MSG.alreadyOn });
      const pending = user.totpPendingSecret;
      const step = pending ? matchTotpStep(pending, typeof code === 'string' ? code : '', now()) : null;
      if (!pending || step === null) {
        throw new AppError('VALIDATION_FAILED', { userMessage: TWO_FACTOR_MSG.wrongEnrolCode });
      }
      const codes = newRecoveryCodes();
      const enabled = await repo.transaction(async (tx) => {
        const ok = await repo.enableTotp(
          userId,
          pending,
          { step, recoveryHashes: codes.map(hashRecoveryCode) },
          tx,
        );
        if (ok) await repo.endSessions(userId, tx, keepInteraction);
        return ok;
      });
      if (!enabled) throw new AppError('CONFLICT', { userMessage: TWO_FACTOR_MSG.alreadyOn });
      return codes;
    },

    /** Checks a sign-in code (TOTP or recovery): which kind it was, null when refused. */
    verifyCode: acceptCode,

    /**
     * Turns two-factor sign-in off with a valid code; ends every session and token (but the sign-in
     * in progress named by `keepInteraction`).
     */
    async disable(userId: string, code: unknown, keepInteraction?: string): Promise<void> {
      const user = await repo.findById(userId);
      if (!user?.totpSecret) throw new AppError('CONFLICT', { userMessage: TWO_FACTOR_MSG.notOn });
      if (!(await acceptCode(user, code))) {
        throw new AppError('VALIDATION_FAILED', { userMessage: TWO_FACTOR_MSG.wrongCode });
      }
      await repo.transaction(async (tx) => {
        if (await repo.disableTotp(userId, tx)) await repo.endSessions(userId, tx, keepInteraction);
      });
    },

    /**
     * Enrols a user with a known secret at once (the launcher's demo admin, tests); no recovery
     * codes. Returns false for an unknown email.
     */
    async enrolWithSecret(email: string, secret: string): Promise<boolean> {
      const user = await repo.findByEmail(email);
      if (!user) return false;
      if (user.totpSecret === secret) return true;
      await repo.update(user.id, {
        totpSecret: secret,
        totpPendingSecret: null,
        totpEnabledAt: new Date(),
        totpLastStep: null,
        totpRecoveryHashes: [],
      });
      return true;
    },
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
