import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { createRedactor, redactText } from "../../src/policy/redact.ts";
import {
  addGeneratedAuditKey,
  collectSecretValues,
  createSecretValues,
  loadSecretValues,
} from "../../src/policy/secret-values.ts";
import { SIGNING_SECRET, startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { approvalIdOf, botReplies, cardsIn, messageText, slackTraffic } from "../helpers/slack-thread.ts";
import {
  KEPT_CASES,
  SEPARATOR_NEAR_MISSES,
  SEPARATOR_VARIANTS,
  VARIANT_CASES,
  VARIANT_RAWS,
} from "./redaction-corpus.ts";

/**
 * The redaction corpus: hostile spellings of secrets and personal data are redacted, look-alikes with
 * bad checksums are kept, and every configured secret value goes by exact value (raw, URL-encoded,
 * base64) — first as units, then end to end: a scripted model echoes all of it into tool calls and
 * into its answer, and none of it is found raw in the audit log, the log, the trace, or what the app
 * sent to Slack (answers and approval cards).
 */

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
/** A secret as a careless tool or model would spell it: raw, URL-encoded, base64. */
const spellings = (secret: string) => [secret, encodeURIComponent(secret), b64(secret)];

/** Every string inside a value (rows, log lines, API call args), one per line: no JSON escaping. */
function textsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) textsOf(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) textsOf(v, out);
  return out;
}
const leaked = (haystack: string, needles: readonly string[]) => needles.filter((n) => haystack.includes(n));

describe("redaction corpus: hostile spellings", () => {
  it.each(VARIANT_CASES)("redacts $label", ({ text, raw, placeholder }) => {
    const out = redactText(text);
    expect(out).not.toContain(raw ?? text);
    expect(out).toContain(placeholder);
    expect(redactText(out)).toBe(out);
  });

  it.each(KEPT_CASES)("keeps $label", ({ text }) => {
    expect(redactText(text)).toBe(text);
  });

  it.each(SEPARATOR_VARIANTS)("redacts $label", ({ text, raw, placeholder }) => {
    const out = redactText(text);
    expect(out).not.toContain(raw ?? text);
    expect(out).toContain(placeholder);
    // Every piece of a grouped or wrapped value is gone, not only the whole.
    for (const piece of (raw ?? text).split(/[\s_/.\u2013\u2014\u2212\u2010\u3000－-]+/)) {
      if (piece.length >= 4) expect(out).not.toContain(piece);
    }
    expect(redactText(out)).toBe(out);
  });

  it.each(SEPARATOR_NEAR_MISSES)("keeps $label", ({ text }) => {
    expect(redactText(text)).toBe(text);
  });

  it("cuts only the secret out of the original text: the rest keeps its own spelling", () => {
    expect(redactText("電話：１３８１２３４５６７８，謝謝")).toBe("電話：[phone]，謝謝");
    expect(redactText("ｍａｉｌ：alice＠example.com！")).toBe("ｍａｉｌ：[email]！");
    expect(redactText("手机：138–1234–5678。邮箱 alice@example。com。")).toBe(
      "手机：[phone]。邮箱 [email]。",
    );
    expect(redactText("tel 0086 138 1234 5678, ok")).toBe("tel [phone], ok");
  });
});

describe("configured secret values", () => {
  const OPENAI_KEY = "corpus-openai-key-Qm7Lz2Xw9";
  const DB_PASSWORD = "pg-Pa55w0rd-x9";
  const config = loadConfig({
    SLACK_BOT_TOKEN: "xoxb-corpus-bot-token",
    SLACK_SIGNING_SECRET: "corpus-signing-secret",
    OPENAI_API_KEY: OPENAI_KEY,
    DATABASE_URL: `postgres://hermes:${encodeURIComponent(DB_PASSWORD)}@127.0.0.1:5432/hermes`,
    HERMES_ADMINS: "U0ADMIN",
  });
  const secrets = collectSecretValues({ config });
  const r = createRedactor({ secrets });

  it("collects tokens, keys and the database password from the configuration", () => {
    for (const value of ["xoxb-corpus-bot-token", "corpus-signing-secret", OPENAI_KEY, DB_PASSWORD]) {
      expect(secrets.forms()).toContain(value);
    }
  });

  it("removes each value wherever it appears, raw, URL-encoded or base64, with no pattern to find it", () => {
    for (const value of [OPENAI_KEY, DB_PASSWORD, "corpus-signing-secret"]) {
      for (const spelled of spellings(value)) {
        const text = `before ${spelled} after`;
        expect(r.redactText(text)).toBe("before [secret] after");
        expect(r.redactSecrets(text)).toBe("before [secret] after");
      }
      const wrapped = r.redactText(`base64 of JSON ${b64(JSON.stringify({ v: value }))}`);
      expect(wrapped).toContain("[secret]");
      expect(leaked(wrapped, spellings(value))).toEqual([]);
    }
  });

  it.each([
    ["a line break", "\n"],
    ["a CRLF and indentation", "\r\n    "],
    ["a zero-width space", "\u200b"],
    ["a word joiner", "\u2060"],
    ["a BOM", "\ufeff"],
    ["a Mongolian vowel separator", "\u180e"],
    ["a variation selector", "\ufe0f"],
    ["a tag character", "\u{E0020}"],
    ["two zero-width characters", "\u200c\u200d"],
  ])("removes a value split by %s, at every position", (_label, gap) => {
    for (const value of [OPENAI_KEY, DB_PASSWORD]) {
      for (let at = 1; at < value.length; at++) {
        const text = `before ${value.slice(0, at)}${gap}${value.slice(at)} after`;
        const out = r.redactText(text);
        expect({ at, out }).toEqual({ at, out: expect.stringContaining("[secret]") });
        expect(out).not.toContain(value.slice(0, at) + gap);
        expect(r.redactSecrets(text)).toContain("[secret]");
      }
    }
  });

  it("removes a value's base64 form wrapped over lines", () => {
    const wrapped = b64(`${OPENAI_KEY}:${OPENAI_KEY}`)
      .match(/.{1,12}/g)!
      .join("\n");
    const out = r.redactText(`blob\n${wrapped}\nend`);
    expect(out).toContain("[secret]");
    for (const line of wrapped.split("\n").slice(0, -1)) expect(out).not.toContain(line);
  });

  it("for Slack, removes credentials and keeps personal data the requester asked for", () => {
    const text = `Alice: +86 138 0013 8000, key ${OPENAI_KEY}, token xoxp-1111-2222-3333-abcdef0123`;
    expect(r.redactSecrets(text)).toBe("Alice: +86 138 0013 8000, key [secret], token [slack_token]");
  });

  it("picks up values added later (a generated key) and ignores values too short to match safely", () => {
    const later = createSecretValues(["short"]);
    const redactor = createRedactor({ secrets: later });
    expect(redactor.redactText("a generated-key-0123456789 here")).toBe("a generated-key-0123456789 here");
    later.add("generated-key-0123456789");
    expect(redactor.redactText("a generated-key-0123456789 here")).toBe("a [secret] here");
    expect(redactor.redactText("a short word")).toBe("a short word");
  });

  it("adds the embedded default's generated audit key once it exists", () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-auditkey-"));
    try {
      const embedded = loadConfig({ HERMES_DATA_DIR: dir });
      const values = collectSecretValues({ config: embedded });
      addGeneratedAuditKey(values, embedded);
      expect(values.forms()).toEqual([]);
      writeFileSync(join(dir, "audit.key"), "generated-audit-key-0123456789abcdefghij\n");
      addGeneratedAuditKey(values, embedded);
      expect(values.forms()).toContain("generated-audit-key-0123456789abcdefghij");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("collects HTTP tool header secrets from HERMES_HTTP_TOOLS", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-secrets-"));
    try {
      const yaml = join(dir, "tools.yaml");
      writeFileSync(
        yaml,
        [
          "- name: lookup",
          "  description: Looks something up.",
          "  method: GET",
          "  url: http://127.0.0.1:1/x",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the YAML's own ${VAR} syntax
          "  headers: { X-Api-Key: '${LOOKUP_KEY}' }",
        ].join("\n"),
      );
      const env = { HERMES_HTTP_TOOLS: yaml, LOOKUP_KEY: "hdr-value-0f9e8d7c" };
      const loaded = await loadSecretValues({ config: loadConfig(env), rawEnv: env });
      expect(loaded.forms()).toContain("hdr-value-0f9e8d7c");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("collects MCP server env and header secrets from HERMES_MCP_SERVERS", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-secrets-"));
    try {
      const yaml = join(dir, "mcp.yaml");
      writeFileSync(
        yaml,
        [
          "- name: tracker",
          "  transport: stdio",
          "  command: tracker-mcp",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the YAML's own ${VAR} syntax
          "  env: { TRACKER_TOKEN: '${TRACKER_TOKEN}' }",
          "- name: wiki",
          "  transport: http",
          "  url: https://wiki.internal/mcp",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the YAML's own ${VAR} syntax
          "  headers: { Authorization: 'Bearer ${WIKI_KEY}' }",
        ].join("\n"),
      );
      const env = {
        HERMES_MCP_SERVERS: yaml,
        TRACKER_TOKEN: "trk-value-5a4b3c2d",
        WIKI_KEY: "wiki-value-9z8y7x",
      };
      const loaded = await loadSecretValues({ config: loadConfig(env), rawEnv: env });
      expect(loaded.forms()).toEqual(expect.arrayContaining(["trk-value-5a4b3c2d", "wiki-value-9z8y7x"]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("redaction corpus end to end (Bolt app over HTTP, Postgres, Slack emulator, scripted model)", () => {
  const OPENAI_KEY = "sk-corpus-e2e-0123456789abcdefABCDEF";
  const AUDIT_KEY = "corpus-audit-key-0123456789abcdefghijklmnop";
  const API_TOKEN = "corpus-hdr-7Gq2Lx9PzR4";
  const CONFIGURED = [OPENAI_KEY, SIGNING_SECRET, AUDIT_KEY, API_TOKEN];
  const CONFIGURED_SPELLINGS = CONFIGURED.flatMap(spellings);
  /** Corpus entries that are credentials: they must not reach Slack either. */
  const CREDENTIAL_RAWS = VARIANT_CASES.filter(
    (c) => c.placeholder === "[secret]" || c.placeholder === "[slack_token]",
  ).map((c) => c.raw ?? c.text);
  const PAYLOAD = [
    ...VARIANT_CASES.map((c) => c.text),
    ...KEPT_CASES.map((c) => c.text),
    ...CONFIGURED_SPELLINGS.map((s) => `cfg ${s}`),
  ].join(" ;\n");
  const CARD_PAYLOAD = [
    ...VARIANT_CASES.filter((c) => CREDENTIAL_RAWS.includes(c.raw ?? c.text)).map((c) => c.text),
    ...CONFIGURED_SPELLINGS,
  ].join(" ;\n");

  const model = new ScriptedModelServer();
  const lines: Array<Record<string, unknown>> = [];
  let api: Server;
  let dir: string;
  let t: TestHermes;

  beforeAll(async () => {
    await model.start();
    // An internal API that echoes the credential it was sent (the tool result then holds it).
    api = createServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ host: "h1", echoed: req.headers["x-api-key"] }));
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    dir = mkdtempSync(join(tmpdir(), "hermes-corpus-"));
    const yaml = join(dir, "http-tools.yaml");
    writeFileSync(
      yaml,
      [
        "- name: corpus_lookup",
        "  description: Looks up a host.",
        "  method: GET",
        `  url: http://127.0.0.1:${(api.address() as AddressInfo).port}/hosts/{host}`,
        "  input: { type: object, properties: { host: { type: string } }, required: [host] }",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the YAML's own ${VAR} syntax
        "  headers: { X-Api-Key: '${CORPUS_API_TOKEN}' }",
        "  level: viewer",
      ].join("\n"),
    );
    const env = {
      OPENAI_API_KEY: OPENAI_KEY,
      HERMES_AUDIT_KEY: AUDIT_KEY,
      HERMES_HTTP_TOOLS: yaml,
      CORPUS_API_TOKEN: API_TOKEN,
      HERMES_LOG_LEVEL: "debug",
    };
    // As main.ts does: the process's secret values first, then the logger that redacts with them.
    const secrets = await loadSecretValues({
      config: loadConfig({
        ...env,
        SLACK_BOT_TOKEN: "xoxb-test",
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        HERMES_MODEL: "scripted",
      }),
      rawEnv: env,
    });
    const logger = createLogger({
      level: "debug",
      redact: createRedactor({ secrets }).redactForLog,
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    t = await startTestHermes({ model, logger, env });
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
    await model.stop();
    await new Promise((r) => api?.close(r));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const db = () => t.hermes.services.storage.db.db;
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

  async function mention(text: string, done: (ts: string) => boolean): Promise<string> {
    const d = await t.sender.appMention({ channel: "C0OPS", user: "U0USER1", text: `<@U0HERMES> ${text}` });
    expect(d.status).toBe(200);
    const ts = d.message!.ts;
    await waitFor(() => done(ts), 60_000, "the turn's outcome in the thread");
    return ts;
  }

  it("echoed into tool calls, a tool result and the answer: nothing raw in audit, log, trace or Slack", async () => {
    const ANSWER = `Here is everything:\n${PAYLOAD}`;
    model.enqueue(
      toolCalls([
        { name: "create_ticket", args: { title: "Corpus", description: PAYLOAD } },
        { name: "corpus_lookup", args: { host: "h1" } },
        // Not a number: a validation error, whose trace line carries what the model sent.
        { name: "get_ticket", args: { id: PAYLOAD } },
      ]),
      answer(ANSWER),
    );
    const ts = await mention(`remember these: ${PAYLOAD}`, (ts) =>
      botReplies(t, "C0OPS", ts).some((m) => m.text.startsWith("Here is everything")),
    );

    // The card turn: send_message waits for approval, and its card shows the arguments.
    model.enqueue(
      // send_message takes at most 3000 characters: the credentials of the corpus.
      toolCalls([{ name: "send_message", args: { to: "<@U0USER1>", text: `Keys: ${CARD_PAYLOAD}` } }]),
    );
    const cardTs = await mention("send it to me", (ts) => cardsIn(t, "C0OPS", ts).length >= 1);
    // Approved: the message that goes out carries the placeholders the card showed, not the values.
    const [pending] = cardsIn(t, "C0OPS", cardTs);
    const card = messageText(pending!);
    model.enqueue(answer("Sent."));
    await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalIdOf(pending!),
      channel: "C0OPS",
      messageTs: pending!.ts,
    });
    await waitFor(
      () => botReplies(t, "C0OPS", cardTs).some((m) => m.text === "Sent."),
      60_000,
      "the answer after approval",
    );

    // Audit: every row of both threads, every column.
    const rows = await execSql<Record<string, unknown>>(
      db(),
      `SELECT * FROM audit_log WHERE thread_ts IN (${lit(ts)}, ${lit(cardTs)}) ORDER BY id`,
    );
    expect(rows.map((r) => `${r.tool}:${r.action}`)).toEqual(
      expect.arrayContaining([
        "create_ticket:tool.executed",
        "corpus_lookup:tool.executed",
        "send_message:tool.approval_requested",
        "send_message:tool.executed",
      ]),
    );
    const audit = textsOf(rows).join("\n");
    expect(leaked(audit, VARIANT_RAWS)).toEqual([]);
    expect(leaked(audit, CONFIGURED_SPELLINGS)).toEqual([]);
    // Look-alikes with bad checksums are data, kept as written.
    const requested = rows.find((r) => r.tool === "create_ticket" && r.action === "tool.requested");
    expect(requested).toBeDefined();
    const description = (requested!.args as { description: string }).description;
    for (const kept of KEPT_CASES) expect(description).toContain(kept.text);

    // Log and trace (the trace is the log's lines with an `event`).
    const log = textsOf(lines).join("\n");
    const trace = lines.filter((l) => typeof l.event === "string");
    expect(trace.map((l) => l.event)).toEqual(expect.arrayContaining(["tool.end", "tool.validation_error"]));
    expect(leaked(log, VARIANT_RAWS)).toEqual([]);
    expect(leaked(log, CONFIGURED_SPELLINGS)).toEqual([]);

    // Slack: the answer and the card arrived, with credentials cut out.
    const reply = botReplies(t, "C0OPS", ts).map(messageText).join("\n");
    expect(reply).toContain("Here is everything");
    expect(reply).toContain("[secret]");
    expect(card).toContain("[secret]");
    const sent = t.emulator.callsTo("chat.postMessage").filter((c) => String(c.args.channel).startsWith("D"));
    expect(sent.map((c) => String(c.args.text))).toEqual([expect.stringContaining("Keys: ")]);
    const traffic = slackTraffic(t);
    expect(leaked(traffic, CONFIGURED_SPELLINGS)).toEqual([]);
    expect(leaked(traffic, CREDENTIAL_RAWS)).toEqual([]);
  }, 120_000);
});
