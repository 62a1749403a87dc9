/**
 * The charge page opens in a new tab. Browsers allow a pop-up only during the click that asked for
 * it, and the charge's code arrives later, so the tab is opened blank on the click and sent to the
 * charge page when `POST /crypto/create` answers (or closed when it fails).
 */

export const OPENING_TAB_TEXT = 'Opening the payment page…';

/** Opens a blank tab now, inside the click; null when the browser blocked it. */
export function openPaymentTab(): Window | null {
  const tab = window.open('', '_blank');
  if (!tab) return null;
  try {
    tab.document.title = 'Payment';
    tab.document.body.textContent = OPENING_TAB_TEXT;
  } catch {
    // Nothing to show in it: the page arrives in a moment anyway.
  }
  return tab;
}

/** Sends the tab to `path` of this app; false when there is no tab any more (blocked or closed). */
export function sendPaymentTab(tab: Window | null, path: string): boolean {
  if (!tab || tab.closed) return false;
  tab.opener = null;
  tab.location.replace(new URL(path, window.location.origin).toString());
  return true;
}

/** Closes the blank tab after a failure. */
export function closePaymentTab(tab: Window | null): void {
  if (tab && !tab.closed) tab.close();
}
