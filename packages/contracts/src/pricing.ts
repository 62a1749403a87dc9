import { z } from 'zod';
import { ZConn, ZCountryCode } from './agents.ts';
import { ZCents } from './common.ts';

/** Most rules a price list may hold. */
export const MAX_PRICING_RULES = 100;
/** Bounds of a rule's prices in cents: at least 1 cent, at most $1,000.00 for a 24-hour lease. */
export const MIN_RULE_PRICE_C = 1;
export const MAX_RULE_PRICE_C = 100_000;
/** Longest staff label of a rule. */
export const MAX_RULE_NOTE_LENGTH = 100;

const zRulePrice = ZCents.refine((c) => c >= MIN_RULE_PRICE_C && c <= MAX_RULE_PRICE_C, {
  message: `must be between ${MIN_RULE_PRICE_C} and ${MAX_RULE_PRICE_C} cents`,
});
const zStars = z.number().int().min(1).max(10);

/**
 * One pricing rule: which agents it matches (a null or absent condition matches any) and the
 * private and shared prices it gives them. `fresh` true matches New agents (not sold in the last
 * 30 days), false the others.
 */
export const ZPricingRule = z
  .object({
    cc: ZCountryCode.nullable().default(null),
    conn: ZConn.nullable().default(null),
    minStars: zStars.default(1),
    maxStars: zStars.default(10),
    fresh: z.boolean().nullable().default(null),
    priceExcC: zRulePrice,
    priceShrC: zRulePrice,
    note: z.string().max(MAX_RULE_NOTE_LENGTH).default(''),
  })
  .strict();
export type TPricingRule = z.infer<typeof ZPricingRule>;
/** A rule as a client sends it (conditions may be left out). */
export type TPricingRuleInput = z.input<typeof ZPricingRule>;

/** True when a rule matches every agent (no condition at all). */
export function isCatchAllRule(
  rule: Pick<TPricingRule, 'cc' | 'conn' | 'minStars' | 'maxStars' | 'fresh'>,
): boolean {
  return (
    rule.cc === null &&
    rule.conn === null &&
    rule.fresh === null &&
    rule.minStars === 1 &&
    rule.maxStars === 10
  );
}

/**
 * `PUT /pricing/rules`: the whole ordered list, replacing the current one. The last rule must
 * match everything (so every agent has a price) and no earlier one may (the rules after it could
 * never match); within a rule minStars <= maxStars and the shared price is not above the private one.
 */
export const ZPricingRulesBody = z
  .object({ rules: z.array(ZPricingRule).min(1).max(MAX_PRICING_RULES) })
  .strict()
  .superRefine(({ rules }, ctx) => {
    rules.forEach((rule, i) => {
      if (rule.minStars > rule.maxStars) {
        ctx.addIssue({
          code: 'custom',
          path: ['rules', i, 'maxStars'],
          message: 'must not be below minStars',
        });
      }
      if (rule.priceShrC > rule.priceExcC) {
        ctx.addIssue({
          code: 'custom',
          path: ['rules', i, 'priceShrC'],
          message: 'must not exceed priceExcC',
        });
      }
      const isLast = i === rules.length - 1;
      if (isCatchAllRule(rule) !== isLast) {
        ctx.addIssue({
          code: 'custom',
          path: ['rules', i],
          message: isLast
            ? 'the last rule must match every agent (no cc, conn, fresh; stars 1-10)'
            : 'only the last rule may match every agent',
        });
      }
    });
  });
export type TPricingRulesBody = z.input<typeof ZPricingRulesBody>;

/** `GET|PUT /pricing/rules` answer: the rules in order (position 1 first), when and by whom they were saved. */
export const ZPricingRules = z.object({
  rules: z.array(ZPricingRule.extend({ position: z.number().int().min(1) })),
  updatedAt: z.string().nullable(),
  updatedBy: z.string().nullable(),
});
export type TPricingRules = z.infer<typeof ZPricingRules>;
