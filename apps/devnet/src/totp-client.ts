/**
 * The test stack's outside TOTP client: otplib, not the library the sign-in host checks codes
 * with, makes codes from a known secret as an authenticator app would. The host never accepts a
 * time step twice, so each code handed out is of a step not used before: the current one, else
 * the next (inside the host's one-step window), else it waits for time to move on.
 */
import { generate } from 'otplib';

const PERIOD_MS = 30_000;

export interface TotpClient {
  /** A code of a step this client has not handed out before. */
  next(): Promise<string>;
}

export function createTotpClient(secret: string, now: () => number = Date.now): TotpClient {
  let lastStep = -1;
  return {
    async next() {
      let step = Math.floor(now() / PERIOD_MS);
      while (lastStep >= step + 1) {
        await new Promise((r) => setTimeout(r, 250));
        step = Math.floor(now() / PERIOD_MS);
      }
      lastStep = Math.max(step, lastStep + 1);
      return generate({ secret, epoch: (lastStep * PERIOD_MS) / 1000 });
    },
  };
}
