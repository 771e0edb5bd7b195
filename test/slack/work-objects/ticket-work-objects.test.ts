import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../../src/agent/context/messages.ts";
import { MAX_ENTITIES, ticketEntitiesOf } from "../../../src/slack/work-objects/result-tickets.ts";
import {
  decodeAction,
  TICKET_ACTIONS,
  ticketActionButtons,
  toolCallOf,
} from "../../../src/slack/work-objects/ticket-actions.ts";
import { ticketEntity, ticketIdOfRef } from "../../../src/slack/work-objects/ticket-entity.ts";
import { DEFAULT_TICKET_URL_BASE, ticketLinks } from "../../../src/slack/work-objects/ticket-links.ts";

const links = ticketLinks("https://desk.example.com/hermes/tickets/");

const tool = (name: string, content: unknown): ChatMessage => ({
  role: "tool",
  toolCallId: `c-${name}`,
  name,
  content: typeof content === "string" ? content : JSON.stringify(content),
});
const summary = (id: number, extra: Record<string, unknown> = {}) => ({
  ticket: `#${id}`,
  title: `Ticket ${id}`,
  status: "open",
  priority: "medium",
  assignee: null,
  created_by: "U0USER1",
  created_at: "2026-12-01T10:00:00Z",
  ...extra,
});

describe("ticket links", () => {
  it("are <base>/<id> and read back only from that form", () => {
    expect(links.urlOf(42)).toBe("https://desk.example.com/hermes/tickets/42");
    expect(links.domain).toBe("desk.example.com");
    expect(links.idOf("https://desk.example.com/hermes/tickets/42")).toBe(42);
    expect(links.idOf("https://desk.example.com/hermes/tickets/42/?utm=x")).toBe(42);
    for (const other of [
      "https://desk.example.com/hermes/tickets/",
      "https://desk.example.com/hermes/tickets/0",
      "https://desk.example.com/hermes/tickets/42/edit",
      "https://desk.example.com/hermes/ticketsX/42",
      "https://evil.example.com/hermes/tickets/42",
      "http://desk.example.com/hermes/tickets/42",
      "https://desk.example.com/hermes/tickets/99999999999",
      "not a url",
    ])
      expect(links.idOf(other), other).toBeUndefined();
    expect(ticketLinks().urlOf(7)).toBe(`${DEFAULT_TICKET_URL_BASE}/7`);
  });
});

describe("a ticket as a Task entity", () => {
  it("carries title, status, priority, assignee and its link; actions and the unfurled link when given", () => {
    const e = ticketEntity(
      { id: 7, title: "Printer jammed", status: "in_progress", priority: "urgent", assignee: "S0NETOPS" },
      links,
      {
        appUnfurlUrl: "https://desk.example.com/hermes/tickets/7",
        actions: [{ text: "Close", action_id: "x" }],
      },
    );
    expect(e).toMatchObject({
      entity_type: "slack#/entities/task",
      url: "https://desk.example.com/hermes/tickets/7",
      app_unfurl_url: "https://desk.example.com/hermes/tickets/7",
      external_ref: { id: "7", type: "ticket" },
      entity_payload: {
        attributes: { title: { text: "Printer jammed" }, display_id: "#7" },
        fields: {
          status: { value: "In progress" },
          priority: { value: "urgent", tag_color: "red" },
          assignee: { value: "<!subteam^S0NETOPS>" },
        },
        display_order: ["status", "priority", "assignee"],
        actions: { primary_actions: [{ text: "Close", action_id: "x" }] },
      },
    });
    expect(ticketIdOfRef(e.external_ref)).toBe(7);
    expect(ticketIdOfRef({ id: "7", type: "incident" })).toBeUndefined();
  });
});

describe("the tickets a turn touched", () => {
  it("come from this turn's ticket results, one per ticket in its latest state", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "earlier" },
      tool("get_ticket", summary(1)),
      { role: "user", content: "now" },
      tool("create_ticket", { created: "#2", ...summary(2, { assignee: "U0ADMIN" }) }),
      tool("get_ticket", summary(3)),
      tool("update_ticket", {
        updated: "#2",
        changes: [],
        ticket: summary(2, { status: "closed", assignee: "U0ADMIN" }),
      }),
      tool("search_tickets", { tickets: [summary(4)] }),
      tool("get_ticket", "Error from get_ticket: There is no ticket #9."),
    ];
    const entities = ticketEntitiesOf(messages, links);
    expect(entities.map((e) => e.external_ref.id)).toEqual(["2", "3"]);
    expect(entities[0]?.entity_payload.fields).toMatchObject({
      status: { value: "Closed" },
      assignee: { user: { user_id: "U0ADMIN" } },
      created_by: { user: { user_id: "U0USER1" } },
      date_created: { value: Date.parse("2026-12-01T10:00:00Z") / 1000 },
    });
  });

  it(`are at most ${MAX_ENTITIES}`, () => {
    const messages = Array.from({ length: 8 }, (_, i) => tool("get_ticket", summary(i + 1)));
    expect(ticketEntitiesOf(messages, links)).toHaveLength(MAX_ENTITIES);
  });
});

describe("the detail panel's buttons", () => {
  it("depend on the ticket and who looks, and each stands for one update_ticket call", () => {
    const where = { channel: "C0OPS", threadTs: "1700000000.000100" };
    const open = ticketActionButtons({ id: 5, status: "open", assignee: null }, "U0USER1", where);
    expect(open.map((b) => b.text)).toEqual(["Assign to me", "Start work", "Close"]);
    const mine = ticketActionButtons({ id: 5, status: "closed", assignee: "U0USER1" }, "U0USER1", where);
    expect(mine.map((b) => b.text)).toEqual(["Reopen"]);

    const calls = open.map((b) => toolCallOf(b.action_id, decodeAction(b.value)!));
    expect(calls.map((c) => c?.args)).toEqual([
      { id: 5, assignee: "me" },
      { id: 5, status: "in_progress" },
      { id: 5, status: "closed" },
    ]);
    expect(decodeAction(open[0]?.value)).toEqual({ id: 5, ...where });
    expect(decodeAction("5;;")).toEqual({ id: 5 });
  });

  it("refuse values they did not make", () => {
    for (const bad of [undefined, "", "x;C1;1.2", "0;C1;1.2", "5;c1;1.2", "5;C1;1.2|closed;drop"])
      expect(decodeAction(bad), String(bad)).toBeUndefined();
    expect(toolCallOf(TICKET_ACTIONS.status, { id: 5 })).toBeUndefined();
    expect(toolCallOf("hermes.other", { id: 5 })).toBeUndefined();
  });
});
