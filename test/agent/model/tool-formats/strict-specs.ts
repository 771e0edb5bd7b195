import type { ToolSpec } from "../../../../src/agent/model/chat-model.ts";

/** Tools with the strict schemas the registry offers (`additionalProperties: false`, `required`). */
export const strictSpecs: ToolSpec[] = [
  {
    name: "create_ticket",
    description: "",
    parameters: {
      type: "object",
      properties: { title: { type: "string" }, priority: { type: "string", enum: ["low", "high"] } },
      required: ["title"],
      additionalProperties: false,
    },
  },
  {
    name: "search_tickets",
    description: "",
    parameters: {
      type: "object",
      properties: { query: { type: "string" }, limit: { type: "integer" } },
      additionalProperties: false,
    },
  },
  {
    name: "get_current_time",
    description: "",
    parameters: { type: "object", properties: {}, additionalProperties: false },
  },
];
