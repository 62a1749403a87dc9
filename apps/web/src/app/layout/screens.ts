/** What the mobile top bar shows for each route (rules §2, "Menus and top bars"). */

export interface MobileScreen {
  title: string;
  /** Where the back arrow leads; null on main screens (they show the menu button instead). */
  backTo: string | null;
  /** Right-hand side: the Filter screen has a Reset link, every other screen the balance. */
  action: 'reset' | 'balance';
}

const MAIN: MobileScreen = { title: 'Proxy Default', backTo: null, action: 'balance' };

const DETAIL_SCREENS: Array<{ pattern: RegExp; screen: MobileScreen }> = [
  { pattern: /^\/shop\/[^/]+$/, screen: { title: 'Proxy Details', backTo: '/shop', action: 'balance' } },
  {
    pattern: /^\/my\/history-details\/[^/]+$/,
    screen: { title: 'History Details', backTo: '/my/history', action: 'balance' },
  },
  {
    pattern: /^\/my\/(?!history$)[^/]+$/,
    screen: { title: 'Proxy Details', backTo: '/my', action: 'balance' },
  },
  { pattern: /^\/add-funds$/, screen: { title: 'Add Funds', backTo: '/', action: 'balance' } },
  { pattern: /^\/filter$/, screen: { title: 'Filter', backTo: '/shop', action: 'reset' } },
  {
    pattern: /^\/confirm-purchase$/,
    screen: { title: 'Confirm Purchase', backTo: '/shop', action: 'balance' },
  },
  { pattern: /^\/change-password$/, screen: { title: 'Change Password', backTo: '/', action: 'balance' } },
];

/** The mobile top bar's content for a path. */
export function mobileScreenFor(pathname: string): MobileScreen {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return DETAIL_SCREENS.find((d) => d.pattern.test(path))?.screen ?? MAIN;
}
