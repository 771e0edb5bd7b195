import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { createWorkObjectSender, type WorkObjectSender } from "../../src/sandbox/work-object-events.ts";
import { workObjectsOf } from "../../src/sandbox/work-objects-state.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { TICKET_ACTIONS } from "../../src/slack/work-objects/ticket-actions.ts";
import { SIGNING_SECRET, startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

interface Entity {
  entity_type: string;
  url: string;
  external_ref: { id: string; type?: string };
  app_unfurl_url?: string;
  entity_payload: {
    attributes: { title: { text: string }; display_id?: string };
    fields: Record<string, { value?: string; user?: { user_id: string } }>;
    actions?: { primary_actions?: Array<{ action_id: string; text: string }> };
  };
}

const entitiesOf = (m: SandboxMessage | undefined) =>
  (m?.metadata as { entities?: Entity[] } | undefined)?.entities;

/**
 * Tickets as Work Objects end to end: the real Bolt receiver and workers, Postgres, the Slack emulator
 * and the scripted model. A ticket the model opens comes back on the answer as a Task entity; opening
 * it presents its details with buttons; a click runs `update_ticket` as the person who clicked, under
 * the same rules and audit as a request in a message; ticket links unfurl as Work Objects.
 */
describe("tickets as Work Objects through Slack", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let wo: WorkObjectSender;
  let answerMessage: SandboxMessage;
  let ticket: Entity;

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
    wo = createWorkObjectSender({
      url: `http://127.0.0.1:${t.hermes.port}/slack/events`,
      signingSecret: SIGNING_SECRET,
      slack: t.emulator,
    });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });

  const botReplies = (ts: string) =>
    (t.thread("C0OPS", ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);
  const auditOf = async (user: string) =>
    (await t.hermes.services.storage.audit.query({ limit: 100 })).rows.filter(
      (r) => r.tool === "update_ticket" && r.userId === user,
    );

  /** `user` opens the ticket's Work Object on the answer and waits for the panel Hermes presents. */
  async function openDetails(user: string) {
    const before = workObjectsOf(t.ws).presentedTo(user)?.triggerId;
    const d = await wo.entityDetailsRequested({ user, channel: "C0OPS", messageTs: answerMessage.ts });
    expect(d.status).toBe(200);
    const shown = await waitFor(
      () => {
        const p = workObjectsOf(t.ws).presentedTo(user);
        return p && p.triggerId !== before ? p : undefined;
      },
      30_000,
      "the detail panel",
    );
    return shown.metadata as unknown as Entity;
  }

  it("a ticket the model opens is a Work Object (Task entity) on the answer", async () => {
    model.enqueue(
      toolCalls([{ name: "create_ticket", args: { title: "VPN down on floor 3", priority: "high" } }]),
      answer("I opened the ticket for you."),
    );
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> VPN is down on 3F",
    });
    answerMessage = await waitFor(
      () => botReplies(d.message!.ts).find((m) => entitiesOf(m)?.length),
      30_000,
      "the answer with its Work Object",
    );
    expect(answerMessage.text).toContain("I opened the ticket");
    ticket = entitiesOf(answerMessage)![0]!;
    const id = ticket.external_ref.id;
    expect(ticket).toMatchObject({
      entity_type: "slack#/entities/task",
      url: `https://hermes.example.com/tickets/${id}`,
      external_ref: { id, type: "ticket" },
      entity_payload: {
        attributes: { title: { text: "VPN down on floor 3" }, display_id: `#${id}` },
        fields: { status: { value: "Open" }, priority: { value: "high" }, assignee: { value: "Unassigned" } },
      },
    });
    // The run's own metadata stays beside the entities ("View run").
    expect(answerMessage.metadata).toMatchObject({ event_type: "hermes_run" });
  });

  it("opening it presents the ticket's details with its buttons", async () => {
    const shown = await openDetails("U0WANGLEI");
    expect(shown.external_ref.id).toBe(ticket.external_ref.id);
    expect(shown.entity_payload.fields.created_by?.user?.user_id).toBe("U0USER1");
    expect(shown.entity_payload.actions?.primary_actions?.map((a) => a.text)).toEqual([
      "Assign to me",
      "Start work",
      "Close",
    ]);
  });

  it("a member who neither opened nor holds the ticket may not close it: refused in the thread, audited", async () => {
    await openDetails("U0WANGLEI");
    const click = await wo.entityAction({ user: "U0WANGLEI", actionId: TICKET_ACTIONS.close });
    expect(click.status).toBe(200);
    const refusal = await waitFor(
      () =>
        botReplies(answerMessage.thread_ts ?? answerMessage.ts).find((m) =>
          m.text.includes("may update ticket"),
        ),
      30_000,
      "the refusal",
    );
    expect(refusal.text).toContain(
      `Only the ticket's creator, its assignee or an admin may update ticket #${ticket.external_ref.id}`,
    );
    const rows = await waitFor(
      async () => {
        const r = await auditOf("U0WANGLEI");
        return r.some((x) => x.action === "tool.failed") ? r : undefined;
      },
      30_000,
      "the audited refusal",
    );
    expect(rows.find((r) => r.action === "tool.failed")).toMatchObject({
      channelId: "C0OPS",
      args: { id: Number(ticket.external_ref.id), status: "closed" },
    });
  });

  it("an admin closes it from the panel: done in the thread, audited as executed", async () => {
    const shown = await openDetails("U0ADMIN");
    expect(shown.entity_payload.actions?.primary_actions?.map((a) => a.action_id)).toContain(
      TICKET_ACTIONS.close,
    );
    await wo.entityAction({ user: "U0ADMIN", actionId: TICKET_ACTIONS.close });
    const rows = await waitFor(
      async () => {
        const r = await auditOf("U0ADMIN");
        return r.some((x) => x.action === "tool.executed") ? r : undefined;
      },
      30_000,
      "the executed update",
    );
    expect(rows.find((r) => r.action === "tool.executed")?.args).toEqual({
      id: Number(ticket.external_ref.id),
      status: "closed",
    });
    await waitFor(
      () =>
        botReplies(answerMessage.thread_ts ?? answerMessage.ts).some((m) =>
          m.text.includes("status open → closed"),
        ),
      30_000,
      "the result in the thread",
    );
    const reopened = await openDetails("U0ADMIN");
    expect(reopened.entity_payload.fields.status?.value).toBe("Closed");
    expect(reopened.entity_payload.actions?.primary_actions?.map((a) => a.text)).toEqual([
      "Assign to me",
      "Reopen",
    ]);
  });

  it("a link to the ticket unfurls as its Work Object; other links are left alone", async () => {
    const url = ticket.url;
    const posted = postAsUser(t.ws, {
      user: "U0USER1",
      channel: "C0OPS",
      text: `see <${url}> and <https://example.org/x>`,
    });
    const d = await wo.linkShared({ user: "U0USER1", channel: "C0OPS", messageTs: posted.ts });
    expect(d.status).toBe(200);
    const unfurled = await waitFor(
      () => entitiesOf(t.ws.getMessage("C0OPS", posted.ts)),
      30_000,
      "the unfurl",
    );
    expect(unfurled).toHaveLength(1);
    expect(unfurled[0]).toMatchObject({
      entity_type: "slack#/entities/task",
      app_unfurl_url: url,
      external_ref: { id: ticket.external_ref.id },
      entity_payload: { fields: { status: { value: "Closed" } } },
    });
  });

  it("a panel opened where Hermes is not a member runs its click in the clicker's DM", async () => {
    t.ws.addChannel({ id: "C0LEADS", name: "leads", members: ["U0ADMIN"] });
    const posted = postAsUser(t.ws, { user: "U0ADMIN", channel: "C0LEADS", text: `status? <${ticket.url}>` });
    await wo.linkShared({ user: "U0ADMIN", channel: "C0LEADS", messageTs: posted.ts });
    await waitFor(() => entitiesOf(t.ws.getMessage("C0LEADS", posted.ts)), 30_000, "the unfurl in #leads");
    const d = await wo.entityDetailsRequested({ user: "U0ADMIN", channel: "C0LEADS", messageTs: posted.ts });
    await waitFor(
      () => workObjectsOf(t.ws).presentedTo("U0ADMIN")?.triggerId === d.triggerId,
      30_000,
      "the panel",
    );
    await wo.entityAction({ user: "U0ADMIN", actionId: TICKET_ACTIONS.status });
    const executed = await waitFor(
      async () => {
        const rows = await auditOf("U0ADMIN");
        return rows.find((r) => r.action === "tool.executed" && r.channelId !== "C0OPS");
      },
      30_000,
      "the reopen in the DM",
    );
    expect(executed.channelId).toMatch(/^D/);
    expect(executed.args).toEqual({ id: Number(ticket.external_ref.id), status: "open" });
  });
});
