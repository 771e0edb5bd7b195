import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import {
  bufferedDestination,
  createLogger,
  LOG_BUFFER_BYTES,
  lineWriter,
  logFormat,
  prettyLines,
} from "../../src/core/logger.ts";
import { redact } from "../../src/policy/redact.ts";
import { PROCESS_TEST_TIMEOUT_MS, runProcess } from "../helpers/child-process.ts";
import { waitFor } from "../helpers/hermes-harness.ts";

describe("createLogger with redaction", () => {
  it("redacts PII and secrets in fields and in the message itself", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const log = createLogger({ level: "info", destination: sink, redact });
    log
      .child({ runId: "r1", sessionKey: "T:C:1", tool: "send_message" })
      .info(
        { args: { to: "alice@example.com", token: "xoxb-123-456-abcdef" } },
        "mail alice@example.com from +86 138 0013 8000",
      );
    await new Promise((r) => setTimeout(r, 10));
    const out = lines.join("");
    expect(out).not.toContain("alice@example.com");
    expect(out).not.toContain("xoxb-123");
    expect(out).not.toContain("138 0013 8000");
    const row = JSON.parse(lines[0]!);
    expect(row).toMatchObject({
      runId: "r1",
      sessionKey: "T:C:1",
      tool: "send_message",
      msg: "mail [email] from [phone]",
    });
    expect(row.args).toEqual({ to: "[email]", token: "[secret]" });
  });
});

describe("the buffered log destination", () => {
  it("writes a quiet process's last line without waiting for 4 KiB or the exit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-log-"));
    const file = join(dir, "hermes.log");
    const destination = bufferedDestination(file);
    try {
      const log = createLogger({ level: "info", destination });
      log.warn({ jobId: "turn:Ev1" }, "continuing a turn whose worker died");
      // One short line is far below the buffer's 4 KiB: only the periodic flush writes it.
      const written = await waitFor(
        () => {
          const text = readFileSync(file, "utf8");
          return text.includes("continuing a turn whose worker died") ? text : undefined;
        },
        30_000,
        "the line in the file",
      );
      expect(JSON.parse(written.trim())).toMatchObject({ level: 40, jobId: "turn:Ev1" });
    } finally {
      (destination as unknown as { destroy(): void }).destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("hands the gathered lines over on flush, in order with bytes written directly", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-log-"));
    const file = join(dir, "hermes.log");
    const destination = bufferedDestination(file);
    try {
      const log = createLogger({ level: "info", destination });
      log.info({ seq: 1 }, "first");
      destination.write(Buffer.from('{"seq":2,"msg":"as bytes"}\n') as unknown as string);
      log.info({ seq: 3 }, "third");
      // Well within the periodic flush: only `flush` can have written them.
      await new Promise<void>((resolve, reject) => log.flush((err) => (err ? reject(err) : resolve())));
      const rows = readFileSync(file, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as { seq: number });
      expect(rows.map((r) => r.seq)).toEqual([1, 2, 3]);
    } finally {
      (destination as unknown as { destroy(): void }).destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(
    "writes what is gathered when a process ends by itself (no exit call)",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "hermes-log-"));
      const script = join(dir, "end-quietly.ts");
      const logger = new URL("../../src/core/logger.ts", import.meta.url).pathname;
      writeFileSync(
        script,
        `import { createLogger } from ${JSON.stringify(logger)};
const log = createLogger();
for (let i = 0; i < 50; i++) log.info({ seq: i }, "line " + i);
`,
      );
      try {
        const run = await runProcess(process.execPath, [script], { env: process.env });
        expect(run.code, run.stderr).toBe(0);
        const seqs = run.stdout
          .trimEnd()
          .split("\n")
          .map((l) => (JSON.parse(l) as { seq: number }).seq);
        expect(seqs).toEqual([...Array(50).keys()]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "keeps every line whole and in order across many buffer writes, multi-byte text included, and writes the rest at exit",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "hermes-log-"));
      const script = join(dir, "write-lines.ts");
      const logger = new URL("../../src/core/logger.ts", import.meta.url).pathname;
      // The production destination (stdout, buffered): lines of varied length with 2-, 3- and 4-byte
      // characters, about 8 buffers' worth, then an exit straight after the last one, so whatever
      // is still gathered must be written on the way out.
      writeFileSync(
        script,
        `import { createLogger } from ${JSON.stringify(logger)};
const log = createLogger();
for (let i = 0; i < 2000; i++) log.info({ seq: i, text: "7 °C in Zürich, 北京 晴 🌤️ ".repeat(1 + (i % 7)) }, "line " + i);
process.exit(0);
`,
      );
      try {
        const run = await runProcess(process.execPath, [script], { env: process.env });
        expect(run.code, run.stderr).toBe(0);
        expect(Buffer.byteLength(run.stdout)).toBeGreaterThan(6 * LOG_BUFFER_BYTES);
        const rows = run.stdout
          .trimEnd()
          .split("\n")
          .map((l) => JSON.parse(l) as { seq: number; text: string; msg: string });
        expect(rows.map((r) => r.seq)).toEqual([...Array(2000).keys()]);
        for (const r of rows) {
          expect(r.text).toBe("7 °C in Zürich, 北京 晴 🌤️ ".repeat(1 + (r.seq % 7)));
          expect(r.msg).toBe(`line ${r.seq}`);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe("the trace's line writer", () => {
  function memoryLogger(level = "info") {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        cb();
      },
    });
    return { lines, log: createLogger({ level, destination: sink, redact }) };
  }
  const tick = () => new Promise((r) => setTimeout(r, 10));

  it("writes the line pino would write: same keys in the same order, same redaction", async () => {
    const fields = {
      event: "model.response",
      step: 2,
      model: "qwen3",
      toolCalls: ["send_message"],
      usage: { promptTokens: 100, completionTokens: 20 },
      error: "could not reach bob@example.com",
      apiKey: "sk-live-1234567890abcdef",
      latencyMs: Number.NaN,
      repairs: [],
      skipped: undefined,
    };
    const { lines, log } = memoryLogger();
    const parent = log.child({ component: "worker" });
    const bindings = { runId: "r1", sessionKey: "T:C:1" };
    parent.child(bindings).info(fields, "model.response");
    expect(lineWriter(parent, bindings)?.("info", fields, "model.response")).toBe(true);
    await tick();
    expect(lines).toHaveLength(2);
    const [byPino, byWriter] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect({ ...byWriter, time: 0 }).toEqual({ ...byPino, time: 0 });
    expect(Object.keys(byWriter!)).toEqual(Object.keys(byPino!));
    expect(byWriter).toMatchObject({
      level: 30,
      app: "hermes",
      component: "worker",
      runId: "r1",
      error: "could not reach [email]",
      apiKey: "[secret]",
      latencyMs: null,
      msg: "model.response",
    });
  });

  it("leaves to pino what JSON cannot write, and writes nothing for a level that is off", async () => {
    const { lines, log } = memoryLogger("warn");
    const write = lineWriter(log, { runId: "r2" })!;
    expect(write("info", { event: "run.start" }, "run.start")).toBe(false);
    const cyclic: Record<string, unknown> = { event: "note" };
    cyclic.self = cyclic;
    expect(write("warn", cyclic, "note")).toBe(false);
    expect(write("warn", { event: "note", n: 10n }, "note")).toBe(false);
    expect(write("warn", { event: "model.error", error: "HTTP 500" }, "model.error")).toBe(true);
    await tick();
    expect(lines.map((l) => JSON.parse(l).event)).toEqual(["model.error"]);
    // A logger not made by createLogger has none.
    expect(lineWriter(pino(), {})).toBeUndefined();
  });
});

describe("readable lines in a terminal", () => {
  function memorySink() {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        cb();
      },
    });
    return { lines, sink };
  }
  const tick = () => new Promise((r) => setTimeout(r, 10));

  it("is chosen for a terminal, JSON for anything else, and HERMES_LOG_FORMAT forces either", () => {
    expect(logFormat("auto", true)).toBe("pretty");
    expect(logFormat("auto", false)).toBe("json");
    // A pipe's stdout has no isTTY at all.
    expect(logFormat("auto", undefined)).toBe("json");
    expect(logFormat("json", true)).toBe("json");
    expect(logFormat("pretty", false)).toBe("pretty");
    expect(logFormat("pretty", undefined)).toBe("pretty");
  });

  it("shows time, level, message and the run's context, redacted exactly as the JSON line is", async () => {
    const json = memorySink();
    const pretty = memorySink();
    const write = (log: ReturnType<typeof createLogger>) => {
      const child = log.child({ runId: "r1", sessionKey: "T:C:1", tool: "send_message" });
      child.info(
        { args: { to: "alice@example.com", token: "xoxb-123-456-abcdef" } },
        "mail alice@example.com from +86 138 0013 8000",
      );
      // The trace's line writer writes its own JSON: it goes through the same pretty lines.
      expect(
        lineWriter(log, { runId: "r2" })?.("warn", { apiKey: "sk-live-1234567890abcdef" }, "model.error"),
      ).toBe(true);
      log.info("started");
    };
    write(createLogger({ level: "info", destination: json.sink, redact }));
    write(
      createLogger({
        level: "info",
        destination: prettyLines(pretty.sink, { colorize: false }),
        redact,
      }),
    );
    write(createLogger({ level: "info", destination: pretty.sink, redact, format: "pretty" }));
    await tick();
    const out = pretty.lines.join("\n");
    for (const secret of ["alice@example.com", "xoxb-123", "138 0013 8000", "sk-live"]) {
      expect(json.lines.join("\n")).not.toContain(secret);
      expect(out).not.toContain(secret);
    }
    // Both pretty loggers (explicit stream, `format`) wrote the same three lines, none of them JSON.
    expect(pretty.lines).toHaveLength(6);
    // Colours (if the default turned them on) and the time aside.
    const strip = (line: string) => line.replace(/\u001b\[[0-9;]*m/g, "");
    const untimed = (line: string) => strip(line).replace(/^\[[^\]]*\] /, "");
    const [mail, modelError, started] = pretty.lines.slice(0, 3).map(strip);
    expect(pretty.lines.slice(3).map(untimed)).toEqual(pretty.lines.slice(0, 3).map(untimed));
    const time = "\\[\\d{2}:\\d{2}:\\d{2}\\.\\d{3}\\]";
    expect(mail).toMatch(
      new RegExp(
        `^${time} INFO: mail \\[email\\] from \\[phone\\] runId=r1 sessionKey=T:C:1 tool=send_message \\{"args":\\{"to":"\\[email\\]","token":"\\[secret\\]"\\}\\}$`,
      ),
    );
    expect(modelError).toMatch(
      new RegExp(`^${time} WARN: model\\.error runId=r2 \\{"apiKey":"\\[secret\\]"\\}$`),
    );
    expect(started).toMatch(new RegExp(`^${time} INFO: started$`));
    // The JSON lines held the same redacted values.
    expect(JSON.parse(json.lines[0]!)).toMatchObject({
      msg: "mail [email] from [phone]",
      args: { token: "[secret]" },
    });
  });

  it("keeps the buffered destination's chunks and flush", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-log-"));
    const file = join(dir, "hermes.log");
    const destination = bufferedDestination(file);
    try {
      const log = createLogger({ level: "info", destination, format: "pretty", redact });
      log.child({ runId: "r1" }).info({ seq: 1 }, "first");
      log.warn({ seq: 2 }, "second for bob@example.com");
      // Well within the periodic flush: only `flush` can have written them.
      await new Promise<void>((resolve, reject) => log.flush((err) => (err ? reject(err) : resolve())));
      const lines = readFileSync(file, "utf8").trimEnd().split("\n");
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/ INFO: first runId=r1 \{"seq":1\}$/);
      expect(lines[1]).toMatch(/ WARN: second for \[email\] \{"seq":2\}$/);
    } finally {
      (destination as unknown as { destroy(): void }).destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(
    "a process whose stdout is a pipe (npm start under tests, containers) writes JSON and never loads pino-pretty",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "hermes-log-"));
      const script = join(dir, "start-like.ts");
      const src = (f: string) => JSON.stringify(new URL(`../../src/${f}`, import.meta.url).pathname);
      // The choice main.ts makes: the configured format, else stdout's isTTY.
      writeFileSync(
        script,
        `import { createRequire } from "node:module";
import { loadConfig } from ${src("config.ts")};
import { createLogger, logFormat } from ${src("core/logger.ts")};
const config = loadConfig(process.env);
const log = createLogger({ format: logFormat(config.env.HERMES_LOG_FORMAT, process.stdout.isTTY) });
log.child({ runId: "r1" }).info({ seq: 1 }, "hello");
const loaded = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes("/pino-pretty/"));
log.info({ prettyLoaded: loaded }, "modules");
`,
      );
      const run = (format?: string) =>
        runProcess(process.execPath, [script], {
          env: {
            PATH: process.env.PATH,
            HERMES_DATA_DIR: dir,
            ...(format ? { HERMES_LOG_FORMAT: format } : {}),
          },
        });
      try {
        for (const format of [undefined, "auto", "json"]) {
          const out = await run(format);
          expect(out.code, out.stderr).toBe(0);
          const rows = out.stdout
            .trimEnd()
            .split("\n")
            .map((l) => JSON.parse(l) as Record<string, unknown>);
          expect(rows).toMatchObject([
            { level: 30, runId: "r1", seq: 1, msg: "hello" },
            { prettyLoaded: false, msg: "modules" },
          ]);
        }
        const forced = await run("pretty");
        expect(forced.code, forced.stderr).toBe(0);
        expect(forced.stdout).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: hello runId=r1 \{"seq":1\}\n/);
        expect(forced.stdout).toContain('modules {"prettyLoaded":true}');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
