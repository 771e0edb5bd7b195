import { Thumb } from "./feedback-buttons.js";
import { html } from "./html.js";
import { formatCost, formatMs, formatTokens, runCost, statusLabel } from "./run-format.js";
import { ThreadLink } from "./thread-link.js";

/**
 * One run: its totals and wall-time split, then every step (model calls, tool calls, approval waits,
 * context trimming) as a bar on one time axis from the run's start, with tokens and cost per step and
 * the policy decision on the call where it was made.
 */
export function RunTimeline({ run, nameOf }) {
  const steps = run.timeline ?? [];
  const start = Math.min(Date.parse(run.createdAt), ...steps.map((s) => Date.parse(s.startedAt)));
  const end = Math.max(
    start + Math.max(1, run.wallMs),
    ...steps.map((s) => Date.parse(s.startedAt) + s.durationMs),
  );
  const span = end - start;
  const pct = (ms) => `${Math.max(0, Math.min(100, (ms / span) * 100)).toFixed(2)}%`;
  const tokens = run.promptTokens + run.completionTokens;
  return html`<section class="run-detail" aria-label=${`Run ${run.runId}`}>
    <div class="run-head">
      <span class=${`run-status status-${run.status}`}>${statusLabel(run.status)}</span>
      <span class="run-who">${nameOf(run.userId)}</span>
      <code class="run-id">${run.runId}</code>
      <${ThreadLink} channel=${run.channelId} ts=${run.threadTs} />
    </div>
    ${run.requestText ? html`<p class="run-request">${run.requestText}</p>` : null}
    ${run.stopReason ? html`<p class="run-stop">${run.stopReason}</p>` : null}
    <dl class="run-totals">
      <div><dt>Steps</dt><dd>${run.steps} (${run.modelCalls} model calls)</dd></div>
      <div><dt>Tokens</dt><dd>${formatTokens(tokens)} (${formatTokens(run.promptTokens)} in, ${formatTokens(run.completionTokens)} out)</dd></div>
      <div><dt>Cost</dt><dd class="run-cost">${runCost(run)}</dd></div>
      <div><dt>Wall time</dt><dd>${formatMs(run.wallMs)}: model ${formatMs(run.modelMs)}, tools ${formatMs(run.toolMs)}, approval ${formatMs(run.approvalWaitMs)}, Hermes ${formatMs(run.ownMs)}</dd></div>
      ${run.models?.length ? html`<div><dt>Models</dt><dd>${run.models.join(", ")}</dd></div>` : null}
      <div><dt>Feedback</dt><dd><${FeedbackCounts} feedback=${run.feedback} /></dd></div>
    </dl>
    <div class="timeline-axis" aria-hidden="true">
      <span>0</span><span>${formatMs(span / 2)}</span><span>${formatMs(span)}</span>
    </div>
    <ol class="timeline-rows" aria-label="Steps on one time axis">
      ${steps.map(
        (
          s,
        ) => html`<li key=${s.seq} class=${`timeline-row kind-${s.kind}`} data-kind=${s.kind} data-status=${s.status ?? ""}>
          <div class="timeline-label" title=${`${s.kind} ${s.name ?? ""}`}><span class="step-kind">${s.kind}</span> ${s.name ?? ""}</div>
          <div class="timeline-track">
            <span
              class=${`timeline-bar bar-${s.kind} ${barTone(s)}`}
              style=${{ left: pct(Date.parse(s.startedAt) - start), width: pct(s.durationMs) }}
              title=${`${s.kind} ${s.name ?? ""}: ${formatMs(s.durationMs)}`}
            ></span>
          </div>
          <div class="timeline-facts">${facts(s, nameOf)}</div>
        </li>`,
      )}
    </ol>
    ${steps.length === 0 ? html`<p class="empty">No steps recorded for this run.</p>` : null}
  </section>`;
}

/** 👍 n 👎 m, readable without an emoji font and by screen readers. */
export function FeedbackCounts({ feedback }) {
  return html`<span class="feedback-counts" aria-label=${`${feedback.up} helpful, ${feedback.down} not helpful`}>
    <${Thumb} size=${12} /> ${feedback.up} <${Thumb} down size=${12} /> ${feedback.down}
  </span>`;
}

function barTone(step) {
  if (/error|denied|rejected|expired|failed/.test(step.status ?? "")) return "bad";
  if (step.status === "pending") return "wait";
  return "";
}

/** What happened in a step, in a line: status, time, tokens and cost, policy, approval, error. */
function facts(step, nameOf) {
  const d = step.data ?? {};
  const parts = [];
  if (step.status) parts.push(step.status);
  parts.push(formatMs(step.durationMs));
  if (step.promptTokens != null || step.completionTokens != null)
    parts.push(`${formatTokens(step.promptTokens ?? 0)}+${formatTokens(step.completionTokens ?? 0)} tokens`);
  if (step.costUsd != null) parts.push(formatCost(step.costUsd));
  if (d.finishReason) parts.push(`finish ${d.finishReason}`);
  const policy = d.policy;
  const approval = d.approval;
  return html`${parts.join(" · ")}
    ${policy ? html` <span class=${`policy-chip policy-${policy.decision}`}>policy: ${policy.decision}${policy.reason ? ` (${policy.reason})` : ""}</span>` : null}
    ${approval?.status ? html` <span class="approval-chip">${approval.status}${approval.decidedBy ? ` by ${nameOf(approval.decidedBy)}` : ""}</span>` : null}
    ${d.error ? html`<div class="step-error">${String(d.error)}</div>` : null}
    ${d.resultPreview ? html`<div class="step-preview">${String(d.resultPreview)}</div>` : null}`;
}
