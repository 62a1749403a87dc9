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
  private readonly intervalMs: number;
  private readonly idleMs: number;
  private readonly ping: () => void;
  private readonly giveUp: () => void;

  constructor(intervalMs: number, idleMs: number, ping: () => void, giveUp: () => void) {
    this.intervalMs = intervalMs;
    this.idleMs = idleMs;
    this.ping = ping;
    this.giveUp = giveUp;
  }

  /** Starts the timer (once). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.wasHeard) this.silentMs = 0;
      else this.silentMs += this.intervalMs;
      this.wasHeard = false;
      if (this.silentMs >= this.idleMs) this.giveUp();
      else this.ping();
    }, this.intervalMs);
    this.timer.unref();
  }

  heard(): void {
    this.wasHeard = true;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
