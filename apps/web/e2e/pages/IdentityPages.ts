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

  async signIn(email: string, password: string): Promise<void> {
    await this.waitForSignIn();
    await this.page.getByLabel('Email').fill(email);
    await this.page.getByLabel('Password').fill(password);
    await this.page.getByRole('button', { name: 'Sign in' }).click();
  }

  async signUp(email: string, password: string): Promise<void> {
    await this.waitForSignIn();
    await this.page.getByRole('link', { name: 'Create one' }).click();
    await this.page.getByRole('heading', { name: 'Create your account' }).waitFor({ timeout: TIMEOUT_MS });
    await this.page.getByLabel('Email').fill(email);
    await this.page.getByLabel('Password').fill(password);
    await this.page.getByRole('button', { name: 'Create account' }).click();
  }

  /** Opens a password reset link and sets the new password. */
  async setNewPassword(resetUrl: string, password: string): Promise<void> {
    await this.page.goto(resetUrl);
    await this.page.getByRole('heading', { name: 'Choose a new password' }).waitFor({ timeout: TIMEOUT_MS });
    await this.page.getByLabel('New password').fill(password);
    await this.page.getByRole('button', { name: 'Set password' }).click();
  }
}
