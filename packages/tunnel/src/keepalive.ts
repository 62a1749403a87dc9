/**
 * A tunnel's keepalive: once started, every `intervalMs` it pings the peer, and once nothing at all
 * was heard for `idleMs` it gives up. The tunnel calls `heard()` on every read. It starts only
 * after authentication: before that the gateway's handshake timer bounds the connection, and the
 * gateway answers nothing but the handshake.
 */
export class Keepalive {
  private timer: NodeJS.Timeout | null = null;
  private wasHeard = true;
  private silentMs = 0;
  private intervalMs: number;
  private idleMs: number;
  private readonly ping: () => void;
  private readonly giveUp: () => void;

  private readonly onlyWhenSilent: boolean;

  /** `onlyWhenSilent`: ping only after an interval in which nothing was heard. */
  constructor(
    intervalMs: number,
    idleMs: number,
    ping: () => void,
    giveUp: () => void,
    onlyWhenSilent = false,
  ) {
    this.intervalMs = intervalMs;
    this.idleMs = idleMs;
    this.ping = ping;
    this.giveUp = giveUp;
    this.onlyWhenSilent = onlyWhenSilent;
  }

  /** Starts the timer (once). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** One interval passed: give up after `idleMs` of silence, else ping (unless heard, when asked). */
  tick(): void {
    const heard = this.wasHeard;
    if (heard) this.silentMs = 0;
    else this.silentMs += this.intervalMs;
    this.wasHeard = false;
    if (this.silentMs >= this.idleMs) this.giveUp();
    else if (!heard || !this.onlyWhenSilent) this.ping();
  }

  /** A new period (and idle limit): the timer restarts with it if it runs. */
  retime(intervalMs: number, idleMs: number): void {
    this.intervalMs = intervalMs;
    this.idleMs = idleMs;
    this.silentMs = 0;
    if (!this.timer) return;
    this.stop();
    this.start();
  }

  heard(): void {
    this.wasHeard = true;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
