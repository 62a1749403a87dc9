CREATE SEQUENCE "public"."deposit_index_btc" INCREMENT BY 1 MINVALUE 0 MAXVALUE 9223372036854775807 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."deposit_index_ltc" INCREMENT BY 1 MINVALUE 0 MAXVALUE 9223372036854775807 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."deposit_index_trc20usdt" INCREMENT BY 1 MINVALUE 0 MAXVALUE 9223372036854775807 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE TABLE "crypto_charges" (
	"id" uuid PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"user_id" text NOT NULL,
	"currency" text NOT NULL,
	"address" text NOT NULL,
	"xpub_fp" text NOT NULL,
	"derivation_index" bigint NOT NULL,
	"amount_usd_c" bigint NOT NULL,
	"rate_c" bigint NOT NULL,
	"rate_source" text NOT NULL,
	"due_base" bigint NOT NULL,
	"bonus_pct" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'new' NOT NULL,
	"received_base" bigint DEFAULT 0 NOT NULL,
	"credited_c" bigint DEFAULT 0 NOT NULL,
	"bonus_c" bigint DEFAULT 0 NOT NULL,
	"late" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"watch_until" timestamp with time zone NOT NULL,
	"next_check_at" timestamp with time zone NOT NULL,
	"check_failures" integer DEFAULT 0 NOT NULL,
	"last_checked_at" timestamp with time zone,
	CONSTRAINT "crypto_charges_code_unique" UNIQUE("code"),
	CONSTRAINT "crypto_charges_amounts" CHECK ("crypto_charges"."amount_usd_c" > 0 AND "crypto_charges"."amount_usd_c" <= 100000000000 AND "crypto_charges"."rate_c" > 0 AND "crypto_charges"."due_base" > 0
        AND "crypto_charges"."credited_c" >= 0 AND "crypto_charges"."bonus_c" >= 0 AND "crypto_charges"."received_base" >= 0
        AND "crypto_charges"."bonus_pct" BETWEEN 0 AND 100)
);
--> statement-breakpoint
CREATE TABLE "crypto_payments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"charge_id" uuid NOT NULL,
	"currency" text NOT NULL,
	"txid" text NOT NULL,
	"out_key" text NOT NULL,
	"value_base" bigint NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"block_height" bigint,
	"block_hash" text,
	"block_time" timestamp with time zone,
	"credited_at" timestamp with time zone,
	"rate_c" bigint,
	"credited_c" bigint,
	"bonus_c" bigint,
	"late" boolean DEFAULT false NOT NULL,
	CONSTRAINT "crypto_payments_value_pos" CHECK ("crypto_payments"."value_base" > 0)
);
--> statement-breakpoint
CREATE TABLE "payment_watch_state" (
	"chain" text PRIMARY KEY NOT NULL,
	"last_ok_at" timestamp with time zone,
	"last_error_at" timestamp with time zone,
	"last_error" text,
	"failures" integer DEFAULT 0 NOT NULL,
	"backoff_until" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "accounts" ALTER COLUMN "refcode" SET DEFAULT upper(substr(md5(random()::text || clock_timestamp()::text), 1, 10));--> statement-breakpoint
-- Every account gets a referral code: duplicates keep the oldest holder's, the rest get fresh ones.
UPDATE "accounts" a SET "refcode" = NULL WHERE EXISTS (SELECT 1 FROM "accounts" b WHERE b."refcode" = a."refcode" AND (b."created_at", b."user_id") < (a."created_at", a."user_id"));--> statement-breakpoint
UPDATE "accounts" SET "refcode" = upper(substr(md5(random()::text || "user_id"), 1, 10)) WHERE "refcode" IS NULL;--> statement-breakpoint
ALTER TABLE "accounts" ALTER COLUMN "refcode" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "referred_by" text;--> statement-breakpoint
ALTER TABLE "crypto_charges" ADD CONSTRAINT "crypto_charges_user_id_accounts_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."accounts"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crypto_payments" ADD CONSTRAINT "crypto_payments_charge_id_crypto_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."crypto_charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "crypto_charges_address_uq" ON "crypto_charges" USING btree ("currency","address");--> statement-breakpoint
CREATE UNIQUE INDEX "crypto_charges_derivation_uq" ON "crypto_charges" USING btree ("currency","xpub_fp","derivation_index");--> statement-breakpoint
CREATE INDEX "crypto_charges_user_idx" ON "crypto_charges" USING btree ("user_id","currency","status");--> statement-breakpoint
CREATE INDEX "crypto_charges_watch_idx" ON "crypto_charges" USING btree ("watch_until","next_check_at");--> statement-breakpoint
CREATE UNIQUE INDEX "crypto_payments_output_uq" ON "crypto_payments" USING btree ("currency","txid","out_key");--> statement-breakpoint
CREATE INDEX "crypto_payments_charge_idx" ON "crypto_payments" USING btree ("charge_id");--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_refcode_uq" ON "accounts" USING btree ("refcode");--> statement-breakpoint
CREATE INDEX "accounts_referred_by_idx" ON "accounts" USING btree ("referred_by");