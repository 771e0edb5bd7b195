import type { RunRecordPort } from "./agent/record/record-port.ts";
import type { ApprovalStore } from "./policy/approval-store.ts";
import type { ChannelProfiles } from "./profiles/channel-profiles.ts";
import type { AuditLog } from "./store/audit.ts";
import type { DatabaseHandle } from "./store/db.ts";
import type { EventDedupe } from "./store/event-dedupe.ts";
import type { FeedbackStore } from "./store/feedback-store.ts";
import type { RunQuery } from "./store/run-query.ts";
import type { RunStore } from "./store/run-store.ts";
import type { SessionStore } from "./store/session-store.ts";
import type { UserStore } from "./store/user-store.ts";

/**
 * Hermes's state, opened once at start-up (`boot/build-storage.ts`): everything durable lives in
 * Postgres (approvals, runs, audit, dedupe, users); thread history in the session store.
 */
export interface Storage {
  db: DatabaseHandle;
  audit: AuditLog;
  approvals: ApprovalStore;
  runs: RunStore;
  runQuery: RunQuery;
  /** Where runs are recorded as they go (the recorder's port). */
  runRecords: RunRecordPort;
  events: EventDedupe;
  users: UserStore;
  sessions: SessionStore;
  /** 👍/👎 on answers, one per run and user. */
  feedback: FeedbackStore;
  /** Channel profiles (HERMES_PROFILES or `channel_profiles`); absent: every channel runs the same. */
  profiles?: ChannelProfiles;
}
