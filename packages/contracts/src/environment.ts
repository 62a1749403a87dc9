import { z } from 'zod';

/**
 * One deployment the web app can talk to. The app fetches `/environments.json` from its own origin
 * and picks the entry whose `origins` contain `window.location.origin`; none is a configuration error.
 */
export const ZEnvironment = z.object({
  name: z.string(),
  origins: z.array(z.string()),
  /** Market API base URL (no trailing slash). */
  apiUrl: z.string(),
  /** Ports service base URL (its own base address, rules §7). */
  portsApiUrl: z.string(),
  /** OpenID issuer (sign-in host). */
  issuer: z.string(),
  clientId: z.string(),
  /** Resource indicator / audience of the market API's access tokens. */
  audience: z.string(),
  /** The product's own site (where Logout goes). */
  siteUrl: z.string(),
  support: z.object({ email: z.string(), messenger: z.string(), messengerUrl: z.string() }),
  /** Current Terms version; the Terms modal shows while the accepted one is older. */
  termsVersion: z.number().int(),
  /**
   * The public API's password-grant client (rules §7) that the API page's token request names: a
   * public client, its id published and no secret (customers prove themselves with their password
   * or an API key). Absent: the page shows a placeholder.
   */
  publicApiClient: z.object({ clientId: z.string() }).optional(),
  /**
   * The devnet's webhook inbox (`npm start` only): `origin` is the one private address webhooks
   * may reach here (register `<origin>/hooks/<name>`), `pageUrl` the page listing its deliveries.
   * Absent in production.
   */
  webhookInbox: z.object({ origin: z.string(), pageUrl: z.string() }).optional(),
});
export type TEnvironment = z.infer<typeof ZEnvironment>;

export const ZEnvironmentsFile = z.object({ environments: z.array(ZEnvironment) });
export type TEnvironmentsFile = z.infer<typeof ZEnvironmentsFile>;
