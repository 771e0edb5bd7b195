import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import { errorMessage, isHermesError } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import { fileManagedSentence } from "../../profiles/channel-profiles.ts";
import type { Storage } from "../../storage.ts";
import { accessSourcesOf } from "../access-deps.ts";
import type { AccessServices } from "../commands/access-answer.ts";
import { recordRefusal } from "../commands/admin-refusal.ts";
import { PROFILE_REFUSAL, PROFILES_DISABLED } from "../commands/profile-answer.ts";
import { changeProfile } from "../commands/profile-change.ts";
import type { SlackOutput } from "../slack-output.ts";
import {
  firstInputBlock,
  type ModalValues,
  PROFILE_BLOCKS,
  PROFILE_EDIT_ACTIONS,
  PROFILE_MODAL_CALLBACK,
  PROFILE_NEW_ACTION,
  profileModalView,
  readModalState,
  readProfileSubmission,
} from "./profile-modal-view.ts";

/** What the profile modal reads and writes: access, the profiles and the audit log, the Web API client. */
export type ProfileModalServices = AccessServices & {
  logger: Logger;
  storage: Pick<Storage, "audit" | "profiles">;
  slack: Pick<SlackOutput, "client">;
};

const ALREADY_HAS_ONE = "That channel already has a profile: use its Edit button in the App Home.";
const NOT_SAVED = "The profile could not be saved right now. Try again in a moment.";

/**
 * The App Home's profile editing, for admins: "Edit" and "New channel profile" open the profile modal
 * (`views.open`, with the click's trigger id); its submission is checked (problems go back on their
 * fields, `response_action: "errors"`), saved and audited as `profile.changed` (before and after), and
 * the admin's Home is published again. The clicker's level is checked at each step, and a member's
 * attempt is refused and audited; while `HERMES_PROFILES` is in charge the modal says so and saving is
 * refused with the file's sentence.
 */
export function registerProfileModal(
  app: App,
  s: ProfileModalServices,
  refreshHome: (userId: string, teamId: string | undefined) => Promise<void>,
): void {
  for (const actionId of [PROFILE_EDIT_ACTIONS, PROFILE_NEW_ACTION]) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action }) => {
      await ack();
      const userId = body.user.id;
      const teamId = body.team?.id ?? undefined;
      try {
        const profiles = s.storage.profiles;
        if (!profiles || !(await isAdmin(s, userId))) {
          await recordRefusal(s, { userId, teamId, subcommand: "profile.edit", reason: PROFILE_REFUSAL });
          return;
        }
        const id = actionId === PROFILE_NEW_ACTION ? undefined : action.value;
        const profile = id ? await profiles.own(id, teamId) : undefined;
        await s.slack.client.views.open({
          trigger_id: body.trigger_id,
          view: profileModalView({
            state: { ...(id ? { id } : {}), ...(teamId ? { team: teamId } : {}) },
            profile,
            tools: s.runtime.registry.names(),
            fileSentence: profiles.file ? fileManagedSentence(profiles.file) : undefined,
          }),
        });
      } catch (err) {
        s.logger.error({ err: errorMessage(err), userId }, "could not open the profile modal");
      }
    });
  }

  app.view(PROFILE_MODAL_CALLBACK, async ({ ack, body, view }) => {
    const state = readModalState(view.private_metadata);
    const userId = body.user.id;
    const teamId = state.team ?? body.team?.id ?? undefined;
    const refuse = (sentence: string, block = firstInputBlock(state)) =>
      ack({ response_action: "errors", errors: { [block]: sentence } });
    try {
      const profiles = s.storage.profiles;
      if (!profiles) return await refuse(PROFILES_DISABLED);
      if (!(await isAdmin(s, userId))) {
        await recordRefusal(s, { userId, teamId, subcommand: "profile.edit", reason: PROFILE_REFUSAL });
        return await refuse(PROFILE_REFUSAL);
      }
      if (profiles.file) return await refuse(fileManagedSentence(profiles.file));
      const read = readProfileSubmission(state, view.state.values as ModalValues, {
        tools: new Set(s.runtime.registry.names()),
        modelConfigured: s.config.model !== undefined,
      });
      if (!read.ok) return await ack({ response_action: "errors", errors: read.errors });
      const id = state.id ?? read.channelId;
      if (!id) return await refuse("Choose the channel this profile is for.");
      if (state.id === undefined && (await profiles.own(id, teamId)))
        return await refuse(ALREADY_HAS_ONE, PROFILE_BLOCKS.channel);
      await changeProfile(
        { profiles, logger: s.logger },
        {
          id,
          userId,
          teamId,
          channelId: id.startsWith("C") || id.startsWith("G") ? id : undefined,
          next: () => read.profile,
        },
      );
      await ack();
    } catch (err) {
      s.logger.error({ err: errorMessage(err), userId }, "could not save a channel profile from the modal");
      return await refuse(isHermesError(err) ? err.message : NOT_SAVED).catch(() => undefined);
    }
    await refreshHome(userId, teamId);
  });
}

async function isAdmin(s: ProfileModalServices, userId: string): Promise<boolean> {
  return (await resolveAccess(accessSourcesOf(s), userId)).level === "admin";
}
