import type { FeatureErrorCode } from './error-codes.ts';

/** Generic error codes; feature-specific meaning travels in `details`, not in new codes. */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYMENT_REQUIRED',
  'RATE_LIMITED',
  'UNAVAILABLE',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** HTTP status for each code; the one table the API's error handler reads. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYMENT_REQUIRED: 402,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/**
 * Extra fields merged into an error answer's body: `errorCode` is a feature code the contract
 * declares (error-codes.ts), so a misspelt one fails the compiler; the rest (`field`, `price`,
 * `retryAfterSeconds`, ...) as the operation's error schema describes them.
 */
export type AppErrorDetails = { errorCode?: FeatureErrorCode } & Record<string, unknown>;

export interface AppErrorOptions {
  /** Internal description for the logs. */
  message?: string;
  /** Safe to show to the user; defaults to a generic text per code. */
  userMessage?: string;
  /** Extra fields merged into the response body (e.g. `{ errorCode: 'priceChanged' }`). */
  details?: AppErrorDetails;
  cause?: unknown;
}

const DEFAULT_USER_MESSAGE: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'Invalid request',
  UNAUTHENTICATED: 'Authentication required',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not found',
  CONFLICT: 'Conflict',
  PAYMENT_REQUIRED: 'Not enough funds',
  RATE_LIMITED: 'Too many requests',
  UNAVAILABLE: 'Service unavailable',
  INTERNAL: 'Something went wrong',
};

/** The one error class services throw; the HTTP layer maps `code` to a status. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly userMessage: string;
  readonly details: AppErrorDetails | undefined;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    super(options.message ?? options.userMessage ?? DEFAULT_USER_MESSAGE[code], { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.userMessage = options.userMessage ?? DEFAULT_USER_MESSAGE[code];
    this.details = options.details;
  }

  get status(): number {
    return HTTP_STATUS[this.code];
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
