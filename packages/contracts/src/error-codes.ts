/**
 * Feature error codes: the `errorCode` an error answer carries beside its generic `error`
 * (`errors.ts`: NOT_FOUND, CONFLICT, ...) to say which rule refused. Declared here by family, and
 * per operation of the endpoint contract (`errorCodes`, joined from these families): the OpenAPI
 * documents enumerate them, the server's refusals are typed against them, and the web switches on
 * the codes an operation declares. No imports, so every schema file can use them.
 */

/**
 * A debit of the balance refused (`ledger.charge`): 402 notEnoughFunds (short, or no account), 403
 * accountBlocked, 403 emailNotConfirmed (the sign-in host has not confirmed the address yet).
 */
export const DEBIT_ERROR_CODES = ['notEnoughFunds', 'accountBlocked', 'emailNotConfirmed'] as const;
/** A credit refused because the balance would pass MAX_CENTS (409 balanceLimit). */
export const CREDIT_ERROR_CODES = ['balanceLimit'] as const;
/** The `Idempotency-Key` answered a different request before (409 idempotencyKeyReused). */
export const IDEMPOTENCY_ERROR_CODES = ['idempotencyKeyReused'] as const;

/** `errorCode` of a refused purchase (409), rules §7; 402 means not enough funds. */
export const PURCHASE_ERROR_CODES = [
  'probeErrAgent',
  'priceChanged',
  'agentInfoChanged',
  'agentAlreadyLeased',
  'agentNotFound',
] as const;
export type PurchaseErrorCode = (typeof PURCHASE_ERROR_CODES)[number];
/** `errorCode` of a refused static lease (409); 402 is NOT_ENOUGH_FUNDS. */
export const STATIC_LEASE_ERROR_CODES = ['agentAlreadyLeased', 'agentNotFound', 'priceChanged'] as const;
/** `errorCode` of a refused renewal: 409 notRenewable, 402 notEnoughFunds. */
export const RENEW_ERROR_CODES = ['notRenewable', 'notEnoughFunds'] as const;
/** `errorCode` of a refused refund: 409 agentNotDead / notRefundable (ALIVE), 400 leaseNotEligible (INELIGIBLE). */
export const REFUND_ERROR_CODES = ['agentNotDead', 'notRefundable', 'leaseNotEligible'] as const;
export type RefundErrorCode = (typeof REFUND_ERROR_CODES)[number];
/** A change to a lease that has ended (409 leaseEnded): auto-renew, a no-auth port. */
export const LEASE_ENDED_ERROR_CODES = ['leaseEnded'] as const;
/** Staff's credit of a lease refused: 400 leaseNotEnded / nothingToCredit, 409 alreadyCredited. */
export const LEASE_CREDIT_ERROR_CODES = ['leaseNotEnded', 'alreadyCredited', 'nothingToCredit'] as const;

/** A new API key refused: 409 apiKeyLimit (the most a customer may hold). */
export const API_KEY_ERROR_CODES = ['apiKeyLimit'] as const;
/** A speed test: 404 agentNotFound (not testable) or notFound (none yet), 409 rejected (asked again too soon). */
export const SPEED_CHECK_ERROR_CODES = ['agentNotFound', 'notFound', 'rejected'] as const;
/**
 * A score check's purchase: 404 agentNotFound, 409 tokenInvalid (expired or unknown quote) /
 * tokenUsed / priceChanged, 503 scoreCheckFailed (no provider answered; the fee is refunded).
 */
export const SCORE_CHECK_ERROR_CODES = [
  'agentNotFound',
  'tokenInvalid',
  'tokenUsed',
  'priceChanged',
  'scoreCheckFailed',
] as const;
export type ScoreCheckErrorCode = (typeof SCORE_CHECK_ERROR_CODES)[number];

/**
 * A crypto charge refused: 403 depositNotAllowed (no DEPOSIT permission) or emailNotConfirmed (the
 * address is not confirmed yet), 503 currencyUnavailable / rateUnavailable (no address source or no
 * exchange rate now), 429 tooManyOpenCharges.
 */
export const DEPOSIT_ERROR_CODES = [
  'depositNotAllowed',
  'emailNotConfirmed',
  'currencyUnavailable',
  'tooManyOpenCharges',
  'rateUnavailable',
] as const;
/** A held credit already released or returned (409 heldCreditDecided). */
export const HELD_CREDIT_ERROR_CODES = ['heldCreditDecided'] as const;

/** A port package's purchase: 409 priceChanged (with the current `price`) or noExits (no node has matching exits). */
export const PORT_PURCHASE_ERROR_CODES = ['priceChanged', 'noExits'] as const;
/** A reactivation of a package that is not suspended or past its window (409 notSuspended). */
export const PORT_REACTIVATE_ERROR_CODES = ['notSuspended'] as const;
/** A package's refund outside the refund rule (409 notRefundable). */
export const PORT_REFUND_ERROR_CODES = ['notRefundable'] as const;
/** The rotation link of a package that is not active (409 notActive). */
export const PORT_ROTATE_ERROR_CODES = ['notActive'] as const;

/** Every feature error code the market and Ports APIs answer (once each: families share some). */
export const FEATURE_ERROR_CODES = [
  ...new Set([
    ...DEBIT_ERROR_CODES,
    ...CREDIT_ERROR_CODES,
    ...IDEMPOTENCY_ERROR_CODES,
    ...PURCHASE_ERROR_CODES,
    ...STATIC_LEASE_ERROR_CODES,
    ...RENEW_ERROR_CODES,
    ...REFUND_ERROR_CODES,
    ...LEASE_ENDED_ERROR_CODES,
    ...LEASE_CREDIT_ERROR_CODES,
    ...API_KEY_ERROR_CODES,
    ...SPEED_CHECK_ERROR_CODES,
    ...SCORE_CHECK_ERROR_CODES,
    ...DEPOSIT_ERROR_CODES,
    ...HELD_CREDIT_ERROR_CODES,
    ...PORT_PURCHASE_ERROR_CODES,
    ...PORT_REACTIVATE_ERROR_CODES,
    ...PORT_REFUND_ERROR_CODES,
    ...PORT_ROTATE_ERROR_CODES,
  ]),
];
export type FeatureErrorCode = (typeof FEATURE_ERROR_CODES)[number];
