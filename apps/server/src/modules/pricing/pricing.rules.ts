/** Pure pricing: which rule of the ordered list prices an agent. */
import type { TConn, TPricingRule } from '@pm/contracts';
import type { Cents } from '@pm/money';

/** A stored rule: its conditions, prices and place in the list (1 first). */
export interface PriceRule extends TPricingRule {
  position: number;
}

/** The facts of an agent a rule can match on. */
export interface PricedAgent {
  cc: string;
  conn: TConn;
  /** Clean score 1-10. */
  stars: number;
  /** Not sold in the last 30 days (the shop's New). */
  isNew: boolean;
}

/** An agent's prices now. */
export interface AgentPrices {
  priceExcC: Cents;
  priceShrC: Cents;
}

/** True when every condition of `rule` holds for `agent` (a null condition holds for any). */
export function matchesRule(rule: PriceRule, agent: PricedAgent): boolean {
  return (
    (rule.cc === null || rule.cc === agent.cc) &&
    (rule.conn === null || rule.conn === agent.conn) &&
    agent.stars >= rule.minStars &&
    agent.stars <= rule.maxStars &&
    (rule.fresh === null || rule.fresh === agent.isNew)
  );
}

/** The prices of the first rule (by position) matching `agent`; undefined when none does. */
export function priceFor(rules: readonly PriceRule[], agent: PricedAgent): AgentPrices | undefined {
  for (const rule of rules) {
    if (matchesRule(rule, agent)) return { priceExcC: rule.priceExcC, priceShrC: rule.priceShrC };
  }
  return undefined;
}
