CREATE TABLE IF NOT EXISTS "channel_profiles" (
	"channel_id" text PRIMARY KEY NOT NULL,
	"instructions" text,
	"tool_allow" text[],
	"level" text,
	"updated_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "channel_profiles_level_check" CHECK (level IS NULL OR level IN ('viewer', 'user'))
);
