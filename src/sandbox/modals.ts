import { SlackApiError } from "./api-error.ts";
import type { SandboxView } from "./workspace-types.ts";

/** How long a `trigger_id` may be exchanged for a modal (Slack: 3 seconds). */
export const TRIGGER_TTL_MS = 3000;

/** An open modal: the view as `views.open` answered it, and whose screen it is on. */
export interface SandboxModal extends SandboxView {
  user: string;
}

/**
 * Modals of one workspace: the `trigger_id`s clicks and commands hand out (each exchanged once, within
 * `TRIGGER_TTL_MS`, by `views.open`) and the modals open on people's screens. Not kept across a restart
 * (a reload closes modals in Slack too).
 */
export class SandboxModals {
  private readonly triggers = new Map<string, { user: string; at: number; used: boolean }>();
  private readonly open = new Map<string, SandboxModal>();

  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  /** A trigger id handed out with an interaction of `user`. */
  issueTrigger(id: string, user: string): void {
    this.triggers.set(id, { user, at: this.now(), used: false });
  }

  /** The user whose interaction `id` came with; Slack's errors for an unknown, used or expired one. */
  exchange(id: string): string {
    const trigger = this.triggers.get(id);
    if (!trigger) throw new SlackApiError("invalid_trigger_id");
    if (trigger.used) throw new SlackApiError("exchanged_trigger_id");
    if (this.now() - trigger.at > TRIGGER_TTL_MS) throw new SlackApiError("expired_trigger_id");
    trigger.used = true;
    return trigger.user;
  }

  show(modal: SandboxModal): SandboxModal {
    this.open.set(modal.id, structuredClone(modal));
    return structuredClone(modal);
  }

  get(viewId: string): SandboxModal | undefined {
    const found = this.open.get(viewId);
    return found ? structuredClone(found) : undefined;
  }

  /** The modals open on `user`'s screen, oldest first. */
  ofUser(user: string): SandboxModal[] {
    return [...this.open.values()].filter((m) => m.user === user).map((m) => structuredClone(m));
  }

  close(viewId: string): void {
    this.open.delete(viewId);
  }
}

const registry = new WeakMap<object, SandboxModals>();

/** The modals of `workspace` (made on first use). */
export function modalsOf(workspace: { now: () => number }): SandboxModals {
  let modals = registry.get(workspace);
  if (!modals) {
    modals = new SandboxModals(workspace.now);
    registry.set(workspace, modals);
  }
  return modals;
}
