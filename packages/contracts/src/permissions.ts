/** Lets an account top up its balance (granted by staff after review). */
export const PERMISSION_DEPOSIT = 'DEPOSIT';
/** Access-token permissions that make a caller staff (Auth0 RBAC style). */
export const PERMISSION_READ_USERS = 'read:users';
export const PERMISSION_UPDATE_ACCOUNTS = 'update:accounts';
export const STAFF_PERMISSIONS = [PERMISSION_READ_USERS, PERMISSION_UPDATE_ACCOUNTS] as const;
/**
 * The stronger staff permission: needed on top of the staff permissions to set the password of,
 * or block, an account that itself holds a staff permission (apps/identity/README.md).
 */
export const PERMISSION_UPDATE_STAFF = 'update:staff';

/** True when an account's permissions include any staff permission (it is a staff account). */
export const holdsStaffPermission = (permissions: readonly string[]): boolean =>
  permissions.some(
    (p) => p === PERMISSION_UPDATE_STAFF || (STAFF_PERMISSIONS as readonly string[]).includes(p),
  );

/** True when a token's permissions include every staff permission. */
export const isStaff = (permissions: readonly string[]): boolean =>
  STAFF_PERMISSIONS.every((p) => permissions.includes(p));

/**
 * True for a staff permission name: one of the staff permissions above, or any Auth0-style
 * `verb:object` name (every staff permission has that shape, customers' ones such as DEPOSIT do
 * not), so a staff permission added later is covered too.
 */
export const isStaffPermissionName = (name: string): boolean =>
  name === PERMISSION_UPDATE_STAFF ||
  (STAFF_PERMISSIONS as readonly string[]).includes(name) ||
  name.includes(':');

/** Every permission name the product knows, customers' and staff's. */
export const ALL_PERMISSIONS = [PERMISSION_DEPOSIT, ...STAFF_PERMISSIONS, PERMISSION_UPDATE_STAFF] as const;
