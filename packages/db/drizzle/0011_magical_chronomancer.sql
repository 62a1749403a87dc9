CREATE TABLE "crypto_held_credits" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"payment_id" bigint NOT NULL,
	"charge_id" uuid NOT NULL,
	"user_id" text NOT NULL,
	"currency" text NOT NULL,
	"value_base" bigint NOT NULL,
	"amount_c" bigint NOT NULL,
	"rate_c" bigint NOT NULL,
	"reason" text NOT NULL,
	"state" text DEFAULT 'held' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	"note" text,
	CONSTRAINT "crypto_held_credits_amounts" CHECK ("crypto_held_credits"."value_base" > 0 AND "crypto_held_credits"."amount_c" >= 0 AND "crypto_held_credits"."amount_c" <= 100000000000 AND "crypto_held_credits"."rate_c" > 0)
);
--> statement-breakpoint
ALTER TABLE "crypto_charges" ADD COLUMN "cap_c" bigint;--> statement-breakpoint
ALTER TABLE "crypto_payments" ADD COLUMN "final_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "crypto_payments" ADD COLUMN "vanished_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "crypto_payments" ADD COLUMN "recheck_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payment_watch_state" ADD COLUMN "budget_day" text;--> statement-breakpoint
ALTER TABLE "payment_watch_state" ADD COLUMN "budget_used" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "crypto_held_credits" ADD CONSTRAINT "crypto_held_credits_payment_id_crypto_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."crypto_payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crypto_held_credits" ADD CONSTRAINT "crypto_held_credits_charge_id_crypto_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."crypto_charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crypto_held_credits" ADD CONSTRAINT "crypto_held_credits_user_id_accounts_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."accounts"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "crypto_held_credits_payment_uq" ON "crypto_held_credits" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "crypto_held_credits_state_idx" ON "crypto_held_credits" USING btree ("state","created_at");--> statement-breakpoint
CREATE INDEX "crypto_payments_recheck_idx" ON "crypto_payments" USING btree ("currency","recheck_at");