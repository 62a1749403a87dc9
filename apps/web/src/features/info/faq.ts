/**
 * The FAQ's questions and answers (rules §2 and 9), written from the constants the server enforces
 * (`@pm/contracts`: the server's refund, renewal, whitelist, score and port rules import the same
 * values), so changing a rule changes the FAQ. Pure, so Node tests it.
 */
import {
  AUTO_REFUND_RULE_TEXT,
  blacklistPoints,
  CURRENCIES,
  LEASE_DURATION_MS,
  MAX_SHARED_LEASES,
  MAX_WHITELIST_ENTRIES,
  NEW_AGENT_DAYS,
  PORT_COUNTS,
  PORT_PERIODS,
  PORT_REFUND_RULE_TEXT,
  PORT_ROTATION_MIN_MS,
  PORT_TIMERS,
  PORT_WHITELIST_MAX,
  PORT_WHITELIST_MAX_UNLIMITED,
  REFERRAL_FIRST_LOAD_PCT,
  REFERRAL_LATER_LOAD_PCT,
  REFUND_MAX_SPEED_BPS,
  REFUND_MAX_TRAFFIC_BYTES,
  REFUND_WINDOW_MS,
  RENEW_WINDOW_MS,
  SPEED_RETEST_MS,
  STATIC_REFUND_WINDOW_MS,
  WHITELIST_MIN_PREFIX,
} from '@pm/contracts';
import { bandLegend, SCORE_SCALES, VERDICT_RULE } from '../checks/scoreReading.ts';

export interface FaqEntry {
  /** Stable anchor (`/faq#refunds`). */
  id: string;
  question: string;
  answer: readonly string[];
}

/** The rule values the answers state; `FAQ_RULES` are the server's, tests pass others. */
export const FAQ_RULES = {
  leaseMs: LEASE_DURATION_MS,
  maxSharers: MAX_SHARED_LEASES,
  renewWindowMs: RENEW_WINDOW_MS,
  refundWindowMs: REFUND_WINDOW_MS,
  refundMaxBytes: REFUND_MAX_TRAFFIC_BYTES,
  refundMaxBps: REFUND_MAX_SPEED_BPS,
  staticRefundMs: STATIC_REFUND_WINDOW_MS,
  autoRefundText: AUTO_REFUND_RULE_TEXT,
  speedRetestMs: SPEED_RETEST_MS,
  whitelistMax: MAX_WHITELIST_ENTRIES,
  whitelistPrefix: WHITELIST_MIN_PREFIX,
  newDays: NEW_AGENT_DAYS,
  portCounts: PORT_COUNTS as readonly number[],
  portPeriods: PORT_PERIODS as readonly number[],
  portTimers: PORT_TIMERS as readonly number[],
  portRotationMs: PORT_ROTATION_MIN_MS,
  portWhitelistMax: PORT_WHITELIST_MAX,
  portWhitelistUnlimited: PORT_WHITELIST_MAX_UNLIMITED,
  portRefundText: PORT_REFUND_RULE_TEXT,
  referralFirstPct: REFERRAL_FIRST_LOAD_PCT,
  referralLaterPct: REFERRAL_LATER_LOAD_PCT,
  minDeposits: CURRENCIES.map((c) => ({ label: c.label, minC: c.minDepositC as number })),
  cleanScore: blacklistPoints,
};
export type FaqRules = typeof FAQ_RULES;

const hours = (ms: number) => {
  const h = ms / 3_600_000;
  return h === 1 ? '1 hour' : `${h} hours`;
};
const minutes = (ms: number) => `${ms / 60_000} minutes`;
const list = (xs: readonly (string | number)[]) =>
  xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
const usd = (c: number) => `$${(c / 100).toFixed(c % 100 === 0 ? 0 : 2)}`;

/** The clean score's steps, from the same function the server scores with. */
function cleanScoreSteps(score: (listed: number) => number): string {
  const steps: string[] = [];
  let from = 0;
  for (let n = 1; n <= 100; n++) {
    if (score(n) !== score(from) || n === 100) {
      const to = n === 100 ? null : n - 1;
      const range =
        to === null ? `${from} or more lists` : from === to ? `${from} lists` : `${from} to ${to} lists`;
      steps.push(`${range}: ${score(from)}`);
      from = n;
    }
  }
  return steps.join('; ').replace(/^0 lists/, 'on no list');
}

/** The FAQ, in the order the page shows it. */
export function faqEntries(r: FaqRules = FAQ_RULES): FaqEntry[] {
  return [
    {
      id: 'lease',
      question: 'How long does a lease last, and what is Shared?',
      answer: [
        `A lease lasts ${hours(r.leaseMs)}. Private means you are the only user of the proxy; Shared means up to ${r.maxSharers} customers use it at once (shown as N of ${r.maxSharers}) at a lower price.`,
        `A proxy not sold in the last ${r.newDays} days is marked New.`,
      ],
    },
    {
      id: 'renew',
      question: 'How do renewal and auto-renew work?',
      answer: [
        `Renew is offered in the last ${hours(r.renewWindowMs)} of a lease and extends it by ${hours(r.leaseMs)}. The price is what you paid divided by the hours leased, times 24, rounded down to the cent.`,
        'With "Automatically renew" on, the lease renews itself at its end as long as your balance covers it.',
      ],
    },
    {
      id: 'auto-refund',
      question: 'When is a proxy refunded automatically?',
      answer: [r.autoRefundText],
    },
    {
      id: 'refunds',
      question: 'Can I ask for a refund?',
      answer: [
        `Yes, within the first ${hours(r.refundWindowMs)} of a lease, if the proxy is offline, the lease moved less than ${r.refundMaxBytes / 1_000_000} MB and the proxy's measured speed is under ${r.refundMaxBps / 1000} kbps. Refund returns the full price to your balance and the proxy can no longer be used.`,
        `A static proxy can be refunded within ${hours(r.staticRefundMs)} of purchase, only if it was not used: give support the lease ID.`,
        'Your balance itself is not refundable.',
      ],
    },
    {
      id: 'clean-score',
      question: 'What is the clean score?',
      answer: [
        `It counts the DNS blacklists the proxy's address is on: ${cleanScoreSteps(r.cleanScore)}. The shop shows it on a 1 to 10 scale (twice the points). An IP Score check from the proxy's details adds the scores of three providers.`,
        `A speed test can be repeated ${minutes(r.speedRetestMs)} after the previous one.`,
      ],
    },
    {
      id: 'ip-score',
      question: 'How do I read an IP Score check?',
      answer: [
        'Update Score shows its price and charges it only when you confirm; if no provider answers, it is refunded. Each provider keeps its own scale:',
        ...SCORE_SCALES.map(
          (s) => `${s.label} is ${s.name}: ${s.meaning}, from ${s.range}. ${bandLegend(s)}.`,
        ),
        `The verdict: ${VERDICT_RULE}`,
      ],
    },
    {
      id: 'whitelist',
      question: 'How does the no-auth port and its whitelist work?',
      answer: [
        `Each lease has a port that needs no password and lets in only the addresses on its whitelist: up to ${r.whitelistMax} IPv4 addresses or ranges, none wider than /${r.whitelistPrefix}.`,
      ],
    },
    {
      id: 'ports',
      question: 'What are Ports, and how often do they rotate?',
      answer: [
        `Ports are geo-targeted packages billed by traffic volume (${list(r.portCounts)} ports) or unlimited (1 port), for ${list(r.portPeriods)} days.`,
        `A port changes its IP every ${list(r.portTimers)} minutes, or when you open its rotation link, at most once every ${minutes(r.portRotationMs)}.`,
        `The whitelist holds up to ${r.portWhitelistMax} IPs on traffic packages and ${r.portWhitelistUnlimited} on the unlimited port.`,
        r.portRefundText,
      ],
    },
    {
      id: 'deposits',
      question: 'How do I add funds?',
      answer: [
        `Top up your balance with ${r.minDeposits.map((d) => `${d.label} (at least ${usd(d.minC)})`).join(', ')}. Funds appear within minutes of the network confirming the payment. The balance is not refundable.`,
        `Invite others with your referral link: you get ${r.referralFirstPct}% of their first top-up and ${r.referralLaterPct}% of every later one.`,
      ],
    },
  ];
}
