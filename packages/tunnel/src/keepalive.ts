/** What a keepalive calls: its methods, so a tunnel holds no closures for it. */
export interface KeepaliveHost {
  /** Time to ping the peer. */
  keepalivePing(): void;
  /** Nothing was heard for the idle limit. */
  keepaliveLost(): void;
}

/** The interval's callback: one function for every keepalive. */
function tickKeepalive(k: Keepalive): void {
  k.tick();
}

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
  private readonly host: KeepaliveHost;

  private readonly onlyWhenSilent: boolean;

  /** `onlyWhenSilent`: ping only after an interval in which nothing was heard. */
  constructor(intervalMs: number, idleMs: number, host: KeepaliveHost, onlyWhenSilent = false) {
    this.intervalMs = intervalMs;
    this.idleMs = idleMs;
    this.host = host;
    this.onlyWhenSilent = onlyWhenSilent;
  }

  /** Starts the timer (once). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(tickKeepalive, this.intervalMs, this);
    this.timer.unref();
  }

  /** One interval passed: give up after `idleMs` of silence, else ping (unless heard, when asked). */
  tick(): void {
    const heard = this.wasHeard;
    if (heard) this.silentMs = 0;
    else this.silentMs += this.intervalMs;
    this.wasHeard = false;
    if (this.silentMs >= this.idleMs) this.host.keepaliveLost();
    else if (!heard || !this.onlyWhenSilent) this.host.keepalivePing();
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
