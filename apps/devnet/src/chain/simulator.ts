/**
 * Devnet chain simulator: serves the block-explorer APIs the payments watcher reads, on loopback,
 * over the in-memory chains of `SimLedger`:
 *   /btc/api/…, /ltc/api/…   Esplora (Blockstream, mempool.space, litecoinspace)
 *   /tron/v1/accounts/…      TronGrid's TRC-20 transfers
 * plus a control API (`POST /_sim/pay`, `/_sim/mine`, `/_sim/drop`) for `npm run devnet -- pay`
 * and tests, and a page with a form (GET /) so a person can pay a deposit address by hand.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type SimChainId, SimLedger } from './ledger.ts';

export { type SimChainId, SimLedger, USDT_CONTRACT } from './ledger.ts';

/** A TRON base58check address as TronGrid's events show it: 0x and the 20 bytes after the 0x41 prefix. */
function tronHex(base58: string): string {
  const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let n = 0n;
  for (const ch of base58) {
    const d = ALPHABET.indexOf(ch);
    if (d < 0) return `0x${'0'.repeat(40)}`;
    n = n * 58n + BigInt(d);
  }
  // 25 bytes: 0x41, the 20-byte account, a 4-byte checksum.
  const hex = n.toString(16).padStart(50, '0');
  return `0x${hex.slice(2, 42)}`;
}

/** Base-unit decimals per simulated chain (TRON: USDT's 6). */
export const SIM_DECIMALS: Record<SimChainId, number> = { btc: 8, ltc: 8, tron: 6 };

/** Names a person may type for a chain: `ltc`, `btc`, `usdt`, `trc20usdt`, `tron`. */
export function parseSimChain(name: string): SimChainId | undefined {
  const n = name.toLowerCase();
  if (n === 'btc' || n === 'ltc') return n;
  if (n === 'tron' || n === 'usdt' || n === 'trc20usdt' || n === 'trc20') return 'tron';
  return undefined;
}

/** Whole coins ("0.25") to base units; throws on anything else. */
export function coinsToBase(text: string, decimals: number): bigint {
  const m = /^(\d{1,12})(?:\.(\d+))?$/.exec(text.trim());
  if (!m || (m[2] ?? '').length > decimals)
    throw new Error(`not an amount with at most ${decimals} decimals: ${text}`);
  return BigInt(m[1] as string) * 10n ** BigInt(decimals) + BigInt((m[2] ?? '').padEnd(decimals, '0') || '0');
}

export interface ChainSimulatorConfig {
  host: string;
  /** 0 picks a free port. */
  port: number;
  now?: () => number;
}

export interface ChainSimulator {
  /** `http://host:port`. */
  url: string;
  /** Esplora base URL of a UTXO chain (`…/btc/api`). */
  esploraUrl(chain: 'btc' | 'ltc'): string;
  /** TronGrid base URL (`…/tron`). */
  tronGridUrl: string;
  ledger: SimLedger;
  /** Pays `amount` whole coins to `address` and mines `blocks` blocks (0: leaves it in the mempool). */
  pay(chain: SimChainId, address: string, amount: string, blocks?: number): string;
  /** While on, every explorer path of `chain` (or of all chains) answers 503: an outage. */
  setOutage(chain: SimChainId | 'all', on: boolean): void;
  /** Explorer requests answered so far, of one chain or all (the benchmark counts them). */
  requests(chain?: SimChainId): number;
  close(): Promise<void>;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function page(sim: SimLedger, message: string): string {
  const rows = sim
    .recent(20)
    .map(
      (r) =>
        `<tr><td>${r.chain}</td><td><code>${escapeHtml(r.address)}</code></td><td>${(Number(r.value) / 10 ** SIM_DECIMALS[r.chain]).toString()}</td><td>${r.confirmed ? 'confirmed' : 'mempool'}</td><td><code>${r.txid.slice(0, 16)}…</code></td></tr>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Devnet chains</title><style>body{font:15px system-ui,sans-serif;margin:0;background:#f5f6f8;color:#1d2330}main{max-width:900px;margin:0 auto;padding:24px}form{background:#fff;padding:16px;border:1px solid #e3e6eb;display:grid;gap:10px;max-width:560px}input,select,button{font:inherit;padding:6px}table{width:100%;border-collapse:collapse;background:#fff;margin-top:20px}td,th{padding:6px 8px;border-bottom:1px solid #e3e6eb;text-align:left}.msg{padding:10px;background:#e7f5ea;border:1px solid #b7e0c1}</style></head><body><main>
<h1>Devnet chains</h1><p>Simulated Bitcoin, Litecoin and TRON (USDT TRC-20) behind the Esplora and TronGrid APIs. Pay a charge's address here to top up a balance.</p>
${message ? `<p class="msg">${escapeHtml(message)}</p>` : ''}
<form method="post" action="/_sim/pay-form"><label>Chain <select name="chain"><option value="ltc">LTC</option><option value="btc">BTC</option><option value="usdt">USDT TRC20</option></select></label>
<label>Address <input name="address" required size="48" autocomplete="off"></label>
<label>Amount (coins) <input name="amount" required placeholder="0.25"></label>
<label>Blocks to mine <input name="blocks" type="number" min="0" max="100" value="6"></label>
<button type="submit">Pay</button></form>
<p>Tips: btc ${sim.tipHeight('btc')}, ltc ${sim.tipHeight('ltc')}, tron ${sim.tipHeight('tron')}</p>
<table><thead><tr><th>Chain</th><th>Address</th><th>Amount</th><th>State</th><th>Txid</th></tr></thead><tbody>${rows}</tbody></table>
</main></body></html>`;
}

/** Starts the simulator; `close()` stops it. */
export async function startChainSimulator(config: ChainSimulatorConfig): Promise<ChainSimulator> {
  const ledger = new SimLedger(config.now);
  const outages = new Set<SimChainId | 'all'>();
  const served: Record<SimChainId, number> = { btc: 0, ltc: 0, tron: 0 };

  const pay = (chain: SimChainId, address: string, amount: string, blocks = 6): string => {
    if (!address || address.length > 100) throw new Error('address required');
    const txid = ledger.pay({ chain, address, value: coinsToBase(amount, SIM_DECIMALS[chain]) });
    if (blocks > 0) ledger.mine(chain, Math.min(blocks, 1000));
    return txid;
  };

  const explorer = (
    chain: SimChainId,
    rest: string,
    query: URLSearchParams,
    res: ServerResponse,
  ): unknown => {
    served[chain]++;
    if (outages.has(chain) || outages.has('all')) return send(res, 503, 'Service Unavailable', 'text/plain');
    if (chain === 'tron') {
      const ev = /^\/v1\/transactions\/([0-9a-fA-F]{64})\/events$/.exec(rest);
      if (ev) return send(res, 200, ledger.trc20Events((ev[1] as string).toLowerCase(), query, tronHex));
      const m = /^\/v1\/accounts\/([^/]+)\/transactions\/trc20$/.exec(rest);
      if (!m) return send(res, 404, { success: false, error: 'not found' });
      const limit = Number(query.get('limit') ?? 20);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) return send(res, 400, '', 'text/plain');
      if (query.get('only_confirmed') === 'true' && query.get('only_unconfirmed') === 'true') {
        return send(res, 400, { success: false, error: 'only_confirmed and only_unconfirmed are exclusive' });
      }
      return send(res, 200, ledger.trc20(decodeURIComponent(m[1] as string), query));
    }
    if (rest === '/blocks/tip/height') return send(res, 200, String(ledger.tipHeight(chain)), 'text/plain');
    let m = /^\/address\/([^/]+)\/txs(?:\/chain(?:\/([0-9a-f]{64}))?)?$/.exec(rest);
    if (m) {
      const txs = ledger.addressTxs(chain, decodeURIComponent(m[1] as string), m[2]);
      return txs ? send(res, 200, txs) : send(res, 400, 'Invalid last_seen_txid', 'text/plain');
    }
    m = /^\/tx\/([0-9a-fA-F]{64})(\/status)?$/.exec(rest);
    if (m) {
      const txid = (m[1] as string).toLowerCase();
      const body = m[2] ? ledger.txStatus(chain, txid) : ledger.tx(chain, txid);
      return body ? send(res, 200, body) : send(res, 404, 'Transaction not found', 'text/plain');
    }
    send(res, 404, 'Not found', 'text/plain');
  };

  const control = async (req: IncomingMessage, path: string, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    if (path === '/_sim/pay-form') {
      const f = new URLSearchParams(raw);
      let message: string;
      try {
        const chain = parseSimChain(f.get('chain') ?? '');
        if (!chain) throw new Error('unknown chain');
        const txid = pay(
          chain,
          (f.get('address') ?? '').trim(),
          f.get('amount') ?? '',
          Number(f.get('blocks') ?? 6),
        );
        message = `Paid ${f.get('amount')} ${f.get('chain')} to ${f.get('address')}: ${txid}`;
      } catch (e) {
        message = `Payment refused: ${(e as Error).message}`;
      }
      return send(res, 200, page(ledger, message), 'text/html; charset=utf-8');
    }
    const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>;
    const chain = parseSimChain(String(body.chain ?? ''));
    if (!chain) return send(res, 400, { error: 'chain must be btc, ltc or usdt' });
    if (path === '/_sim/pay') {
      const txid = pay(
        chain,
        String(body.address ?? ''),
        String(body.amount ?? ''),
        Number(body.blocks ?? 6),
      );
      return send(res, 200, { txid, tip: ledger.tipHeight(chain) });
    }
    if (path === '/_sim/mine') return send(res, 200, { tip: ledger.mine(chain, Number(body.blocks ?? 1)) });
    if (path === '/_sim/drop')
      return send(res, 200, { dropped: ledger.drop(chain, String(body.txid ?? '')) });
    send(res, 404, { error: 'not found' });
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    const path = url.pathname;
    const handle = async () => {
      if (req.method === 'POST' && path.startsWith('/_sim/')) return control(req, path, res);
      if (req.method !== 'GET') return send(res, 405, 'Method not allowed', 'text/plain');
      if (path === '/') return send(res, 200, page(ledger, ''), 'text/html; charset=utf-8');
      const m = /^\/(btc|ltc)\/api(\/.*)$/.exec(path) ?? /^\/(tron)(\/.*)$/.exec(path);
      if (m) return explorer(m[1] as SimChainId, m[2] as string, url.searchParams, res);
      send(res, 404, 'Not found', 'text/plain');
    };
    handle().catch((e: Error) => send(res, 400, { error: e.message }));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  return {
    url,
    esploraUrl: (chain) => `${url}/${chain}/api`,
    tronGridUrl: `${url}/tron`,
    ledger,
    pay,
    setOutage(chain, on) {
      if (on) outages.add(chain);
      else outages.delete(chain);
    },
    requests: (chain) => (chain ? served[chain] : served.btc + served.ltc + served.tron),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
