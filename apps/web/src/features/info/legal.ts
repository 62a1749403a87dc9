/**
 * The Terms and Privacy pages' copy: the operator's own (Markdown the web listener serves at
 * `/legal.json` from TERMS_FILE and PRIVACY_FILE), else the product's template, which states the rules
 * the product really applies. Pure, so Node tests it.
 */
import {
  AUTO_REFUND_RULE_TEXT,
  PORT_REFUND_RULE_TEXT,
  REFERRAL_FIRST_LOAD_PCT,
  REFERRAL_LATER_LOAD_PCT,
  REFUND_MAX_SPEED_BPS,
  REFUND_MAX_TRAFFIC_BYTES,
  REFUND_WINDOW_MS,
  RENEW_WINDOW_MS,
} from '@pm/contracts';

export interface LegalSection {
  heading: string;
  paragraphs: readonly string[];
}

export type LegalDoc = 'terms' | 'privacy';

/**
 * The operator's copy from an answer of `GET /legal.json` (`{ terms, privacy }`, each Markdown or null);
 * null, meaning the template, for anything else (no such file, an older server, an empty page).
 */
export function operatorCopy(answer: unknown, doc: LegalDoc): string | null {
  const html =
    typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>)[doc] : null;
  return typeof html === 'string' && html.trim() !== '' ? html : null;
}

const hours = (ms: number) => ms / 3_600_000;
const mb = REFUND_MAX_TRAFFIC_BYTES / 1_000_000;
const kbps = REFUND_MAX_SPEED_BPS / 1000;

/** The Terms and Conditions template: the product's real rules, for an operator to adapt. */
export function termsSections(product: string, supportEmail: string): LegalSection[] {
  return [
    {
      heading: 'Acceptance',
      paragraphs: [
        `These terms govern your use of ${product}. By creating an account or leasing a proxy you accept them. When they change, you are asked to accept the new version before you continue.`,
      ],
    },
    {
      heading: 'Your account',
      paragraphs: [
        'You are responsible for your credentials and for all activity under your account, including traffic sent through the proxies you lease. We may block an account that breaks these terms; a blocked account loses access at once.',
      ],
    },
    {
      heading: 'Prepaid balance',
      paragraphs: [
        'Purchases are paid from a prepaid balance in US dollars, topped up with cryptocurrency (BTC, LTC, USDT on TRON). A top-up is credited once the payment is confirmed on its blockchain, at the exchange rate locked when the payment address was issued; the minimum is $5 for BTC and LTC and $10 for USDT (a USDT payment under $10 has a network fee of about $3 deducted).',
        'The balance is not refundable and cannot be withdrawn or transferred. Refunds of leases are credited to the balance.',
      ],
    },
    {
      heading: 'Proxy leases',
      paragraphs: [
        'A lease lasts 24 hours, private (only you) or shared (up to 4 customers at once). The price is shown before you confirm and charged from your balance.',
        `A lease can be renewed in its last ${hours(RENEW_WINDOW_MS)} hours for another 24 hours, at the purchase price per hour; auto-renew does this for you while your balance covers it.`,
      ],
    },
    {
      heading: 'Refunds',
      paragraphs: [
        AUTO_REFUND_RULE_TEXT,
        `Refund on request: within the first ${hours(REFUND_WINDOW_MS)} hours of a lease, while the proxy is offline, has carried less than ${mb} MB and tests slower than ${kbps} kbps, Refund returns the full price to your balance and ends the lease.`,
        `Static proxies are refunded within 1 hour of purchase and only if unused: send support (${supportEmail}) the lease ID.`,
        PORT_REFUND_RULE_TEXT,
        'Nothing else is refunded: a proxy that works is not refunded because it no longer suits you.',
      ],
    },
    {
      heading: 'Referral rewards',
      paragraphs: [
        `When someone you invited tops up, you receive ${REFERRAL_FIRST_LOAD_PCT}% of their first top-up and ${REFERRAL_LATER_LOAD_PCT}% of every later one on your balance. Rewards on payments that are reversed or fraudulent are withdrawn.`,
      ],
    },
    {
      heading: 'Acceptable use',
      paragraphs: [
        'You may not use the network for anything unlawful, for spam, fraud, attacks on other systems, or to harm the people whose connections carry your traffic. We may end a lease without refund and block the account when we see such use.',
      ],
    },
    {
      heading: 'Liability',
      paragraphs: [
        'The service is provided as is. Proxies are residential and mobile connections and can go offline; the refund rules above are the remedy. To the extent the law allows, our liability is limited to what you paid for the lease concerned.',
      ],
    },
    { heading: 'Contact', paragraphs: [`Questions about these terms: ${supportEmail}.`] },
  ];
}

/** The Privacy Policy template: what the product stores and why. */
export function privacySections(product: string, supportEmail: string): LegalSection[] {
  return [
    {
      heading: 'What we collect',
      paragraphs: [
        'Your e-mail address and a one-way hash of your password; the time and address of your sign-ins; your balance and its transactions; the addresses and transaction IDs of your crypto payments; your leases, notes and whitelisted IP addresses; and per hour, how many requests and bytes went through each of your leases.',
        'We do not record the content or the destinations of the traffic you send through a proxy.',
      ],
    },
    {
      heading: 'Why',
      paragraphs: [
        'To run your account and leases, credit your payments, apply the refund rules, prevent abuse and fraud, and meet our legal obligations.',
      ],
    },
    {
      heading: 'Cookies and local storage',
      paragraphs: [
        `${product} uses cookies to keep you signed in and to remember which version of the terms you accepted, and the browser's storage for your session and for a payment you just started. No advertising or tracking cookies.`,
      ],
    },
    {
      heading: 'Sharing',
      paragraphs: [
        'Public blockchains record crypto payments by their nature. We do not sell your data; we share it only with the providers that run the service for us and when the law requires it.',
      ],
    },
    {
      heading: 'Retention',
      paragraphs: [
        'Account and payment records are kept while your account exists and as long as accounting law requires afterwards; traffic totals for as long as your lease history shows them.',
      ],
    },
    {
      heading: 'Your rights',
      paragraphs: [`To see, correct or delete your data, write to ${supportEmail}.`],
    },
  ];
}
