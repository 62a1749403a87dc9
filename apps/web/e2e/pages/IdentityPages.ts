/** Page model for the identity service's server-rendered pages (sign in, sign up, reset). */
import type { Page } from 'playwright-core';
import { TIMEOUT_MS } from './ShellPage.ts';

export class IdentityPages {
  readonly page: Page;
  readonly issuer: string;

  constructor(page: Page, issuer: string) {
    this.page = page;
    this.issuer = issuer;
  }

  async waitForSignIn(): Promise<void> {
    await this.page.waitForURL((u) => u.href.startsWith(this.issuer), { timeout: TIMEOUT_MS });
    await this.page.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: TIMEOUT_MS });
  }

  /** Signs in; `code` is the two-factor code for an account that has it (the demo admin). */
  async signIn(email: string, password: string, code?: string): Promise<void> {
    await this.waitForSignIn();
    await this.page.getByLabel('Email').fill(email);
    await this.page.getByLabel('Password').fill(password);
    await this.page.getByRole('button', { name: 'Sign in' }).click();
    if (code !== undefined) await this.enterCode(code);
  }

  /** The sign-in's second step: the code from the authenticator app (or a recovery code). */
  async enterCode(code: string): Promise<void> {
    await this.page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor({ timeout: TIMEOUT_MS });
    await this.page.getByLabel('Code').fill(code);
    await this.page.getByRole('button', { name: 'Verify' }).click();
  }

  async signUp(email: string, password: string): Promise<void> {
    await this.waitForSignIn();
    await this.page.getByRole('link', { name: 'Create one' }).click();
    await this.page.getByRole('heading', { name: 'Create your account' }).waitFor({ timeout: TIMEOUT_MS });
    await this.page.getByLabel('Email').fill(email);
    await this.page.getByLabel('Password').fill(password);
    await this.page.getByRole('button', { name: 'Create account' }).click();
  }

  /**
   * After a sign-up: the one "Check your email" answer, then the mailed confirmation link (`text`
   * is the mail's text) and back to the app, which signs the new user in without the password.
   */
  async confirmEmail(mailText: string): Promise<void> {
    await this.page.getByRole('heading', { name: 'Check your email' }).waitFor({ timeout: TIMEOUT_MS });
    const link = /https?:\/\/\S+\/verify-email\?token=[\w-]+/.exec(mailText)?.[0];
    if (!link) throw new Error(`no confirmation link in: ${mailText}`);
    await this.page.goto(link);
    await this.page.getByRole('heading', { name: 'Email confirmed' }).waitFor({ timeout: TIMEOUT_MS });
    await this.page.getByRole('link', { name: 'Back to the app' }).click();
  }

  /** Opens a password reset link and sets the new password. */
  async setNewPassword(resetUrl: string, password: string): Promise<void> {
    await this.page.goto(resetUrl);
    await this.page.getByRole('heading', { name: 'Choose a new password' }).waitFor({ timeout: TIMEOUT_MS });
    await this.page.getByLabel('New password').fill(password);
    await this.page.getByRole('button', { name: 'Set password' }).click();
  }
}
