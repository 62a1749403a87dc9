import { TLS_RECORD_BYTES } from './mux-options.ts';

/** What a record budget calls: its methods, so a tunnel holds no closures for it. */
export interface RecordBudgetHost {
  /** Either count passed half the limit (called once). */
  recordsHalfSpent(): void;
  /** Either count reached the limit. */
  recordsSpent(): void;
}

/**
 * Counts a tunnel's TLS records in each direction against a limit (`RECORD_LIMIT`). Node's TLS
 * socket does not report records, so the count errs on the safe side: a write of n bytes makes at
 * most ceil(n / 16 KiB) records (more pieces in one corked write are joined first), and every read
 * holds at least one; the host hears of half the limit and of the limit (`RecordBudgetHost`).
 */
export class RecordBudget {
  private sent = 0;
  private received = 0;
  private halfCalled = false;
  private readonly limit: number;
  private readonly host: RecordBudgetHost;

  constructor(limit: number, host: RecordBudgetHost) {
    this.limit = limit;
    this.host = host;
  }

  /** Counts a write of `bytes`. */
  wrote(bytes: number): void {
    this.sent += bytes <= TLS_RECORD_BYTES ? 1 : Math.ceil(bytes / TLS_RECORD_BYTES);
    this.check(this.sent);
  }

  /** Counts one read. */
  read(): void {
    this.check(++this.received);
  }

  private check(count: number): void {
    if (count >= this.limit) this.host.recordsSpent();
    else if (!this.halfCalled && count >= this.limit / 2) {
      this.halfCalled = true;
      this.host.recordsHalfSpent();
    }
  }
}
