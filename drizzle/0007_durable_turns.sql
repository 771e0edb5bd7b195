ALTER TABLE "runs" ADD COLUMN "event_id" text;--> statement-breakpoint
ALTER TABLE "slack_events" ADD COLUMN "payload" jsonb;--> statement-breakpoint
CREATE INDEX "results_created_at_idx" ON "results" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "runs_event_id_key" ON "runs" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "runs_updated_at_idx" ON "runs" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "schedule_fires_claimed_at_idx" ON "schedule_fires" USING btree ("claimed_at");--> statement-breakpoint
CREATE INDEX "slack_events_status_idx" ON "slack_events" USING btree ("status");