/**
 * The chain simulator's state: three in-memory chains (Bitcoin and Litecoin with UTXO
 * transactions, TRON with TRC-20 transfers), a mempool, blocks, and the answers the public APIs
 * give about them, in their JSON shapes (Esplora, TronGrid). No signatures and no keys: a payment
 * is a transaction that appears, confirms when blocks are mined, or vanishes before it does.
 */
import { randomBytes } from 'node:crypto';

/** The chains the simulator keeps; TRC-20 USDT lives on `tron`. */
export type SimChainId = 'btc' | 'ltc' | 'tron';
/** The USDT TRC-20 contract on TRON mainnet; transfers of any other contract are "other tokens". */
export const USDT_CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

interface Block {
  height: number;
  hash: string;
  /** Seconds since the epoch (Esplora's block_time). */
  time: number;
}

/** A Bitcoin or Litecoin transaction paying some outputs. */
interface UtxoTx {
  txid: string;
  outputs: { address: string; value: bigint }[];
  block?: Block | undefined;
  /** Order of arrival, for newest-first answers. */
  seq: number;
}

/** A TRC-20 transfer (one per transaction here). */
interface Trc20Transfer {
  txid: string;
  from: string;
  to: string;
  value: bigint;
  contract: string;
  /** Milliseconds; the time it was included (or sent, while unconfirmed). */
  timestamp: number;
  confirmed: boolean;
  seq: number;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** A payment's description for `pay` (amount in base units). */
export interface PayInput {
  chain: SimChainId;
  address: string;
  value: bigint;
  /** TRON only: the token contract (default USDT). */
  contract?: string;
}

/** The three chains and their query answers. `now` is injectable for tests. */
export class SimLedger {
  private seq = 0;
  private readonly blocks: Record<SimChainId, Block[]> = { btc: [], ltc: [], tron: [] };
  private readonly utxo: Record<'btc' | 'ltc', Map<string, UtxoTx>> = { btc: new Map(), ltc: new Map() };
  private readonly byAddress: Record<'btc' | 'ltc', Map<string, UtxoTx[]>> = {
    btc: new Map(),
    ltc: new Map(),
  };
  private readonly transfers = new Map<string, Trc20Transfer>();
  private readonly transfersTo = new Map<string, Trc20Transfer[]>();
  /** Raw entries served first in an address's answers (tests: malformed or forged explorer rows). */
  private readonly rawEntries = new Map<string, object[]>();

  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
    // A chain with history: heights like the real ones, so confirmations arithmetic is exercised.
    for (const [chain, start] of [
      ['btc', 840_000],
      ['ltc', 2_700_000],
      ['tron', 60_000_000],
    ] as const) {
      this.blocks[chain].push({ height: start, hash: hex(32), time: Math.floor(now() / 1000) });
    }
  }

  tipHeight(chain: SimChainId): number {
    return (this.blocks[chain].at(-1) as Block).height;
  }

  /** Sends a transaction (one output or transfer) to the mempool; returns its txid. */
  pay(input: PayInput): string {
    return this.payMany(input.chain, [{ address: input.address, value: input.value }], input.contract);
  }

  /** One transaction paying several outputs (UTXO chains; TRON makes one transfer per output). */
  payMany(
    chain: SimChainId,
    outputs: { address: string; value: bigint }[],
    contract = USDT_CONTRACT,
  ): string {
    if (outputs.length === 0 || outputs.some((o) => o.value <= 0n)) throw new Error('nothing to pay');
    const txid = hex(32);
    if (chain === 'tron') {
      for (const o of outputs) {
        const t: Trc20Transfer = {
          txid,
          from: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
          to: o.address,
          value: o.value,
          contract,
          timestamp: this.now(),
          confirmed: false,
          seq: ++this.seq,
        };
        this.transfers.set(`${txid}:${o.address}`, t);
        const list = this.transfersTo.get(o.address) ?? [];
        list.push(t);
        this.transfersTo.set(o.address, list);
      }
      return txid;
    }
    const tx: UtxoTx = { txid, outputs, seq: ++this.seq };
    this.utxo[chain].set(txid, tx);
    for (const address of new Set(outputs.map((o) => o.address))) {
      const list = this.byAddress[chain].get(address) ?? [];
      list.push(tx);
      this.byAddress[chain].set(address, list);
    }
    return txid;
  }

  /** Mines `count` blocks; the first one takes every mempool transaction of the chain. */
  mine(chain: SimChainId, count = 1): number {
    for (let i = 0; i < count; i++) {
      const block = { height: this.tipHeight(chain) + 1, hash: hex(32), time: Math.floor(this.now() / 1000) };
      this.blocks[chain].push(block);
      if (chain === 'tron') {
        for (const t of this.transfers.values()) {
          if (!t.confirmed) {
            t.confirmed = true;
            t.timestamp = block.time * 1000;
          }
        }
      } else {
        for (const tx of this.utxo[chain].values()) tx.block ??= block;
      }
    }
    return this.tipHeight(chain);
  }

  /** Removes an unconfirmed transaction (evicted or replaced); false when unknown or confirmed. */
  drop(chain: SimChainId, txid: string): boolean {
    if (chain === 'tron') {
      const gone = [...this.transfers.entries()].filter(([, t]) => t.txid === txid && !t.confirmed);
      for (const [key, t] of gone) {
        this.transfers.delete(key);
        const list = this.transfersTo.get(t.to) ?? [];
        this.transfersTo.set(
          t.to,
          list.filter((x) => x !== t),
        );
      }
      return gone.length > 0;
    }
    const tx = this.utxo[chain].get(txid);
    if (!tx || tx.block) return false;
    this.utxo[chain].delete(txid);
    for (const o of tx.outputs) {
      const list = this.byAddress[chain].get(o.address) ?? [];
      this.byAddress[chain].set(
        o.address,
        list.filter((x) => x !== tx),
      );
    }
    return true;
  }

  /**
   * Removes a transaction even after it confirmed (a reorg took it out of the chain and it never
   * came back): the explorer no longer knows it. False when unknown.
   */
  reorgOut(chain: SimChainId, txid: string): boolean {
    if (chain === 'tron') {
      for (const t of this.transfers.values()) if (t.txid === txid) t.confirmed = false;
      return this.drop(chain, txid);
    }
    const tx = this.utxo[chain].get(txid);
    if (!tx) return false;
    tx.block = undefined;
    return this.drop(chain, txid);
  }

  /**
   * Serves `entry` verbatim at the head of an address's history (Esplora `/address/:a/txs`, or
   * TronGrid's `data`): what a broken or hostile explorer might answer.
   */
  addRawEntry(chain: SimChainId, address: string, entry: object): void {
    const key = `${chain}:${address}`;
    this.rawEntries.set(key, [...(this.rawEntries.get(key) ?? []), entry]);
  }

  private raw(chain: SimChainId, address: string): object[] {
    return this.rawEntries.get(`${chain}:${address}`) ?? [];
  }

  private esploraTx(chain: 'btc' | 'ltc', tx: UtxoTx) {
    return {
      txid: tx.txid,
      version: 2,
      locktime: 0,
      size: 222,
      weight: 561,
      fee: 1410,
      vin: [
        {
          txid: `${'0'.repeat(63)}1`,
          vout: 0,
          is_coinbase: false,
          prevout: null,
          scriptsig: '',
          witness: [],
          sequence: 4294967293,
        },
      ],
      vout: tx.outputs.map((o) => ({
        scriptpubkey: '0014',
        scriptpubkey_asm: 'OP_0 OP_PUSHBYTES_20',
        scriptpubkey_type: 'v0_p2wpkh',
        scriptpubkey_address: o.address,
        value: Number(o.value),
      })),
      status: this.esploraStatus(chain, tx),
    };
  }

  private esploraStatus(_chain: 'btc' | 'ltc', tx: UtxoTx) {
    return tx.block
      ? {
          confirmed: true,
          block_height: tx.block.height,
          block_hash: tx.block.hash,
          block_time: tx.block.time,
        }
      : { confirmed: false };
  }

  /** `GET /address/:addr/txs` (and `/txs/chain/:last_seen`): mempool (up to 50) then 25 confirmed, newest first. */
  addressTxs(chain: 'btc' | 'ltc', address: string, lastSeen?: string): object[] | undefined {
    const all = [...(this.byAddress[chain].get(address) ?? [])].sort((a, b) => b.seq - a.seq);
    const confirmed = all.filter((t) => t.block);
    if (lastSeen !== undefined) {
      const at = confirmed.findIndex((t) => t.txid === lastSeen);
      if (at < 0) return undefined;
      return confirmed.slice(at + 1, at + 26).map((t) => this.esploraTx(chain, t));
    }
    const mempool = all.filter((t) => !t.block).slice(0, 50);
    return [
      ...this.raw(chain, address),
      ...[...mempool, ...confirmed.slice(0, 25)].map((t) => this.esploraTx(chain, t)),
    ];
  }

  /** `GET /tx/:txid`; undefined when unknown. */
  tx(chain: 'btc' | 'ltc', txid: string): object | undefined {
    const tx = this.utxo[chain].get(txid);
    return tx && this.esploraTx(chain, tx);
  }

  /** `GET /tx/:txid/status`; undefined when unknown. */
  txStatus(chain: 'btc' | 'ltc', txid: string): object | undefined {
    const tx = this.utxo[chain].get(txid);
    return tx && this.esploraStatus(chain, tx);
  }

  /**
   * TronGrid's `GET /v1/accounts/:addr/transactions/trc20` for the transfers *to* `address`
   * (`only_to`), newest first, with its filters and fingerprint paging.
   */
  trc20(address: string, q: URLSearchParams): object {
    const limit = Math.min(Number(q.get('limit') ?? 20) || 20, 200);
    const contract = q.get('contract_address');
    const minTs = Number(q.get('min_timestamp') ?? 0);
    let rows = [...(this.transfersTo.get(address) ?? [])]
      .filter((t) => (contract ? t.contract === contract : true))
      .filter((t) => t.timestamp >= minTs)
      .filter((t) => (q.get('only_confirmed') === 'true' ? t.confirmed : true))
      .filter((t) => (q.get('only_unconfirmed') === 'true' ? !t.confirmed : true))
      .sort((a, b) => b.seq - a.seq);
    const start = Number(q.get('fingerprint') ?? 0) || 0;
    rows = rows.slice(start);
    const page = rows.slice(0, limit);
    const more = rows.length > limit;
    return {
      data: [
        ...(start === 0 ? this.raw('tron', address) : []),
        ...page.map((t) => ({
          transaction_id: t.txid,
          token_info: {
            symbol: t.contract === USDT_CONTRACT ? 'USDT' : 'FAKE',
            address: t.contract,
            decimals: 6,
            name: t.contract === USDT_CONTRACT ? 'Tether USD' : 'Fake Token',
          },
          block_timestamp: t.timestamp,
          from: t.from,
          to: t.to,
          type: 'Transfer',
          value: t.value.toString(),
        })),
      ],
      success: true,
      meta: {
        at: this.now(),
        page_size: page.length,
        ...(more ? { fingerprint: String(start + limit) } : {}),
      },
    };
  }

  /**
   * TronGrid's `GET /v1/transactions/:txid/events` for a TRC-20 transaction: its Transfer events
   * with addresses as 0x-hex (20 bytes, without TRON's 0x41 prefix), as TronGrid decodes them.
   * `only_confirmed`: nothing until the transfer is solidified.
   */
  trc20Events(txid: string, q: URLSearchParams, toHex: (base58: string) => string): object {
    const rows = [...this.transfers.values()].filter(
      (t) => t.txid === txid && (q.get('only_confirmed') === 'true' ? t.confirmed : true),
    );
    return {
      data: rows.map((t) => ({
        block_number: t.confirmed ? this.tipHeight('tron') : null,
        block_timestamp: t.timestamp,
        contract_address: t.contract,
        event_index: 0,
        event_name: 'Transfer',
        result: { from: toHex(t.from), to: toHex(t.to), value: t.value.toString() },
        result_type: { from: 'address', to: 'address', value: 'uint256' },
        event: 'Transfer(address indexed from, address indexed to, uint256 value)',
        transaction_id: t.txid,
      })),
      success: true,
      meta: { at: this.now(), page_size: rows.length },
    };
  }

  /** The latest transactions of every chain, newest first, for the devnet page. */
  recent(
    limit = 20,
  ): { chain: SimChainId; txid: string; address: string; value: bigint; confirmed: boolean }[] {
    const rows: {
      chain: SimChainId;
      txid: string;
      address: string;
      value: bigint;
      confirmed: boolean;
      seq: number;
    }[] = [];
    for (const chain of ['btc', 'ltc'] as const) {
      for (const tx of this.utxo[chain].values()) {
        for (const o of tx.outputs)
          rows.push({ chain, txid: tx.txid, ...o, confirmed: !!tx.block, seq: tx.seq });
      }
    }
    for (const t of this.transfers.values()) {
      rows.push({
        chain: 'tron',
        txid: t.txid,
        address: t.to,
        value: t.value,
        confirmed: t.confirmed,
        seq: t.seq,
      });
    }
    return rows.sort((a, b) => b.seq - a.seq).slice(0, limit);
  }
}
