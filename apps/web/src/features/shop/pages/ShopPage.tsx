import { Navigate } from 'react-router';
import { useIsMobile } from '../../../app/context.tsx';
import { DesktopShop } from '../components/DesktopShop.tsx';
import { MobileShop } from '../components/MobileShop.tsx';

/** `/shop`: the table on desktop, cards on phones (rules §2). */
export function ShopPage() {
  return useIsMobile() ? <MobileShop /> : <DesktopShop />;
}

/** `/`: the shop on desktop; phones go to `/shop` (rules §2, Routes). */
export function HomePage() {
  return useIsMobile() ? <Navigate to="/shop" replace /> : <DesktopShop />;
}
