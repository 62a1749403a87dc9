CREATE TABLE "sale_requests" (
	"user_id" text NOT NULL,
	"idem_key" text NOT NULL,
	"kind" text NOT NULL,
	"fingerprint" text NOT NULL,
	"lease_id" text,
	"price_c" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sale_requests_user_id_idem_key_pk" PRIMARY KEY("user_id","idem_key")
);
--> statement-breakpoint
ALTER TABLE "sale_requests" ADD CONSTRAINT "sale_requests_lease_id_leases_id_fk" FOREIGN KEY ("lease_id") REFERENCES "public"."leases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sale_requests_lease_idx" ON "sale_requests" USING btree ("lease_id");