CREATE TABLE "package_traffic_hourly" (
	"package_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"reqs" bigint DEFAULT 0 NOT NULL,
	"fails" bigint DEFAULT 0 NOT NULL,
	"in_bytes" bigint DEFAULT 0 NOT NULL,
	"out_bytes" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "package_traffic_hourly_package_id_hour_pk" PRIMARY KEY("package_id","hour")
);
--> statement-breakpoint
ALTER TABLE "package_traffic_hourly" ADD CONSTRAINT "package_traffic_hourly_package_id_port_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."port_packages"("id") ON DELETE cascade ON UPDATE no action;