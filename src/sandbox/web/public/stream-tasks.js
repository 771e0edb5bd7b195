import { html } from "./html.js";
import { Mrkdwn } from "./mrkdwn-view.js";

const STATUS_LABEL = {
  pending: "Waiting",
  in_progress: "Running",
  complete: "Done",
  error: "Failed",
};

/**
 * The task list of a streamed message (chat.startStream `task_update` chunks), as Slack shows it
 * above the text: one row per task with its state, a plan title in plan mode. Updated in place as
 * appends arrive.
 */
export function StreamTasks({ stream }) {
  if (!stream) return null;
  const tasks = Array.isArray(stream.tasks) ? stream.tasks : [];
  return html`<div class="stream-tasks" data-stream-state=${stream.state}>
    ${stream.plan_title ? html`<div class="stream-plan-title">${stream.plan_title}</div>` : null}
    ${
      tasks.length > 0
        ? html`<ol class="task-list" aria-label="Steps">
            ${tasks.map(
              (
                t,
              ) => html`<li key=${t.id} class=${`task task-${t.status}`} data-task-id=${t.id} data-status=${t.status}>
                <span class="task-dot" aria-hidden="true"></span>
                <span class="task-title"><${Mrkdwn} text=${t.title} /></span>
                <span class="task-status">${STATUS_LABEL[t.status] ?? t.status}${t.details ? ` · ${t.details}` : ""}</span>
              </li>`,
            )}
          </ol>`
        : null
    }
  </div>`;
}

/** Under a message that still streams: it is being written. */
export function StreamLive({ stream }) {
  return stream?.state === "streaming" ? html`<div class="stream-live" role="status">Writing…</div>` : null;
}
