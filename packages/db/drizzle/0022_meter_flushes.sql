CREATE TABLE "meter_flushes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"flushed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "meter_flushes_flushed_at_idx" ON "meter_flushes" USING btree ("flushed_at");