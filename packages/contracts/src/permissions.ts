/** Lets an account top up its balance (granted by staff after review). */
export const PERMISSION_DEPOSIT = 'DEPOSIT';
/** Access-token permissions that make a caller staff (Auth0 RBAC style). */
export const PERMISSION_READ_USERS = 'read:users';
export const PERMISSION_UPDATE_ACCOUNTS = 'update:accounts';
export const STAFF_PERMISSIONS = [PERMISSION_READ_USERS, PERMISSION_UPDATE_ACCOUNTS] as const;

/** True when a token's permissions include every staff permission. */
export const isStaff = (permissions: readonly string[]): boolean =>
  STAFF_PERMISSIONS.every((p) => permissions.includes(p));
