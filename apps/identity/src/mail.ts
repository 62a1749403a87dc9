import nodemailer from 'nodemailer';

export interface Mailer {
  send(message: { to: string; subject: string; text: string; html: string }): Promise<void>;
  close(): void;
}

/** Sends mail over SMTP (the devnet mail catcher in dev and tests, a real relay in production). */
export function createMailer(smtpUrl: string, from: string): Mailer {
  const url = new URL(smtpUrl);
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: Number(url.port || (url.protocol === 'smtps:' ? 465 : 25)),
    secure: url.protocol === 'smtps:',
    // Loopback catchers speak plain SMTP; a real relay advertising STARTTLS still gets it.
    ignoreTLS: ['127.0.0.1', 'localhost', '::1'].includes(url.hostname),
    auth: url.username
      ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
      : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    close: () => transport.close(),
  };
}
