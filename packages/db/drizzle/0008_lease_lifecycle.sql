CREATE TABLE "lease_traffic_hourly" (
	"lease_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"reqs" bigint DEFAULT 0 NOT NULL,
	"fails" bigint DEFAULT 0 NOT NULL,
	"in_bytes" bigint DEFAULT 0 NOT NULL,
	"out_bytes" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "lease_traffic_hourly_lease_id_hour_pk" PRIMARY KEY("lease_id","hour")
);
--> statement-breakpoint
ALTER TABLE "leases" ADD COLUMN "end_reason" text;--> statement-breakpoint
ALTER TABLE "leases" ADD COLUMN "renewals" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "leases" ADD COLUMN "last_payment_c" bigint;--> statement-breakpoint
ALTER TABLE "lease_traffic_hourly" ADD CONSTRAINT "lease_traffic_hourly_lease_id_leases_id_fk" FOREIGN KEY ("lease_id") REFERENCES "public"."leases"("id") ON DELETE cascade ON UPDATE no action;