/** One sample of a scrape: its name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const HELP = new RegExp(`^# HELP ${NAME} .*$`);
const TYPE = new RegExp(`^# TYPE ${NAME} (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE = new RegExp(
  `^(${NAME})(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\.)*",?)*\\})? (-?[0-9.]+(?:e[+-]?[0-9]+)?|NaN|[+-]Inf)$`,
  "i",
);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"/g;

/** Parses Prometheus's text format strictly: a line that is none of HELP, TYPE or a sample throws. */
export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || HELP.test(line) || TYPE.test(line)) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a Prometheus text line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: numberOf(m[3]!) });
  }
  return samples;
}

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    ?.value;
}

/** A sample's value: a number, or NaN / ±Inf in any case (Go's parser accepts those too). */
function numberOf(text: string): number {
  const lower = text.toLowerCase();
  if (lower === "nan") return Number.NaN;
  if (lower.endsWith("inf")) return lower.startsWith("-") ? -Infinity : Infinity;
  return Number(text);
}
