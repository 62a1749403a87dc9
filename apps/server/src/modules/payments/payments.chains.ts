/**
 * Clients of the public chain APIs operators use: Esplora for Bitcoin and Litecoin, TronGrid for
 * USDT TRC-20. Each turns an address's history into the outputs paid to it, in base units,
 * keyed the way they are credited: (txid, vout) on UTXO chains, (txid, recipient) on TRON.
 */
import type { CurrencyId } from '@pm/contracts';
import type { PaymentsSettings } from './payments.config.ts';

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

/** A chain API for one currency. */
export interface ChainClient {
  currency: CurrencyId;
  /** Confirmations a payment needs before it is credited. */
  confirmationsRequired: number;
  /**
   * Every output paid to `address`: unconfirmed ones too when `withPending`. `sinceMs` bounds
   * TRC-20 history (transfers before the charge was created cannot be for it).
   */
  scanAddress(address: string, o: { sinceMs: number; withPending: boolean }): Promise<ObservedOutput[]>;
  /**
   * Re-reads one output just before it is credited, so a stale or replayed list answer can never
   * credit what the chain does not hold: the current confirmed state, or null when not (yet) there.
   */
  verify(output: ObservedOutput, address: string): Promise<ObservedOutput | null>;
  /** The outputs of a transaction, with their addresses (UTXO chains; staff deep-check by txid). */
  findTx?(txid: string): Promise<{ address: string; output: ObservedOutput }[] | null>;
}

const TIMEOUT_MS = 10_000;
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
): ChainClient {
  const { url, apiKey } = settings.esplora[currency];
  const required = settings.confirmations[currency];
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
  const isDeep = (height: number | undefined, tipHeight: number) =>
    height !== undefined && tipHeight - height + 1 >= required;
  const toOutput = (tx: EsploraTx, vout: number): ObservedOutput => ({
    txid: tx.txid,
    outKey: String(vout),
    valueBase: BigInt(tx.vout[vout]?.value ?? 0),
    confirmed: tx.status.confirmed,
    blockHeight: tx.status.block_height,
    blockHash: tx.status.block_hash,
    blockTime: tx.status.block_time === undefined ? undefined : tx.status.block_time * 1000,
  });

  return {
    currency,
    confirmationsRequired: required,
    async scanAddress(address, o) {
      // One request per address: confirmation depth is checked by verify(), against a fresh tip.
      const out: ObservedOutput[] = [];
      let page = await json<EsploraTx[]>(`/address/${encodeURIComponent(address)}/txs`);
      for (let i = 0; page && i < MAX_PAGES; i++) {
        for (const tx of page) {
          tx.vout.forEach((v, n) => {
            if (v.scriptpubkey_address !== address || v.value <= 0) return;
            if (!tx.status.confirmed && !o.withPending) return;
            out.push(toOutput(tx, n));
          });
        }
        const confirmed = page.filter((t) => t.status.confirmed);
        if (confirmed.length < 25) break;
        const last = (confirmed.at(-1) as EsploraTx).txid;
        page = await json<EsploraTx[]>(`/address/${encodeURIComponent(address)}/txs/chain/${last}`);
      }
      return out;
    },
    async verify(output) {
      const status = await json<EsploraTx['status']>(`/tx/${output.txid}/status`, true);
      if (!status?.confirmed) return null;
      const tipHeight = await tip();
      if (!isDeep(status.block_height, tipHeight)) return null;
      return {
        ...output,
        confirmed: true,
        blockHeight: status.block_height,
        blockHash: status.block_hash,
        blockTime: status.block_time === undefined ? output.blockTime : status.block_time * 1000,
      };
    },
    async findTx(txid) {
      const tx = await json<EsploraTx>(`/tx/${txid}`, true);
      if (!tx) return null;
      return tx.vout.flatMap((v, n) =>
        v.scriptpubkey_address && v.value > 0
          ? [{ address: v.scriptpubkey_address, output: toOutput(tx, n) }]
          : [],
      );
    },
  };
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
 * TronGrid's TRC-20 transfers of an account, only USDT, only to the address (REFERENCE.md: a row
 * counts only if its type is Transfer, its contract is USDT and its recipient is the address).
 * Values of one transaction to one recipient are summed: that pair is the credited unit.
 */
export function createTronGridClient(settings: PaymentsSettings, f: typeof fetch = fetch): ChainClient {
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
      if (r.type !== 'Transfer' || r.token_info?.address !== usdtContract || r.to !== address) continue;
      if (!/^[0-9a-fA-F]{64}$/.test(r.transaction_id) || !/^\d{1,30}$/.test(r.value ?? '')) continue;
      const prev = sums.get(r.transaction_id);
      const value = BigInt(r.value as string);
      if (prev) prev.valueBase += value;
      else
        sums.set(r.transaction_id, {
          txid: r.transaction_id.toLowerCase(),
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
    confirmationsRequired: 1,
    async scanAddress(address, o) {
      const confirmed = await list(address, o.sinceMs, 'only_confirmed');
      if (!o.withPending) return confirmed;
      const seen = new Set(confirmed.map((c) => c.txid));
      const pending = await list(address, o.sinceMs, 'only_unconfirmed');
      return [...confirmed, ...pending.filter((p) => !seen.has(p.txid))];
    },
    async verify(output) {
      // `only_confirmed` answers hold solidified (irreversible) transfers only; nothing to re-read.
      return output.confirmed ? output : null;
    },
  };
}

/** The clients of every currency that has an xpub configured. */
export function createChainClients(
  settings: PaymentsSettings,
  f: typeof fetch = fetch,
): Partial<Record<CurrencyId, ChainClient>> {
  const clients: Partial<Record<CurrencyId, ChainClient>> = {};
  if (settings.xpubs.btc) clients.btc = createEsploraClient('btc', settings, f);
  if (settings.xpubs.ltc) clients.ltc = createEsploraClient('ltc', settings, f);
  if (settings.xpubs.trc20usdt) clients.trc20usdt = createTronGridClient(settings, f);
  return clients;
}
