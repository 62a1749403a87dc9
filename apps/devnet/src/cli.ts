/**
 * `npm run devnet -- <command>`: drives the running `npm start`'s chain simulator.
 *   pay <btc|ltc|usdt> <address> <amount> [--blocks N]   pays whole coins and mines N blocks (default 6)
 *   mine <btc|ltc|usdt> [N]                               mines N blocks (default 1)
 * The simulator is found through DEVNET_CHAIN_URL, else DATA_DIR/devnet.json (written by npm start;
 * DATA_DIR defaults to ./data), else http://127.0.0.1:$CHAIN_PORT (default 7305).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseSimChain } from './chain/simulator.ts';

const USAGE = `usage: npm run devnet -- pay <btc|ltc|usdt> <address> <amount> [--blocks N]
       npm run devnet -- mine <btc|ltc|usdt> [N]`;

function chainUrl(): string {
  if (process.env.DEVNET_CHAIN_URL) return process.env.DEVNET_CHAIN_URL;
  const file = join(resolve(process.env.DATA_DIR ?? './data'), 'devnet.json');
  if (existsSync(file)) {
    const url = (JSON.parse(readFileSync(file, 'utf8')) as { chainUrl?: string }).chainUrl;
    if (url) return url;
  }
  return `http://127.0.0.1:${process.env.CHAIN_PORT ?? 7305}`;
}

async function call(path: string, body: object): Promise<Record<string, unknown>> {
  const url = `${chainUrl()}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (e) {
    throw new Error(
      `cannot reach the chain simulator at ${url} (is npm start running? DATA_DIR?): ${(e as Error).message}`,
    );
  }
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(String(json.error ?? res.status));
  return json;
}

async function main(argv: string[]): Promise<void> {
  const [command, chainName, ...rest] = argv;
  const chain = parseSimChain(chainName ?? '');
  if (!chain || (command !== 'pay' && command !== 'mine')) throw new Error(USAGE);
  if (command === 'mine') {
    const r = await call('/_sim/mine', { chain, blocks: Number(rest[0] ?? 1) });
    console.log(`${chainName} tip is now ${r.tip}`);
    return;
  }
  const blocksAt = rest.indexOf('--blocks');
  const blocks = blocksAt >= 0 ? Number(rest[blocksAt + 1]) : 6;
  const [address, amount] = rest.filter((_, i) => blocksAt < 0 || (i !== blocksAt && i !== blocksAt + 1));
  if (!address || !amount || !Number.isInteger(blocks) || blocks < 0) throw new Error(USAGE);
  const r = await call('/_sim/pay', { chain, address, amount, blocks });
  console.log(
    `paid ${amount} ${chainName} to ${address}: txid ${r.txid}; ${blocks} block(s) mined, tip ${r.tip}`,
  );
}

main(process.argv.slice(2)).catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
