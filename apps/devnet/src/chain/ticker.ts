/**
 * Devnet rates source: Kraken's public ticker (`GET /0/public/Ticker?pair=XBTUSD,LTCUSD,USDTUSD`)
 * and Coinbase's spot price (`GET /v2/prices/BTC-USD/spot`), in their JSON shapes, on loopback.
 * Prices are settable and either source can be taken down, so tests reach the fallback and the
 * stale-quote refusal through the production client.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Coins the ticker quotes, by the payments module's currency ids. */
export type TickerCoin = 'btc' | 'ltc' | 'trc20usdt';

/** Kraken's names: the pair asked for, and the (different) key it answers under. */
const KRAKEN: Record<TickerCoin, { pair: string; key: string }> = {
  btc: { pair: 'XBTUSD', key: 'XXBTZUSD' },
  ltc: { pair: 'LTCUSD', key: 'XLTCZUSD' },
  trc20usdt: { pair: 'USDTUSD', key: 'USDTZUSD' },
};
const COINBASE: Record<string, TickerCoin> = { 'BTC-USD': 'btc', 'LTC-USD': 'ltc', 'USDT-USD': 'trc20usdt' };

/** Demo prices (dollars per coin, decimal strings as the exchanges send them). */
export const DEFAULT_PRICES: Record<TickerCoin, string> = {
  btc: '97250.10',
  ltc: '84.00',
  trc20usdt: '1.0002',
};

export interface Ticker {
  /** `http://host:port`: Kraken's and Coinbase's base URL alike. */
  url: string;
  /** Sets a coin's price at both sources, or at one (`source`) so they disagree. */
  setPrice(coin: TickerCoin, dollars: string, source?: 'kraken' | 'coinbase'): void;
  /** While on, that source answers 503. */
  setOutage(source: 'kraken' | 'coinbase', on: boolean): void;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** Starts the ticker on `host:port` (0 picks a free port). */
export async function startTicker(config: {
  host: string;
  port: number;
  prices?: Partial<Record<TickerCoin, string>>;
}): Promise<Ticker> {
  const prices: Record<TickerCoin, string> = { ...DEFAULT_PRICES, ...config.prices };
  /** Coinbase's own prices where they differ from the shared ones. */
  const coinbasePrices: Partial<Record<TickerCoin, string>> = {};
  const down = new Set<string>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://ticker');
    if (url.pathname === '/0/public/Ticker') {
      if (down.has('kraken')) return send(res, 503, { error: ['EService:Unavailable'] });
      const asked = (url.searchParams.get('pair') ?? '').split(',').filter(Boolean);
      const result: Record<string, object> = {};
      for (const [coin, k] of Object.entries(KRAKEN) as [TickerCoin, { pair: string; key: string }][]) {
        if (!asked.includes(k.pair)) continue;
        const p = prices[coin];
        result[k.key] = {
          a: [p, '1', '1.000'],
          b: [p, '1', '1.000'],
          c: [p, '0.01000000'],
          v: ['100.0', '1000.0'],
          p: [p, p],
          t: [100, 1000],
          l: [p, p],
          h: [p, p],
          o: p,
        };
      }
      if (Object.keys(result).length === 0) return send(res, 200, { error: ['EQuery:Unknown asset pair'] });
      return send(res, 200, { error: [], result });
    }
    const m = /^\/v2\/prices\/([A-Z]+-USD)\/spot$/.exec(url.pathname);
    if (m) {
      if (down.has('coinbase')) return send(res, 503, { errors: [{ id: 'service_unavailable' }] });
      const coin = COINBASE[m[1] as string];
      if (!coin) return send(res, 404, { errors: [{ id: 'not_found', message: 'Invalid currency' }] });
      const [base] = (m[1] as string).split('-');
      return send(res, 200, {
        data: { amount: coinbasePrices[coin] ?? prices[coin], base, currency: 'USD' },
      });
    }
    send(res, 404, { error: ['EGeneral:Unknown method'] });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    setPrice(coin, dollars, source) {
      if (source !== 'coinbase') prices[coin] = dollars;
      if (source === 'coinbase') coinbasePrices[coin] = dollars;
      else if (source === undefined) delete coinbasePrices[coin];
    },
    setOutage(source, on) {
      if (on) down.add(source);
      else down.delete(source);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
