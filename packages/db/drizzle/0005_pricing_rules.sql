CREATE TABLE "pricing_rules" (
	"position" integer PRIMARY KEY NOT NULL,
	"cc" text,
	"conn" text,
	"min_stars" integer DEFAULT 1 NOT NULL,
	"max_stars" integer DEFAULT 10 NOT NULL,
	"fresh" boolean,
	"price_exc_c" bigint NOT NULL,
	"price_shr_c" bigint NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text,
	CONSTRAINT "pricing_rules_position_pos" CHECK ("pricing_rules"."position" >= 1),
	CONSTRAINT "pricing_rules_stars" CHECK (1 <= "pricing_rules"."min_stars" AND "pricing_rules"."min_stars" <= "pricing_rules"."max_stars" AND "pricing_rules"."max_stars" <= 10),
	CONSTRAINT "pricing_rules_prices" CHECK ("pricing_rules"."price_exc_c" BETWEEN 0 AND 100000000000 AND "pricing_rules"."price_shr_c" BETWEEN 0 AND 100000000000)
);
--> statement-breakpoint
ALTER TABLE "agents" DROP CONSTRAINT "agents_prices_nonneg";--> statement-breakpoint
ALTER TABLE "agents" DROP CONSTRAINT "agents_prices_max";--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "last_sold_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agents" DROP COLUMN "price_exc_c";--> statement-breakpoint
ALTER TABLE "agents" DROP COLUMN "price_shr_c";--> statement-breakpoint
-- The default price list (apps/server/README.md, "Prices"): the first matching rule wins, the last matches everything.
INSERT INTO "pricing_rules" ("position", "cc", "conn", "min_stars", "max_stars", "fresh", "price_exc_c", "price_shr_c", "note") VALUES
	(1, NULL, 'cell', 1, 3, NULL, 500, 200, 'Cell, low clean score'),
	(2, NULL, 'cell', 4, 10, true, 900, 350, 'Cell, new'),
	(3, NULL, 'cell', 4, 10, NULL, 800, 300, 'Cell'),
	(4, NULL, NULL, 1, 3, NULL, 300, 120, 'Low clean score'),
	(5, NULL, NULL, 4, 10, true, 600, 250, 'New'),
	(6, NULL, NULL, 1, 10, NULL, 500, 200, 'Default');
