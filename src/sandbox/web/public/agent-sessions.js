import { useEffect, useState } from "preact/hooks";
import { postJson } from "./api.js";
import { html } from "./html.js";

const STATUS_LABEL = {
  processing: "Working…",
  active: "Answered",
  suspended: "Waiting for approval",
  closed: "Stopped",
};

/**
 * The agent's Messages tab (Slack's agent view): opening it tells the bot (`app_home_opened`, tab
 * `messages`), which may offer suggested prompts, shown as chips. A chip or the "New session" field
 * writes to the agent with what the person looks at (`message.im` with `app_context`): each such
 * message is a session, listed with its title and status; a session that is processing has a Stop
 * button (`agent_session_stopped`).
 */
export function AgentSessions({ as, sessions, prompts, viewing, onOpen, onError }) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);

  useEffect(() => {
    postJson("/sandbox/api/agent/opened", { as }).catch((err) => onError(err.message));
  }, [as]);

  async function ask(message) {
    setSending(true);
    try {
      await postJson("/sandbox/api/agent/messages", { as, text: message, ...(viewing ? { viewing } : {}) });
      setText("");
    } catch (err) {
      onError(err.message);
    } finally {
      setSending(false);
    }
  }

  const stop = (s) =>
    postJson("/sandbox/api/agent/stop", { as, channel: s.channel, threadTs: s.threadTs }).catch((err) =>
      onError(err.message),
    );
  const list = [...sessions.values()].sort((a, b) => Number(b.threadTs) - Number(a.threadTs));

  return html`<section class="agent-sessions" aria-label="Agent sessions">
    ${
      prompts?.prompts?.length
        ? html`<div class="agent-prompts" role="group" aria-label=${prompts.title ?? "Suggested prompts"}>
            ${prompts.title ? html`<span class="agent-prompts-title">${prompts.title}</span>` : null}
            ${prompts.prompts.map(
              (p) => html`<button key=${p.title} type="button" class="agent-chip" title=${p.message}
                disabled=${sending} onClick=${() => ask(p.message)}>${p.title}</button>`,
            )}
          </div>`
        : null
    }
    <form class="agent-new" onSubmit=${(e) => {
      e.preventDefault();
      if (text.trim()) void ask(text.trim());
    }}>
      <input type="text" aria-label="New session" placeholder="Start a new session…" value=${text}
        onInput=${(e) => setText(e.currentTarget.value)} disabled=${sending} />
      <button type="submit" disabled=${sending || !text.trim()}>Send</button>
    </form>
    ${
      list.length
        ? html`<ul class="agent-session-list">
            ${list.map(
              (s) => html`<li key=${s.threadTs} class=${`agent-session ${s.status}`}>
                <button type="button" class="agent-session-title" onClick=${() => onOpen(s)}>${s.title ?? "New session"}</button>
                <span class="agent-session-status" role="status">${STATUS_LABEL[s.status] ?? s.status}</span>
                ${
                  s.status === "processing"
                    ? html`<button type="button" class="agent-stop" onClick=${() => stop(s)}
                        aria-label=${`Stop ${s.title ?? "session"}`}>Stop</button>`
                    : null
                }
              </li>`,
            )}
          </ul>`
        : null
    }
  </section>`;
}
