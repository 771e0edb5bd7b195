import type { RunRecordPort } from "../agent/run-record-port.ts";
import type { ApprovalStore } from "../policy/approval-store.ts";
import type { AuditLog } from "./audit.ts";
import type { DatabaseHandle } from "./db.ts";
import type { EventDedupe } from "./event-dedupe.ts";
import type { FeedbackStore } from "./feedback-store.ts";
import type { RunQuery } from "./run-query.ts";
import type { RunStore } from "./run-store.ts";
import type { SessionStore } from "./session-store.ts";
import type { UserStore } from "./user-store.ts";

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
}
