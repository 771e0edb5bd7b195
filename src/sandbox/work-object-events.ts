import { randomBytes } from "node:crypto";
import {
  createEventsSender,
  type Delivery,
  type DeliveryOptions,
  type EventsSenderOptions,
  type SandboxSlack,
} from "./events-sender.ts";
import { interactivityBody } from "./interaction-payloads.ts";
import { linksOf } from "./methods/work-objects.ts";
import { deliverSigned } from "./signed-delivery.ts";
import { workObjectsOf } from "./work-objects-state.ts";
import { DEFAULT_BOT, DEFAULT_TEAM } from "./workspace.ts";

/** A Work Object as a message carries it (`metadata.entities[]`): what opening it needs. */
interface EntityRef {
  url: string;
  external_ref?: { id: string; type?: string };
  app_unfurl_url?: string;
}

/**
 * What Slack sends about Work Objects, signed like every delivery: `link_shared` when a person posts
 * links, `entity_details_requested` when they open a Work Object (with a fresh `trigger_id` that
 * `entity.presentDetails` accepts), and the `block_actions` of a button in the detail panel.
 */
export function createWorkObjectSender(options: EventsSenderOptions & { slack: SandboxSlack }) {
  const events = createEventsSender(options);
  const { workspace } = options.slack;
  const state = workObjectsOf(workspace);
  const nextTs = () => workspace.nextTs();

  function entitiesOf(channel: string, messageTs: string): EntityRef[] {
    const metadata = workspace.getMessage(channel, messageTs)?.metadata as
      | { entities?: EntityRef[] }
      | undefined;
    return Array.isArray(metadata?.entities) ? metadata.entities : [];
  }

  return {
    /** `user` posted `messageTs` in `channel`: its links (all, or `links`) are shared with the app. */
    linkShared(
      input: { user: string; channel: string; messageTs: string; links?: string[] },
      delivery: DeliveryOptions = {},
    ): Promise<Delivery> {
      const message = workspace.getMessage(input.channel, input.messageTs);
      const urls = input.links ?? linksOf(message?.text ?? "");
      return events.event(
        {
          type: "link_shared",
          channel: input.channel,
          is_bot_user_member:
            workspace.getChannel(input.channel)?.members.includes(workspace.bot.userId) ?? false,
          user: input.user,
          message_ts: input.messageTs,
          ...(message?.thread_ts ? { thread_ts: message.thread_ts } : {}),
          links: urls.map((url) => ({ domain: new URL(url).hostname, url })),
          unfurl_id: `${input.channel}:${input.messageTs}`,
          source: "conversations_history",
          event_ts: nextTs(),
        },
        delivery,
      );
    },

    /**
     * `user` opens the Work Object `index` (default the first) of message `messageTs`: the event with
     * a new `trigger_id`, which the emulator binds to that user and entity.
     */
    entityDetailsRequested(
      input: { user: string; channel: string; messageTs: string; index?: number },
      delivery: DeliveryOptions = {},
    ): Promise<Delivery & { triggerId: string }> {
      const entity = entitiesOf(input.channel, input.messageTs)[input.index ?? 0];
      if (!entity) throw new Error(`message ${input.channel}/${input.messageTs} carries no Work Object`);
      const triggerId = `${Date.now()}.${randomBytes(5).toString("hex")}.${randomBytes(16).toString("hex")}`;
      state.issueTrigger(triggerId, {
        user: input.user,
        entityUrl: entity.url,
        ...(entity.external_ref ? { externalRef: entity.external_ref } : {}),
        issuedAt: workspace.now(),
        channel: input.channel,
        messageTs: input.messageTs,
      });
      const message = workspace.getMessage(input.channel, input.messageTs);
      const link = entity.app_unfurl_url ?? entity.url;
      return events
        .event(
          {
            type: "entity_details_requested",
            user: input.user,
            trigger_id: triggerId,
            link: { url: link, domain: new URL(link).hostname },
            entity_url: entity.url,
            ...(entity.app_unfurl_url ? { app_unfurl_url: entity.app_unfurl_url } : {}),
            user_locale: "en-US",
            event_ts: nextTs(),
            ...(entity.external_ref ? { external_ref: entity.external_ref } : {}),
            channel: input.channel,
            message_ts: input.messageTs,
            ...(message?.thread_ts ? { thread_ts: message.thread_ts } : {}),
          },
          delivery,
        )
        .then((d) => ({ ...d, triggerId }));
    },

    /** `user` clicks button `actionId` of the detail panel they were shown last (`entity.presentDetails`). */
    async entityAction(
      input: { user: string; actionId: string },
      delivery: DeliveryOptions = {},
    ): Promise<Delivery> {
      const shown = state.presentedTo(input.user);
      const payloadOf = shown?.metadata?.entity_payload as
        | { actions?: { primary_actions?: ButtonSpec[]; overflow_actions?: ButtonSpec[] } }
        | undefined;
      const buttons = [
        ...(payloadOf?.actions?.primary_actions ?? []),
        ...(payloadOf?.actions?.overflow_actions ?? []),
      ];
      const button = buttons.find((b) => b.action_id === input.actionId);
      if (!shown || !button)
        throw new Error(`no detail panel button ${input.actionId} shown to ${input.user}`);
      const teamId = workspace.team.id ?? DEFAULT_TEAM.id;
      const payload = {
        type: "block_actions",
        user: {
          id: input.user,
          username: workspace.getUser(input.user)?.name ?? input.user,
          team_id: teamId,
        },
        api_app_id: workspace.bot.appId ?? DEFAULT_BOT.appId,
        token: options.verificationToken ?? "ZZZZZZWSxiZZZ2yIvs3peJ",
        container: {
          type: "entity_detail",
          entity_url: shown.trigger.entityUrl,
          ...(shown.trigger.externalRef ? { external_ref: shown.trigger.externalRef } : {}),
        },
        trigger_id: `${Date.now()}.${randomBytes(5).toString("hex")}.${randomBytes(16).toString("hex")}`,
        team: { id: teamId, domain: workspace.team.domain },
        enterprise: null,
        is_enterprise_install: false,
        state: { values: {} },
        actions: [
          {
            action_id: button.action_id,
            block_id: "",
            text: { type: "plain_text", text: button.text, emoji: true },
            ...(button.value !== undefined ? { value: button.value } : {}),
            ...(button.style ? { style: button.style } : {}),
            type: "button",
            action_ts: nextTs(),
          },
        ],
      };
      const body = interactivityBody(payload);
      const contentType = "application/x-www-form-urlencoded";
      const sent = await deliverSigned({
        url: options.url,
        signingSecret: options.signingSecret,
        body,
        contentType,
        options: delivery,
      });
      return { ...sent, payload };
    },
  };
}

interface ButtonSpec {
  text: string;
  action_id: string;
  value?: string;
  style?: string;
}

export type WorkObjectSender = ReturnType<typeof createWorkObjectSender>;
