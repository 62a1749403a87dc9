/**
 * Clients of the public chain APIs operators use: Esplora for Bitcoin and Litecoin, TronGrid for
 * USDT TRC-20. Each turns an address's history into the outputs paid to it, in base units,
 * keyed the way they are credited: (txid, vout) on UTXO chains, (txid, recipient) on TRON.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import type { CurrencyId } from '@pm/contracts';
import { createBase58check, hex } from '@scure/base';
import { confirmationsFor, maxConfirmations, type PaymentsSettings } from './payments.config.ts';

/** One payment to an address as the chain API reports it now. */
export interface ObservedOutput {
  txid: string;
  /** vout index as a string (UTXO), or the recipient address (TRC-20). */
  outKey: string;
  valueBase: bigint;
  /** In a block (TRC-20: solidified); whether it is deep enough to credit is `verify()`'s answer. */
  confirmed: boolean;
  blockHeight?: number | undefined;
  blockHash?: string | undefined;
  /** Milliseconds. */
  blockTime?: number | undefined;
}

/** What re-reading one output from the chain found. */
export type Verified =
  /** At least the depth asked for, to this address, with this value. */
  | { state: 'deep'; output: ObservedOutput; depth: number }
  /** There, right address and value, not deep enough yet (0: back in the mempool). */
  | { state: 'shallow'; depth: number }
  /** The chain does not know the transaction (never was, or a reorg took it out). */
  | { state: 'missing' }
  /** The transaction exists but does not pay this address this value (a forged or stale answer). */
  | { state: 'mismatch'; detail: string };

/** A chain API for one currency. */
export interface ChainClient {
  currency: CurrencyId;
  /** Confirmations an output worth `valueC` cents needs before it is credited. */
  confirmationsFor(valueC: number): number;
  /** Depth at which a credited output is final and no longer re-checked (TRC-20: solidified, 1). */
  finalDepth: number;
  /**
   * Every output paid to `address`: unconfirmed ones too when `withPending`. `sinceMs` bounds
   * TRC-20 history (transfers before the charge was created cannot be for it).
   */
  scanAddress(address: string, o: { sinceMs: number; withPending: boolean }): Promise<ObservedOutput[]>;
  /**
   * Re-reads one output from the chain (before it is credited, and after, until it is final), so
   * a stale, replayed or forged list answer can never credit what the chain does not hold: the
   * transaction must exist, pay `address` exactly `valueBase`, and be `minDepth` deep.
   */
  verify(output: ObservedOutput, address: string, minDepth: number): Promise<Verified>;
  /** The outputs of a transaction, with their addresses (UTXO chains; staff deep-check by txid). */
  findTx?(txid: string): Promise<{ address: string; output: ObservedOutput }[] | null>;
}

/** Called for an explorer entry that is skipped because it is malformed (logged by the module). */
export type OnMalformed = (detail: Record<string, unknown>) => void;

const TIMEOUT_MS = 10_000;
const base58check = createBase58check(sha256);
/** A credited UTXO output is re-read until this deep (then final). */
const FINAL_DEPTH = 6;
/** No output can carry more than the coin's supply (21M BTC, 84M LTC; USDT: 10^12 coins is absurd). */
const MAX_BASE: Record<CurrencyId, bigint> = {
  btc: 21_000_000n * 10n ** 8n,
  ltc: 84_000_000n * 10n ** 8n,
  trc20usdt: 10n ** 18n,
};
const TXID = /^[0-9a-fA-F]{64}$/;

/** Esplora pages confirmed history 25 at a time; a deposit address has a few, so this bounds a scan. */
const MAX_PAGES = 40;

/** An error talking to a chain API (the watcher backs off on these). */
export class ChainApiError extends Error {
  override name = 'ChainApiError';
}

async function request(f: typeof fetch, url: string, headers: Record<string, string>): Promise<Response> {
  let res: Response;
  try {
    res = await f(url, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (e) {
    throw new ChainApiError(`${url}: ${(e as Error).message}`);
  }
  return res;
}

interface EsploraTx {
  txid: string;
  vout: { scriptpubkey_address?: string; value: number }[];
  status: { confirmed: boolean; block_height?: number; block_hash?: string; block_time?: number };
}

/** Esplora (Blockstream API.md): `/address/:a/txs`, `/txs/chain/:last`, `/blocks/tip/height`, `/tx/:id[/status]`. */
export function createEsploraClient(
  currency: 'btc' | 'ltc',
  settings: PaymentsSettings,
  f: typeof fetch = fetch,
  onMalformed: OnMalformed = () => {},
): ChainClient {
  const { url, apiKey } = settings.esplora[currency];
  const tiers = settings.confirmations[currency];
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const json = async <T>(path: string, allow404 = false): Promise<T | null> => {
    const res = await request(f, `${url}${path}`, headers);
    if (allow404 && (res.status === 404 || res.status === 400)) return null;
    if (!res.ok) throw new ChainApiError(`${currency} ${path}: HTTP ${res.status}`);
    return (await res.json()) as T;
  };
  const tip = async (): Promise<number> => {
    const res = await request(f, `${url}/blocks/tip/height`, headers);
    const n = Number((await res.text()).trim());
    if (!res.ok || !Number.isSafeInteger(n)) throw new ChainApiError(`${currency} tip: HTTP ${res.status}`);
    return n;
  };
  /** An output's value in base units, or null when it is not a whole positive amount within the supply. */
  const outputValue = (v: unknown): bigint | null =>
    typeof v === 'number' && Number.isSafeInteger(v) && v > 0 && BigInt(v) <= MAX_BASE[currency]
      ? BigInt(v)
      : null;
  const toOutput = (tx: EsploraTx, vout: number): ObservedOutput => ({
    txid: tx.txid.toLowerCase(),
    outKey: String(vout),
    valueBase: outputValue(tx.vout[vout]?.value) ?? 0n,
    confirmed: tx.status.confirmed,
    blockHeight: tx.status.block_height,
    blockHash: tx.status.block_hash,
    blockTime: tx.status.block_time === undefined ? undefined : tx.status.block_time * 1000,
  });

  /** True when `tx` has the shape the watcher reads (one bad entry must not abort a scan). */
  const isWellFormed = (tx: unknown): tx is EsploraTx => {
    const t = tx as EsploraTx | null;
    return (
      typeof t === 'object' &&
      t !== null &&
      typeof t.txid === 'string' &&
      TXID.test(t.txid) &&
      Array.isArray(t.vout) &&
      typeof t.status === 'object' &&
      t.status !== null &&
      typeof t.status.confirmed === 'boolean' &&
      (!t.status.confirmed || Number.isSafeInteger(t.status.block_height))
    );
  };

  return {
    currency,
    confirmationsFor: (valueC) => confirmationsFor(tiers, valueC),
    finalDepth: Math.max(FINAL_DEPTH, maxConfirmations(tiers)),
    async scanAddress(address, o) {
      // One request per address: confirmation depth is checked by verify(), against a fresh tip.
      const out: ObservedOutput[] = [];
      let page = await json<unknown[]>(`/address/${encodeURIComponent(address)}/txs`);
      for (let i = 0; Array.isArray(page) && i < MAX_PAGES; i++) {
        const txs: EsploraTx[] = [];
        for (const tx of page) {
          if (!isWellFormed(tx)) {
            onMalformed({ currency, address, entry: JSON.stringify(tx)?.slice(0, 300) });
            continue;
          }
          txs.push(tx);
          tx.vout.forEach((v, n) => {
            if (v?.scriptpubkey_address !== address) return;
            if (outputValue(v.value) === null) {
              onMalformed({ currency, address, txid: tx.txid, vout: n, value: String(v.value).slice(0, 40) });
              return;
            }
            if (!tx.status.confirmed && !o.withPending) return;
            out.push(toOutput(tx, n));
          });
        }
        const confirmed = txs.filter((t) => t.status.confirmed);
        if (confirmed.length < 25) break;
        const last = (confirmed.at(-1) as EsploraTx).txid;
        page = await json<unknown[]>(`/address/${encodeURIComponent(address)}/txs/chain/${last}`);
      }
      return out;
    },
    async verify(output, address, minDepth) {
      if (!TXID.test(output.txid)) return { state: 'missing' };
      const tx = await json<unknown>(`/tx/${output.txid}`, true);
      if (tx === null) return { state: 'missing' };
      if (!isWellFormed(tx)) return { state: 'mismatch', detail: 'malformed transaction answer' };
      const n = Number(output.outKey);
      const v = Number.isSafeInteger(n) ? tx.vout[n] : undefined;
      if (v?.scriptpubkey_address !== address)
        return { state: 'mismatch', detail: `output ${output.outKey} pays another address` };
      if (outputValue(v.value) !== output.valueBase) {
        return {
          state: 'mismatch',
          detail: `output ${output.outKey} pays ${String(v.value)}, not ${output.valueBase}`,
        };
      }
      if (!tx.status.confirmed) return { state: 'shallow', depth: 0 };
      const depth = (await tip()) - (tx.status.block_height as number) + 1;
      if (depth < minDepth) return { state: 'shallow', depth };
      return {
        state: 'deep',
        depth,
        output: {
          ...output,
          confirmed: true,
          blockHeight: tx.status.block_height,
          blockHash: tx.status.block_hash,
          blockTime: tx.status.block_time === undefined ? output.blockTime : tx.status.block_time * 1000,
        },
      };
    },
    async findTx(txid) {
      const tx = await json<unknown>(`/tx/${txid}`, true);
      if (tx === null || !isWellFormed(tx)) return null;
      return tx.vout.flatMap((v, n) =>
        v?.scriptpubkey_address && outputValue(v.value) !== null
          ? [{ address: v.scriptpubkey_address, output: toOutput(tx, n) }]
          : [],
      );
    },
  };
}

/** One decoded event of TronGrid's `/v1/transactions/:id/events` (addresses as 0x-hex). */
interface TronEvent {
  event_name?: string;
  contract_address?: string;
  block_timestamp?: number;
  result?: { to?: string; value?: string };
}

/** A TRON address as TronGrid's events write it: 0x and the 20 bytes after the 0x41 prefix. */
function tronHex(address: string): string {
  try {
    return `0x${hex.encode(base58check.decode(address).slice(1))}`;
  } catch {
    return '';
  }
}

interface TronRow {
  transaction_id: string;
  token_info?: { address?: string };
  block_timestamp?: number;
  to?: string;
  type?: string;
  value?: string;
}

/**
 * TronGrid's TRC-20 transfers of an account, only USDT, only to the address (a row
 * counts only if its type is Transfer, its contract is USDT and its recipient is the address).
 * Values of one transaction to one recipient are summed: that pair is the credited unit.
 */
export function createTronGridClient(
  settings: PaymentsSettings,
  f: typeof fetch = fetch,
  onMalformed: OnMalformed = () => {},
): ChainClient {
  const { url, apiKey, usdtContract } = settings.trongrid;
  const headers: Record<string, string> = apiKey ? { 'TRON-PRO-API-KEY': apiKey } : {};
  const list = async (address: string, sinceMs: number, which: 'only_confirmed' | 'only_unconfirmed') => {
    const rows: TronRow[] = [];
    let fingerprint: string | undefined;
    for (let i = 0; i < MAX_PAGES; i++) {
      const q = new URLSearchParams({
        only_to: 'true',
        [which]: 'true',
        contract_address: usdtContract,
        limit: '200',
        min_timestamp: String(Math.max(0, sinceMs)),
        ...(fingerprint ? { fingerprint } : {}),
      });
      const res = await request(
        f,
        `${url}/v1/accounts/${encodeURIComponent(address)}/transactions/trc20?${q}`,
        headers,
      );
      if (!res.ok) throw new ChainApiError(`trc20 ${address}: HTTP ${res.status}`);
      const body = (await res.json()) as {
        data?: TronRow[];
        success?: boolean;
        meta?: { fingerprint?: string };
      };
      if (body.success === false || !Array.isArray(body.data))
        throw new ChainApiError('trc20: unsuccessful answer');
      rows.push(...body.data);
      fingerprint = body.meta?.fingerprint;
      if (!fingerprint) break;
    }
    const sums = new Map<string, ObservedOutput>();
    for (const r of rows) {
      if (typeof r !== 'object' || r === null) {
        onMalformed({ currency: 'trc20usdt', address, entry: String(r).slice(0, 100) });
        continue;
      }
      if (r.type !== 'Transfer' || r.token_info?.address !== usdtContract || r.to !== address) continue;
      const value = /^\d{1,30}$/.test(r.value ?? '') ? BigInt(r.value as string) : 0n;
      if (
        typeof r.transaction_id !== 'string' ||
        !TXID.test(r.transaction_id) ||
        value <= 0n ||
        value > MAX_BASE.trc20usdt
      ) {
        onMalformed({
          currency: 'trc20usdt',
          address,
          txid: String(r.transaction_id).slice(0, 80),
          value: String(r.value).slice(0, 40),
        });
        continue;
      }
      const txid = r.transaction_id.toLowerCase();
      const prev = sums.get(txid);
      if (prev) prev.valueBase += value;
      else
        sums.set(txid, {
          txid,
          outKey: address,
          valueBase: value,
          confirmed: which === 'only_confirmed',
          blockTime: r.block_timestamp,
        });
    }
    return [...sums.values()].filter((o) => o.valueBase > 0n);
  };

  return {
    currency: 'trc20usdt',
    confirmationsFor: () => 1,
    finalDepth: 1,
    async scanAddress(address, o) {
      // Solidified transfers only: TRON solidifies in about a minute, so a pending state is not
      // worth a second request per poll (the budget is TronGrid's daily quota).
      return list(address, o.sinceMs, 'only_confirmed');
    },
    async verify(output, address) {
      // Re-read through another TronGrid answer than the list: the transaction's own solidified
      // Transfer events, which must pay this address this (summed) value of the USDT contract.
      if (!TXID.test(output.txid)) return { state: 'missing' };
      const res = await request(
        f,
        `${url}/v1/transactions/${output.txid}/events?only_confirmed=true`,
        headers,
      );
      if (res.status === 404) return { state: 'missing' };
      if (!res.ok) throw new ChainApiError(`trc20 events ${output.txid}: HTTP ${res.status}`);
      const body = (await res.json()) as { data?: unknown; success?: boolean };
      if (body.success === false || !Array.isArray(body.data))
        throw new ChainApiError('trc20 events: unsuccessful answer');
      const to = tronHex(address);
      let sum = 0n;
      let blockTime: number | undefined;
      for (const e of body.data as TronEvent[]) {
        if (e?.event_name !== 'Transfer' || e.contract_address !== usdtContract) continue;
        if (typeof e.result?.to !== 'string' || e.result.to.toLowerCase() !== to) continue;
        if (!/^\d{1,30}$/.test(e.result.value ?? ''))
          return { state: 'mismatch', detail: 'malformed event value' };
        sum += BigInt(e.result.value as string);
        blockTime = typeof e.block_timestamp === 'number' ? e.block_timestamp : blockTime;
      }
      if (sum === 0n)
        return body.data.length === 0
          ? { state: 'missing' }
          : { state: 'mismatch', detail: 'no USDT transfer to this address' };
      if (sum !== output.valueBase)
        return { state: 'mismatch', detail: `transfer pays ${sum}, not ${output.valueBase}` };
      return {
        state: 'deep',
        depth: 1,
        output: { ...output, confirmed: true, blockTime: blockTime ?? output.blockTime },
      };
    },
  };
}

/** The clients of every currency that has an xpub configured. */
export function createChainClients(
  settings: PaymentsSettings,
  fetchFor: (currency: CurrencyId) => typeof fetch,
  onMalformed: OnMalformed = () => {},
): Partial<Record<CurrencyId, ChainClient>> {
  const clients: Partial<Record<CurrencyId, ChainClient>> = {};
  if (settings.xpubs.btc) clients.btc = createEsploraClient('btc', settings, fetchFor('btc'), onMalformed);
  if (settings.xpubs.ltc) clients.ltc = createEsploraClient('ltc', settings, fetchFor('ltc'), onMalformed);
  if (settings.xpubs.trc20usdt)
    clients.trc20usdt = createTronGridClient(settings, fetchFor('trc20usdt'), onMalformed);
  return clients;
}
