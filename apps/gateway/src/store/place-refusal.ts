/**
 * Why a login that targets a place in its user name cannot be served (docs/gateway.md, "Targeting
 * in the user name"): the place is outside its package, or no exit of this node is there (an
 * unknown place, which would otherwise look like an offline proxy). The text goes into the HTTP
 * proxy's `X-Proxy-Error` header, so it holds only header-safe characters.
 */
import { exitMatches } from '@pm/contracts';
import { type ExitAgent, narrowGeo, type PackageGeo, type UserTargeting } from './package-exits.ts';

/** A user-typed place name made safe for a header line: letters, digits, spaces and . ' only, 40 at most. */
function safe(name: string): string {
  return name
    .replace(/[^A-Za-z0-9 .']/g, '')
    .trim()
    .slice(0, 40);
}

/** "country US, state NY, city New York": the parts given, in that order. */
function describe(place: {
  country?: string | undefined;
  state?: string | undefined;
  city?: string | undefined;
}) {
  const parts = (['country', 'state', 'city'] as const).flatMap((k) => {
    const v = place[k] ? safe(place[k]) : '';
    return v ? [`${k} ${v}`] : [];
  });
  return parts.join(', ') || 'anywhere';
}

/**
 * The refusal of a targeted login, or undefined when it can be served (or when the package itself
 * has no exit here at all: that is the package's own outage, refused as offline). `known` is every
 * exit agent of the node, a privately leased one too (its place is known even when taken).
 */
export function placeRefusal(
  pkg: PackageGeo,
  t: UserTargeting,
  known: readonly ExitAgent[],
): string | undefined {
  const geo = narrowGeo(pkg, t);
  if (!geo) return `the user name targets ${describe(t)}, outside the package (${describe(pkg)})`;
  if (!t.state && !t.city) return undefined;
  if (known.some((a) => exitMatches(a, geo)) || !known.some((a) => exitMatches(a, pkg))) return undefined;
  return `unknown place in the user name: no exit in ${describe({ state: t.state, city: t.city })}`;
}
