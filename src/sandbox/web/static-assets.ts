import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The page's files: `public/*` at `/sandbox/static/<name>`, and the front-end libraries from
 * node_modules at `/sandbox/vendor/<name>` (no build step, no CDN). Only names listed here are served,
 * so no request path ever reaches the file system.
 */

export interface Asset {
  path: string;
  contentType: string;
}

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".html": "text/html; charset=utf-8",
};

export const PUBLIC_DIR = fileURLToPath(new URL("./public/", import.meta.url));

/** `/sandbox/static/app.js` → public/app.js, for every servable file in public/. */
export function publicAssets(dir = PUBLIC_DIR): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const contentType = TYPES[extname(name)];
    if (contentType && name !== "index.html") {
      assets.set(`/sandbox/static/${name}`, { path: join(dir, name), contentType });
    }
  }
  return assets;
}

/** The import map's targets: preact, preact/hooks and htm as browser ES modules. */
export function vendorAssets(): Map<string, Asset> {
  const require = createRequire(import.meta.url);
  const preact = require.resolve("preact");
  const hooks = require.resolve("preact/hooks");
  // htm's `require` entry is CommonJS; its ES module sits beside it.
  const htm = join(dirname(require.resolve("htm")), "htm.mjs");
  const type = TYPES[".mjs"] ?? "text/javascript";
  const assets = new Map<string, Asset>([
    ["/sandbox/vendor/preact.mjs", { path: preact, contentType: type }],
    ["/sandbox/vendor/preact-hooks.mjs", { path: hooks, contentType: type }],
    ["/sandbox/vendor/htm.mjs", { path: htm, contentType: type }],
  ]);
  for (const { path } of assets.values()) {
    if (!existsSync(path)) throw new Error(`The sandbox page needs ${path}: run npm ci.`);
  }
  return assets;
}

export interface PageHtml {
  html: string;
  /** Content-Security-Policy allowing exactly the page's own scripts and its inline import map. */
  csp: string;
}

/** index.html, and a CSP that pins its inline import map by hash. */
export function pageHtml(dir = PUBLIC_DIR): PageHtml {
  const html = readFileSync(join(dir, "index.html"), "utf8");
  const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
  const hash = createHash("sha256").update(importMap).digest("base64");
  const csp = [
    "default-src 'none'",
    `script-src 'self' 'sha256-${hash}'`,
    "style-src 'self'",
    // Block Kit image blocks may point anywhere; images cannot run code.
    "img-src 'self' data: http: https:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  return { html, csp };
}
