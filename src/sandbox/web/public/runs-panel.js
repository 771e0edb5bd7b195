import { useContext, useEffect, useState } from "preact/hooks";
import { getJson } from "./api.js";
import { html, Workspace } from "./html.js";
import { Icon } from "./icons.js";
import { displayName } from "./message.js";
import { formatMs, formatTokens, runCost, statusLabel } from "./run-format.js";
import { FeedbackCounts, RunTimeline } from "./run-timeline.js";

const STATUSES = ["", "completed", "paused", "stopped", "failed", "running"];
const WINDOWS = [
  ["", "any time"],
  ["1h", "last hour"],
  ["24h", "last 24 hours"],
  ["7d", "last 7 days"],
];

/**
 * Runs as records: admins see every run, anyone else their own (the server decides). The list shows
 * status, requester, request, steps, tokens, cost, wall time and 👍/👎; a run opens its timeline.
 * Reloads when the workspace changes (`tick`), so a run that just answered shows up.
 */
export function RunsPanel({ as, tick, runId, onOpenRun, onClose }) {
  const ws = useContext(Workspace);
  const [status, setStatus] = useState("");
  const [since, setSince] = useState("");
  const [user, setUser] = useState("");
  const isAdmin = Boolean(ws.userById.get(as)?.isAuditAdmin);
  const [list, setList] = useState(null);
  const [detail, setDetail] = useState(null);
  const [error, setError] = useState("");
  const nameOf = (id) => (id ? displayName(ws.userById.get(id)) || id : "someone");

  useEffect(() => {
    if (runId) return;
    let stale = false;
    const timer = setTimeout(() => {
      const filters = { status, since, user: isAdmin ? user : "" };
      const query = Object.entries(filters)
        .filter(([, v]) => v)
        .map(([k, v]) => `&${k}=${encodeURIComponent(v)}`)
        .join("");
      getJson("/sandbox/api/runs", as, query)
        .then((body) => {
          if (stale) return;
          setList(body);
          setError("");
        })
        .catch((err) => !stale && setError(err.message));
    }, 200);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [as, tick, status, since, user, isAdmin, runId]);

  useEffect(() => {
    if (!runId) return setDetail(null);
    let stale = false;
    const timer = setTimeout(() => {
      getJson(`/sandbox/api/runs/${encodeURIComponent(runId)}`, as)
        .then((body) => {
          if (stale) return;
          setDetail(body.run);
          setError("");
        })
        .catch((err) => {
          if (stale) return;
          setDetail(null);
          setError(err.message);
        });
    }, 200);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [as, tick, runId]);

  return html`<aside class="side-pane runs-panel" id="runs-panel" aria-labelledby="runs-title">
    <header class="pane-header">
      <h2 id="runs-title">Runs <span class="pane-sub">${isAdmin ? "everyone's" : "yours"}</span></h2>
      <button type="button" class="icon-button" onClick=${onClose} aria-label="Close runs"><${Icon} name="close" /></button>
    </header>
    ${error ? html`<p class="runs-error" role="alert">⚠ ${error}</p>` : null}
    ${
      runId
        ? html`<div class="runs-body">
            <button type="button" class="runs-back" onClick=${() => onOpenRun(null)}>← All runs</button>
            ${detail ? html`<${RunTimeline} run=${detail} nameOf=${nameOf} />` : error ? null : html`<p class="empty">Loading…</p>`}
          </div>`
        : html`<div class="runs-body">
            <div class="runs-filters">
              <label>Status
                <select value=${status} onChange=${(e) => setStatus(e.currentTarget.value)}>
                  ${STATUSES.map((s) => html`<option key=${s} value=${s}>${s ? statusLabel(s) : "any"}</option>`)}
                </select>
              </label>
              <label>Started
                <select value=${since} onChange=${(e) => setSince(e.currentTarget.value)}>
                  ${WINDOWS.map(([v, label]) => html`<option key=${v} value=${v}>${label}</option>`)}
                </select>
              </label>
              ${
                isAdmin
                  ? html`<label>Requester
                      <select value=${user} onChange=${(e) => setUser(e.currentTarget.value)}>
                        <option value="">anyone</option>
                        ${ws.users.filter((u) => !u.isBot).map((u) => html`<option key=${u.id} value=${u.id}>${displayName(u)}</option>`)}
                      </select>
                    </label>`
                  : null
              }
            </div>
            <ol class="runs-list" aria-label="Runs, newest first">
              ${(list?.runs ?? []).map((run) => html`<${RunRow} key=${run.runId} run=${run} nameOf=${nameOf} onOpen=${() => onOpenRun(run.runId)} />`)}
            </ol>
            ${list && list.runs.length === 0 ? html`<p class="empty">${list.available ? "No runs yet." : "No run records are connected."}</p>` : null}
          </div>`
    }
  </aside>`;
}

function RunRow({ run, nameOf, onOpen }) {
  const tokens = run.promptTokens + run.completionTokens;
  return html`<li class="run-row">
    <button type="button" class="run-open" onClick=${onOpen} aria-label=${`Open run ${run.runId}`}>
      <div class="run-line">
        <span class=${`run-status status-${run.status}`}>${statusLabel(run.status)}</span>
        <span class="run-who">${nameOf(run.userId)}</span>
        <time datetime=${run.createdAt}>${new Date(run.createdAt).toLocaleTimeString()}</time>
      </div>
      ${run.requestText ? html`<div class="run-request">${run.requestText}</div>` : null}
      <div class="run-meta">
        ${run.steps} steps · ${formatTokens(tokens)} tokens · ${runCost(run)} · ${formatMs(run.wallMs)} · <${FeedbackCounts} feedback=${run.feedback} />
      </div>
    </button>
  </li>`;
}
