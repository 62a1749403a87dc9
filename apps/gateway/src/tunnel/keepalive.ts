/**
 * A tunnel's keepalive: every `intervalMs` it pings the peer, and once nothing at all was heard for
 * `idleMs` it gives up. The tunnel calls `heard()` on every read.
 */
export class Keepalive {
  private readonly timer: NodeJS.Timeout;
  private wasHeard = true;
  private silentMs = 0;

  constructor(intervalMs: number, idleMs: number, ping: () => void, giveUp: () => void) {
    this.timer = setInterval(() => {
      if (this.wasHeard) this.silentMs = 0;
      else this.silentMs += intervalMs;
      this.wasHeard = false;
      if (this.silentMs >= idleMs) giveUp();
      else ping();
    }, intervalMs);
    this.timer.unref();
  }

  heard(): void {
    this.wasHeard = true;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
