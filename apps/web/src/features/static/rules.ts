/**
 * The static-proxy shop (rules §2, 4 "Static lease", 9): its filter and paging as `GET /static/list/`
 * takes them, and a refused `POST /static/lease` mapped to its state. Pure, so Node tests it.
 */
import {
  ENDPOINTS,
  errorCodeOf,
  type STATIC_CHIP_COUNTRIES,
  STATIC_PAGE_SIZES,
  type TConn,
  type TStaticListQuery,
  unhandledErrorCode,
} from '@pm/contracts';
import { FAILURE_TEXTS, type FailureText } from '../shop/purchase.ts';

export type StaticCountry = (typeof STATIC_CHIP_COUNTRIES)[number];

export interface StaticFilter {
  cc: StaticCountry;
  /** IP prefix, city and ISP parts as typed ('' for any). */
  ip: string;
  city: string;
  isp: string;
  conn: TConn | 'any';
}

export interface StaticPaging {
  page: number;
  rowsPerPage: number;
}

export const DEFAULT_STATIC_FILTER: StaticFilter = { cc: 'US', ip: '', city: '', isp: '', conn: 'any' };
export const DEFAULT_STATIC_PAGING: StaticPaging = { page: 0, rowsPerPage: STATIC_PAGE_SIZES[0] };

/** `GET /static/list/`'s query: only the filters set, the page as cursor (offset) and limit. */
export function toStaticListQuery(
  filter: StaticFilter,
  paging: StaticPaging,
): TStaticListQuery & { cc: string; cursor: number; limit: number } {
  const text = (v: string) => v.trim();
  return {
    cc: filter.cc,
    cursor: paging.page * paging.rowsPerPage,
    limit: paging.rowsPerPage,
    ...(text(filter.ip) ? { ip: text(filter.ip) } : {}),
    ...(text(filter.city) ? { city: text(filter.city) } : {}),
    ...(text(filter.isp) ? { isp: text(filter.isp) } : {}),
    ...(filter.conn !== 'any' ? { conn: filter.conn } : {}),
  };
}

/** A filter change starts again at page 0 (rules §4 "Lists"), keeping the rows per page. */
export const withFilter = (paging: StaticPaging): StaticPaging => ({ ...paging, page: 0 });

export type StaticLeaseFailure =
  | 'NOT_ENOUGH_FUNDS'
  | 'ALREADY_LEASED'
  | 'AGENT_NOT_FOUND'
  | 'EMAIL_NOT_CONFIRMED'
  | 'GENERIC_ERROR';

/** The static lease's states (rules §4): OFF, CONFIRM, LEASING, SUCCESS or a failure. */
export type StaticLeaseStep = 'OFF' | 'CONFIRM' | 'LEASING' | 'SUCCESS' | StaticLeaseFailure;

/**
 * A refused static lease: 402 funds, 409 agentAlreadyLeased or agentNotFound (codes `POST
 * /static/lease` declares); anything else generic.
 */
export function staticLeaseFailureOf(status: number | null, body: unknown): StaticLeaseFailure {
  if (status === 402) return 'NOT_ENOUGH_FUNDS';
  if (status !== 409 && status !== 403) return 'GENERIC_ERROR';
  const code = errorCodeOf(ENDPOINTS.leaseStaticAgent, body);
  switch (code) {
    case 'agentAlreadyLeased':
      return 'ALREADY_LEASED';
    case 'agentNotFound':
      return 'AGENT_NOT_FOUND';
    case 'notEnoughFunds':
      return 'NOT_ENOUGH_FUNDS';
    case 'emailNotConfirmed':
      return 'EMAIL_NOT_CONFIRMED';
    // A changed price has no dialog of its own here (rules §8): the list reloads with the new one.
    case 'priceChanged':
    case 'accountBlocked':
    case 'idempotencyKeyReused':
    case undefined:
      return 'GENERIC_ERROR';
    default:
      return unhandledErrorCode(code);
  }
}

/** ALREADY_LEASED reloads the static list (rules §4); so do a gone proxy and a changed price. */
export const reloadsStaticList = (failure: StaticLeaseFailure): boolean =>
  failure !== 'NOT_ENOUGH_FUNDS' && failure !== 'EMAIL_NOT_CONFIRMED';

/** The failure dialogs say what the shop's purchase dialogs say (rules §8). */
export const STATIC_FAILURE_TEXTS: Record<StaticLeaseFailure, FailureText> = {
  NOT_ENOUGH_FUNDS: FAILURE_TEXTS.NOT_ENOUGH_FUNDS,
  ALREADY_LEASED: FAILURE_TEXTS.ALREADY_LEASED,
  AGENT_NOT_FOUND: FAILURE_TEXTS.AGENT_NOT_FOUND,
  EMAIL_NOT_CONFIRMED: FAILURE_TEXTS.EMAIL_NOT_CONFIRMED,
  GENERIC_ERROR: FAILURE_TEXTS.GENERIC_ERROR,
};

/** The shop's empty message (rules §2). */
export const NOTHING_FOUND_TEXT =
  'Nothing found :( We are working hard on getting IPs you have requested, they will be available soon!';
