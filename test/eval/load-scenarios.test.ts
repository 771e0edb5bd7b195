import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadScenarios, parseScenario, ScenarioFileError } from "../../src/eval/load-scenarios.ts";

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ScenarioFileError) return err.problems;
    throw err;
  }
  throw new Error("expected a ScenarioFileError");
}

describe("scenario files", () => {
  it("parses a scenario with defaults filled in", () => {
    const s = parseScenario("ok.yaml", "name: hi\nmessages: [hello]\n");
    expect(s).toMatchObject({
      name: "hi",
      file: "ok.yaml",
      requester: "user",
      approve: false,
      messages: ["hello"],
      expect: { calls: [], forbidden: [] },
    });
  });

  it("names the file and the field of every problem", () => {
    const problems = problemsOf(() =>
      parseScenario(
        "evals/bad.yaml",
        [
          "name: bad",
          "requester: root",
          "messages: []",
          "expect:",
          "  calls:",
          "    - args: { id: 1 }",
          "  max_step: 3",
          "script:",
          "  - say: hi",
        ].join("\n"),
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^evals\/bad\.yaml: requester: .*"viewer"/),
        expect.stringMatching(/^evals\/bad\.yaml: messages: .*1/),
        expect.stringMatching(/^evals\/bad\.yaml: expect\.calls\[0\]\.tool: /),
        expect.stringMatching(/^evals\/bad\.yaml: expect: .*max_step/),
        expect.stringMatching(/^evals\/bad\.yaml: script\[0\]: /),
      ]),
    );
  });

  it("says where YAML is broken and which regex does not compile", () => {
    expect(problemsOf(() => parseScenario("a.yaml", "name: x\nmessages: [hello\n"))[0]).toMatch(
      /^a\.yaml: not valid YAML \(line \d+\)/,
    );
    expect(
      problemsOf(() =>
        parseScenario(
          "b.yaml",
          "name: x\nmessages: [hi]\nexpect:\n  calls:\n    - tool: search_tickets\n      args: { query: { regex: '(' } }\n",
        ),
      ),
    ).toEqual([
      expect.stringMatching(/^b\.yaml: expect\.calls\[0\]\.args\.query\.regex: Invalid regular expression/),
    ]);
  });

  describe("folders", () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), "hermes-eval-load-"));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("loads the folder's yaml files in name order and reports every bad file at once", async () => {
      await writeFile(join(dir, "1.yaml"), "name: zeta\nmessages: [a]\n");
      await writeFile(join(dir, "2.yml"), "name: alpha\nmessages: [b]\n");
      await writeFile(join(dir, "notes.txt"), "not a scenario");
      expect(loadScenarios([dir]).map((s) => s.name)).toEqual(["alpha", "zeta"]);

      await writeFile(join(dir, "3.yaml"), "name: zeta\nmessages: [c]\n");
      await writeFile(join(dir, "4.yaml"), "messages: [d]\n");
      const problems = problemsOf(() => loadScenarios([dir, join(dir, "missing.yaml")]));
      expect(problems).toEqual([
        `${join(dir, "missing.yaml")}: no such file or folder`,
        `${join(dir, "3.yaml")}: name: "zeta" is already used by 1.yaml`,
        expect.stringMatching(/4\.yaml: name: /),
      ]);
    });

    it("refuses a folder without scenarios", () => {
      expect(problemsOf(() => loadScenarios([dir]))).toEqual([`no scenario files in ${dir}`]);
    });
  });
});
