-- Channel profiles gain a model (and fallback), a daily token budget and streaming, and are kept per
-- tenant (src/core/tenant.ts) like every row a person can reach: rows written before get team_id '',
-- which a Hermes with one bot token adopts into its own workspace at start
-- (src/store/adopt-legacy-rows.ts). Written to run again on top of itself (IF NOT EXISTS, DROP … IF
-- EXISTS before each ADD): a test that rewinds the journal to an earlier migration applies it twice.
ALTER TABLE "channel_profiles" ADD COLUMN IF NOT EXISTS "team_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "channel_profiles" ADD COLUMN IF NOT EXISTS "model" text;--> statement-breakpoint
ALTER TABLE "channel_profiles" ADD COLUMN IF NOT EXISTS "fallback_model" text;--> statement-breakpoint
ALTER TABLE "channel_profiles" ADD COLUMN IF NOT EXISTS "tokens_per_day" bigint;--> statement-breakpoint
ALTER TABLE "channel_profiles" ADD COLUMN IF NOT EXISTS "streaming" boolean;--> statement-breakpoint
ALTER TABLE "channel_profiles" DROP CONSTRAINT IF EXISTS "channel_profiles_pkey";--> statement-breakpoint
ALTER TABLE "channel_profiles" DROP CONSTRAINT IF EXISTS "channel_profiles_team_id_channel_id_pk";--> statement-breakpoint
ALTER TABLE "channel_profiles" ADD CONSTRAINT "channel_profiles_team_id_channel_id_pk" PRIMARY KEY("team_id","channel_id");--> statement-breakpoint
ALTER TABLE "channel_profiles" DROP CONSTRAINT IF EXISTS "channel_profiles_tokens_per_day_check";--> statement-breakpoint
ALTER TABLE "channel_profiles" ADD CONSTRAINT "channel_profiles_tokens_per_day_check" CHECK (tokens_per_day IS NULL OR tokens_per_day >= 0);
