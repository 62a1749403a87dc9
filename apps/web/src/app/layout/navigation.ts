/** Desktop top navigation tabs (rules §2). */
export const DESKTOP_TABS = [
  { label: 'Shop', to: '/' },
  { label: 'Static Proxies', to: '/static' },
  { label: 'My Proxies', to: '/my' },
  { label: 'Ports', to: '/ports' },
  { label: 'Payments', to: '/payments' },
  { label: 'Downloads', to: '/download' },
  { label: 'API', to: '/api' },
  { label: 'FAQ', to: '/faq' },
] as const;

/** Which tab a path belongs to (`false`: none, e.g. the Referral page). */
export function activeTabFor(pathname: string): string | false {
  if (pathname === '/' || pathname === '/shop' || pathname.startsWith('/shop/')) return '/';
  const tab = DESKTOP_TABS.find(
    (t) => t.to !== '/' && (pathname === t.to || pathname.startsWith(`${t.to}/`)),
  );
  return tab ? tab.to : false;
}
