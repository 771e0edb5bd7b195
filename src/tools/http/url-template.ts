import { HermesError } from "../../core/errors.ts";

/**
 * URL templates of HTTP tools: `https://api.internal/hosts/{host}?q={query}&limit={limit}`.
 * Placeholders name input properties; values are URL-encoded. A placeholder in the path must always
 * have a value; a query pair whose placeholder has no value is left out. The scheme and host are
 * fixed: a placeholder there could send the request (and its headers) somewhere else.
 */
export interface UrlTemplate {
  template: string;
  origin: string;
  /** Every placeholder name, in order of appearance. */
  names: string[];
  /** Placeholders in the path (must have a value). */
  pathNames: string[];
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const HAS_PLACEHOLDER = /\{[A-Za-z_][A-Za-z0-9_]*\}/;

/** Parses and checks a template; returns the problem as a sentence instead of throwing. */
export function parseUrlTemplate(
  template: string,
): { ok: true; value: UrlTemplate } | { ok: false; problem: string } {
  if (template.includes("${")) {
    return {
      ok: false,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the YAML's own ${NAME} syntax
      problem: "${NAME} secrets are only resolved in headers; put the token in a header",
    };
  }
  if (template.includes("#")) return { ok: false, problem: "a URL template cannot have a #fragment" };
  const probe = template.replace(PLACEHOLDER, "x");
  if (/[{}]/.test(probe)) {
    return { ok: false, problem: "placeholders look like {name}: letters, digits and _ in braces" };
  }
  let url: URL;
  try {
    url = new URL(probe);
  } catch {
    return { ok: false, problem: `"${template}" is not a valid URL` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, problem: `only http and https URLs are allowed, not ${url.protocol}` };
  }
  const afterScheme = template.indexOf("://") + 3;
  const pathStart = template.slice(afterScheme).search(/[/?]/);
  const authority =
    pathStart < 0 ? template.slice(afterScheme) : template.slice(afterScheme, afterScheme + pathStart);
  if (HAS_PLACEHOLDER.test(authority)) {
    return { ok: false, problem: "placeholders may only be in the path or query, not in the host" };
  }
  const [path = "", query = ""] = splitQuery(template);
  return {
    ok: true,
    value: {
      template,
      origin: url.origin,
      names: [...namesIn(path), ...namesIn(query)],
      pathNames: namesIn(path),
    },
  };
}

/** The request URL for validated args. Throws `bad_request` for a path value that would move up (`..`). */
export function fillUrlTemplate(t: UrlTemplate, args: Record<string, unknown>): string {
  const [path = "", query] = splitQuery(t.template);
  const filledPath = path.replace(PLACEHOLDER, (_m, name: string) => {
    const value = formatValue(args[name]);
    if (value === undefined) throw new HermesError("bad_request", `${name} is required.`);
    if (value === "." || value === "..") {
      throw new HermesError("bad_request", `${name} cannot be "${value}".`);
    }
    return encodeURIComponent(value);
  });
  let filled = filledPath;
  if (query !== undefined) {
    const pairs = query
      .split("&")
      .filter((pair) => namesIn(pair).every((name) => formatValue(args[name]) !== undefined))
      .map((pair) =>
        pair.replace(PLACEHOLDER, (_m, name: string) => encodeURIComponent(formatValue(args[name]) ?? "")),
      );
    if (pairs.length > 0) filled += `?${pairs.join("&")}`;
  }
  if (new URL(filled).origin !== t.origin) {
    throw new HermesError("bad_request", "The arguments would change the API's address.");
  }
  return filled;
}

function splitQuery(template: string): [string, string | undefined] {
  const q = template.indexOf("?");
  return q < 0 ? [template, undefined] : [template.slice(0, q), template.slice(q + 1)];
}

function namesIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
}

/** Scalars as text, arrays comma-separated, objects as JSON; `undefined`/`null` = no value. */
function formatValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map((v) => formatValue(v) ?? "").join(",");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
