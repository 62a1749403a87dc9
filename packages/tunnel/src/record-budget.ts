import { TLS_RECORD_BYTES } from './mux-options.ts';

/**
 * Counts a tunnel's TLS records in each direction against a limit (`RECORD_LIMIT`). Node's TLS
 * socket does not report records, so the count errs on the safe side: a write of n bytes makes at
 * most ceil(n / 16 KiB) records (more pieces in one corked write are joined first), and every read
 * holds at least one. `onHalf` is called once when either count passes half the limit, `onSpent`
 * when either reaches it.
 */
export class RecordBudget {
  private sent = 0;
  private received = 0;
  private halfCalled = false;
  private readonly limit: number;
  private readonly onHalf: () => void;
  private readonly onSpent: () => void;

  constructor(limit: number, onHalf: () => void, onSpent: () => void) {
    this.limit = limit;
    this.onHalf = onHalf;
    this.onSpent = onSpent;
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
    if (count >= this.limit) this.onSpent();
    else if (!this.halfCalled && count >= this.limit / 2) {
      this.halfCalled = true;
      this.onHalf();
    }
  }
}
