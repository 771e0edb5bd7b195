import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { getJson } from "./api.js";
import { html, Workspace } from "./html.js";
import { Icon } from "./icons.js";
import { displayName } from "./message.js";
import { ThreadLink } from "./thread-link.js";

const REFRESH_MS = 3000;

/**
 * The audit log for admins: newest rows first and whether the hash chain verifies. Refreshes every
 * few seconds and whenever the workspace changes (`tick`).
 */
export function AuditPanel({ as, tick, onClose }) {
  const ws = useContext(Workspace);
  const [feed, setFeed] = useState(null);
  const [error, setError] = useState("");
  const [refresh, setRefresh] = useState(0);
  // Reading the audit log is audited: once when the panel opens (or the reader changes), not per refresh.
  const recordedFor = useRef(null);

  useEffect(() => {
    const timer = setInterval(() => setRefresh((n) => n + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  // A burst of changes (a run posting progress) loads the feed once, shortly after the last one.
  useEffect(() => {
    let stale = false;
    const timer = setTimeout(() => {
      const opening = recordedFor.current !== as;
      getJson("/sandbox/api/audit", as, opening ? "&opened=1" : "")
        .then((body) => {
          if (opening) recordedFor.current = as;
          if (stale) return;
          setFeed(body);
          setError("");
        })
        .catch((err) => !stale && setError(err.message));
    }, 200);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [as, tick, refresh]);

  const name = (id) => (id ? displayName(ws.userById.get(id)) || id : "");
  return html`<aside class="side-pane audit-panel" id="audit-panel" aria-labelledby="audit-title">
    <header class="pane-header">
      <h2 id="audit-title">Audit log</h2>
      <button type="button" class="icon-button" onClick=${onClose} aria-label="Close audit log"><${Icon} name="close" /></button>
    </header>
    <p class=${`audit-status ${feed?.available && !error ? (feed.verify?.ok ? "ok" : "broken") : ""}`} role="status">${verifyLine(feed, error)}</p>
    <ol class="audit-rows" aria-label="Audit rows, newest first">
      ${(feed?.rows ?? []).map(
        (row) => html`<li key=${row.id} class="audit-row">
          <div class="audit-line">
            <span class="audit-id">#${row.id}</span>
            <span class=${`audit-action ${actionClass(row.action)}`}>${row.action.replace(/^tool\./, "")}</span>
            <code class="audit-tool">${row.tool}</code>
            ${row.runId && ws.openRun ? html`<button type="button" class="audit-run-link" onClick=${() => ws.openRun(row.runId)} aria-label=${`Open run ${row.runId}`}>run ↗</button>` : null}
            <${ThreadLink} channel=${row.channelId} ts=${row.threadTs} />
          </div>
          <div class="audit-meta">
            <time datetime=${new Date(row.createdAt).toISOString()}>${new Date(row.createdAt).toLocaleTimeString()}</time>
            ${row.userId ? html` · ${name(row.userId)}` : null}
            ${row.actorId && row.actorId !== row.userId ? html` · decided by ${name(row.actorId)}` : null}
            ${row.durationMs != null ? html` · ${row.durationMs} ms` : null}
          </div>
          ${row.error ? html`<div class="audit-error">${row.error}</div>` : null}
          ${row.resultSummary ? html`<div class="audit-summary">${row.resultSummary}</div>` : null}
        </li>`,
      )}
    </ol>
    ${feed && feed.rows.length === 0 ? html`<p class="empty">No audit rows yet.</p>` : null}
  </aside>`;
}

function verifyLine(feed, error) {
  if (error) return `⚠ ${error}`;
  if (!feed) return "Loading…";
  if (!feed.available) return "No audit log is connected.";
  if (feed.verify?.ok)
    return `✓ Hash chain verified${feed.verify.rows != null ? ` (${feed.verify.rows} rows)` : ""}`;
  return `✗ Hash chain broken at row ${feed.verify?.rowId ?? "?"}${feed.verify?.reason ? `: ${feed.verify.reason}` : ""}`;
}

function actionClass(action) {
  if (/executed|approved/.test(action)) return "good";
  if (/denied|rejected|failed|expired/.test(action)) return "bad";
  if (/approval_requested/.test(action)) return "wait";
  return "";
}
