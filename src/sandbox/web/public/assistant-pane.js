import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { postJson } from "./api.js";
import { Composer } from "./composer.js";
import { html, Workspace } from "./html.js";
import { Icon } from "./icons.js";
import { MessageList } from "./message-list.js";

/**
 * Slack's assistant split view: a thread in the person's DM with Hermes, beside the channel they are
 * viewing. Opening it starts a new thread (Hermes greets it and suggests prompts, shown as chips: a
 * click sends that prompt). While a turn runs, the status line says what Hermes is doing ("is running
 * create_ticket…"); the title is the one Hermes set. Looking at another channel tells Hermes.
 */
export function AssistantPane({ as, viewing, threads, repliesOf, onError, onClose }) {
  const ws = useContext(Workspace);
  const [activeKey, setActiveKey] = useState(null);
  const [opening, setOpening] = useState(false);
  const told = useRef(viewing);
  const thread = activeKey ? threads.get(activeKey) : undefined;

  async function newThread() {
    setOpening(true);
    try {
      const { thread: t } = await postJson("/sandbox/api/assistant/threads", { as, viewing });
      told.current = viewing;
      setActiveKey(`${t.channel}:${t.threadTs}`);
    } catch (err) {
      onError(err.message);
    } finally {
      setOpening(false);
    }
  }

  useEffect(() => {
    if (!activeKey && !opening) void newThread();
  }, []);

  // The person looks at another channel while the thread is open: Slack tells the app.
  useEffect(() => {
    if (!thread || told.current === viewing) return;
    told.current = viewing;
    postJson("/sandbox/api/assistant/context", {
      as,
      channel: thread.channel,
      threadTs: thread.threadTs,
      viewing,
    }).catch((err) => onError(err.message));
  }, [viewing, thread?.threadTs]);

  const onKeyDown = (event) => {
    if (event.key === "Escape" && !event.defaultPrevented) onClose();
  };
  const root = thread ? { channel: thread.channel, ts: thread.threadTs } : undefined;
  const messages = root ? repliesOf(root) : [];
  const asked = messages.some((m) => m.user === as);
  const send = (body) =>
    postJson("/sandbox/api/messages", { as, channel: thread.channel, threadTs: thread.threadTs, ...body });
  const prompts = !asked ? (thread?.prompts?.prompts ?? []) : [];

  return html`<aside class="side-pane assistant-pane" aria-labelledby="assistant-title" onKeyDown=${onKeyDown}>
    <header class="pane-header">
      <h2 id="assistant-title">${ws.userById.get(ws.bot.userId)?.realName ?? "Hermes"}
        <span class="pane-sub assistant-title">${thread?.title ?? "New chat"}</span>
      </h2>
      <div class="assistant-actions">
        <button type="button" class="assistant-new" onClick=${newThread} disabled=${opening}>New chat</button>
        <button type="button" class="icon-button" onClick=${onClose} aria-label="Close assistant"><${Icon} name="close" /></button>
      </div>
    </header>
    ${
      thread
        ? html`<${MessageList}
            messages=${messages}
            label="Assistant thread"
            inThread
            empty=""
          />`
        : html`<p class="assistant-opening" role="status">Opening a new chat…</p>`
    }
    ${
      prompts.length > 0
        ? html`<div class="assistant-prompts" role="group" aria-label=${thread.prompts.title ?? "Suggested prompts"}>
            ${thread.prompts.title ? html`<p class="assistant-prompts-title">${thread.prompts.title}</p>` : null}
            ${prompts.map(
              (p) => html`<button
                key=${p.title}
                type="button"
                class="assistant-chip"
                title=${p.message}
                onClick=${() => send({ text: p.message }).catch((err) => onError(err.message))}
              >${p.title}</button>`,
            )}
          </div>`
        : null
    }
    ${
      thread?.status
        ? html`<p class="assistant-status" role="status" aria-live="polite">
            <span class="assistant-dots" aria-hidden="true"></span>
            <span>${ws.userById.get(ws.bot.userId)?.realName ?? "Hermes"} ${thread.status}</span>
            ${thread.loadingMessages?.[0] ? html`<span class="assistant-loading">${thread.loadingMessages[0]}</span>` : null}
          </p>`
        : null
    }
    ${
      thread
        ? html`<${Composer}
            key=${`${as}-${thread.threadTs}`}
            label="Message Hermes"
            placeholder="Ask Hermes…"
            commands=${false}
            onSend=${send}
          />`
        : null
    }
  </aside>`;
}
