CREATE TABLE IF NOT EXISTS "slack_installations" (
	"install_key" text PRIMARY KEY NOT NULL,
	"enterprise_id" text,
	"team_id" text,
	"is_enterprise_install" boolean DEFAULT false NOT NULL,
	"app_id" text,
	"bot_user_id" text,
	"bot_id" text,
	"team_name" text,
	"enterprise_name" text,
	"installer_user_id" text,
	"bot_scopes" text[],
	"secrets" text NOT NULL,
	"key_id" text NOT NULL,
	"installed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "slack_installations_scope_check" CHECK ((is_enterprise_install AND enterprise_id IS NOT NULL AND team_id IS NULL) OR (NOT is_enterprise_install AND team_id IS NOT NULL))
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "slack_installations_enterprise_idx" ON "slack_installations" USING btree ("enterprise_id");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "slack_installation_teams" (
	"team_id" text PRIMARY KEY NOT NULL,
	"enterprise_id" text NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL
);
