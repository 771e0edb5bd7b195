import type { FeedbackSelection } from "./workspace-state.ts";

/**
 * Which side of each `feedback_buttons` element each person has selected, as a Slack client keeps
 * it: a click selects its side (the other one unselects), a click on the selected side unselects it.
 * Only a click that selects is sent to the app (Slack sends no "unselected" event); this is what the
 * buttons show.
 */
export class FeedbackChoices {
  /** By message and person, then by `action_id`: the selected side's value. */
  private readonly chosen = new Map<string, Map<string, string>>();

  /** A click on the side whose value is `value`; returns the value now selected, or null. */
  click(at: { channel: string; ts: string; user: string; actionId: string }, value: string): string | null {
    const k = key(at.channel, at.ts, at.user);
    const mine = this.chosen.get(k) ?? new Map<string, string>();
    const selected = mine.get(at.actionId) === value ? null : value;
    if (selected === null) mine.delete(at.actionId);
    else mine.set(at.actionId, selected);
    if (mine.size > 0) this.chosen.set(k, mine);
    else this.chosen.delete(k);
    return selected;
  }

  /** Every selection, for a workspace's kept state. */
  entries(): FeedbackSelection[] {
    return [...this.chosen].map(([k, mine]) => {
      const [channel = "", ts = "", user = ""] = k.split(" ");
      return { channel, ts, user, selected: Object.fromEntries(mine) };
    });
  }

  /** Takes back kept selections (replacing one person's on a message). */
  restore(selections: readonly FeedbackSelection[]): void {
    for (const s of selections) {
      const mine = new Map(Object.entries(s.selected));
      if (mine.size > 0) this.chosen.set(key(s.channel, s.ts, s.user), mine);
      else this.chosen.delete(key(s.channel, s.ts, s.user));
    }
  }

  /** The values `user` has selected on one message, by `action_id`; undefined when none. */
  of(channel: string, ts: string, user: string): Record<string, string> | undefined {
    const mine = this.chosen.get(key(channel, ts, user));
    return mine ? Object.fromEntries(mine) : undefined;
  }
}

// Ids and ts hold no spaces.
const key = (channel: string, ts: string, user: string) => `${channel} ${ts} ${user}`;
