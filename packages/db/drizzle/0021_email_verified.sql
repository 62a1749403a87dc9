ALTER TABLE "accounts" ADD COLUMN "email_verified" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Accounts whose address the sign-in host (same database) already confirmed; the market API learns the rest from the token's email_verified claim.
UPDATE "accounts" SET "email_verified" = true FROM "users" WHERE "users"."id" = "accounts"."user_id" AND "users"."email_verified";
