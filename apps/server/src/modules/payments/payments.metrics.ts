import type { CurrencyId } from '@pm/contracts';
import { Gauge, type Registry } from 'prom-client';
import { parseAccountKey } from './payments.address.ts';
import type { PaymentsRepository } from './payments.repository.ts';
import type { PaymentsStaffRepository } from './payments.staff.repository.ts';

/**
 * `payments_watcher_last_success_age_seconds{chain}`: seconds since the watcher's last good poll of
 * each configured chain (read from the database, so any API replica reports what the workers did);
 * no sample for a chain never polled successfully. Alert when it passes a few cycles.
 * `payments_watcher_failures{chain}`: consecutive failed passes (the chain is backed off meanwhile).
 */
export function registerWatcherMetrics(
  registry: Registry,
  repo: Pick<PaymentsRepository, 'listWatchStates'>,
  currencies: CurrencyId[],
  now: () => number,
): void {
  // The last rows read: a scrape during a database hiccup reports them rather than nothing.
  let states: Awaited<ReturnType<PaymentsRepository['listWatchStates']>> = [];
  const read = async () => {
    states = await repo.listWatchStates().catch(() => states);
    return states;
  };
  new Gauge({
    name: 'payments_watcher_last_success_age_seconds',
    help: 'Seconds since the payments watcher last polled the chain API successfully',
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const s of await read()) {
        if (!currencies.includes(s.chain as CurrencyId) || !s.lastOkAt) continue;
        this.set({ chain: s.chain }, Math.max(0, (now() - s.lastOkAt.getTime()) / 1000));
      }
    },
  });
  new Gauge({
    name: 'payments_watcher_failures',
    help: 'Consecutive failed watcher passes of the chain (backed off while above 0)',
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const s of await read()) {
        if (currencies.includes(s.chain as CurrencyId)) this.set({ chain: s.chain }, s.failures);
      }
    },
  });
}

/**
 * `payments_address_gap_max{currency}`: the longest run of consecutive derivation indexes on the
 * configured wallet that never saw a payment. The wallet that sweeps the addresses must scan a gap
 * at least this wide (Electrum and Sparrow default to 20): alert well before it passes that.
 */
export function registerAddressGapMetric(
  registry: Registry,
  repo: Pick<PaymentsStaffRepository, 'longestUnusedRuns'>,
  xpubs: Partial<Record<CurrencyId, string>>,
): void {
  const fps: Partial<Record<CurrencyId, string>> = {};
  for (const [currency, text] of Object.entries(xpubs) as [CurrencyId, string][]) {
    fps[currency] = parseAccountKey(currency, text).fingerprint;
  }
  let last: Partial<Record<CurrencyId, number>> = {};
  new Gauge({
    name: 'payments_address_gap_max',
    help: 'Longest run of consecutive deposit address indexes that never received a payment',
    labelNames: ['currency'],
    registers: [registry],
    async collect() {
      last = await repo.longestUnusedRuns(fps).catch(() => last);
      this.reset();
      for (const [currency, n] of Object.entries(last)) this.set({ currency }, n);
    },
  });
}
