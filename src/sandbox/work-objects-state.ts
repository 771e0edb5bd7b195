/**
 * The emulator's Work Object state beside a workspace: the `trigger_id`s `entity_details_requested`
 * handed out (each opens one detail panel, for its user and entity), and the panel each user was last
 * shown by `entity.presentDetails` (what the sandbox page opens).
 */

/** Slack's trigger ids last 3 seconds; the emulator allows longer so a busy test machine is not flaky. */
export const ENTITY_TRIGGER_TTL_MS = 30_000;

export interface EntityTrigger {
  user: string;
  entityUrl: string;
  externalRef?: { id: string; type?: string };
  issuedAt: number;
  /** Where the Work Object was opened from (a message), carried to the panel's buttons by the app. */
  channel?: string;
  messageTs?: string;
}

/** What `entity.presentDetails` answered for a trigger: the entity, or the error the panel shows. */
export interface PresentedDetails {
  user: string;
  triggerId: string;
  trigger: EntityTrigger;
  metadata?: Record<string, unknown>;
  error?: Record<string, unknown>;
  userAuthRequired?: boolean;
  at: number;
}

type PresentedListener = (presented: PresentedDetails) => void;

export class WorkObjectsState {
  private readonly triggers = new Map<string, EntityTrigger>();
  private readonly presented = new Map<string, PresentedDetails>();
  private readonly listeners = new Set<PresentedListener>();

  issueTrigger(id: string, trigger: EntityTrigger): void {
    this.triggers.set(id, trigger);
  }

  /** The trigger, if it was handed out and is fresh at `now`; it stays usable until it expires. */
  trigger(id: string, now: number): EntityTrigger | undefined {
    const t = this.triggers.get(id);
    if (!t) return undefined;
    if (now - t.issuedAt > ENTITY_TRIGGER_TTL_MS) {
      this.triggers.delete(id);
      return undefined;
    }
    return t;
  }

  present(p: PresentedDetails): void {
    this.presented.set(p.user, p);
    for (const l of this.listeners) l(structuredClone(p));
  }

  /** The detail panel `user` was last shown. */
  presentedTo(user: string): PresentedDetails | undefined {
    const p = this.presented.get(user);
    return p ? structuredClone(p) : undefined;
  }

  onPresented(listener: PresentedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const states = new WeakMap<object, WorkObjectsState>();

/** The Work Object state of `workspace` (made on first use). */
export function workObjectsOf(workspace: object): WorkObjectsState {
  let s = states.get(workspace);
  if (!s) {
    s = new WorkObjectsState();
    states.set(workspace, s);
  }
  return s;
}
