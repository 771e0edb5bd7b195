import { render } from "preact";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { AgentSessions } from "./agent-sessions.js";
import { postJson } from "./api.js";
import { AssistantPane } from "./assistant-pane.js";
import { AuditPanel } from "./audit-panel.js";
import { Composer } from "./composer.js";
import { ConfirmDialog } from "./confirm-dialog.js";
import { html, Workspace } from "./html.js";
import { displayName } from "./message.js";
import { MessageList } from "./message-list.js";
import { ChannelHeader, HomeView, ThreadPane } from "./panes.js";
import { RunsPanel } from "./runs-panel.js";
import { Sidebar } from "./sidebar.js";
import { channelMessages, isReply, repliesByParent, useLiveWorkspace } from "./store.js";
import { Topbar } from "./topbar.js";

const NARROW = window.matchMedia("(max-width: 800px)");

/** The sandbox workspace as one person (`as`) sees it; switching person re-renders everything. */
function App({ initialAs }) {
  const [as, setAs] = useState(initialAs);
  const [channel, setChannel] = useState(location.hash.slice(1));
  const [thread, setThread] = useState(null);
  const [tab, setTab] = useState("messages");
  const [auditOpen, setAuditOpen] = useState(!NARROW.matches);
  const [assistantOpen, setAssistantOpen] = useState(false);
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const [unread, setUnread] = useState(new Set());
  const [confirmRequest, setConfirmRequest] = useState(null);
  const [toast, setToast] = useState("");
  const [tick, setTick] = useState(0);
  // The Runs panel: closed (null), the list ({}), or one run's timeline ({ runId }).
  const [runs, setRuns] = useState(null);
  const activeChannel = useRef(channel);

  const onEvent = useCallback(
    (event) => {
      setTick((n) => n + 1);
      const m = event.message;
      if (
        event.type === "message_posted" &&
        event.channel !== activeChannel.current &&
        !isReply(m) &&
        m.user !== as
      )
        setUnread((u) => new Set(u).add(event.channel));
    },
    [as],
  );
  const { state, status, error } = useLiveWorkspace(as, onEvent);
  const replies = useMemo(() => (state ? repliesByParent(state) : new Map()), [state]);

  const ws = useMemo(() => {
    if (!state) return null;
    const userById = new Map(state.users.map((u) => [u.id, u]));
    const channelById = new Map(state.channels.map((c) => [c.id, c]));
    return {
      ...state,
      userById,
      channelById,
      openThread: (message) => setThread({ channel: message.channel, ts: message.ts }),
      // A thread named elsewhere (a run, an audit row): its channel, with the thread beside it.
      openThreadIn: (channelId, ts) => {
        setChannel(channelId);
        setTab("messages");
        setAssistantOpen(false);
        setThread({ channel: channelId, ts });
      },
      openChannel: (id) => select(id),
      openRun: (runId) => {
        setThread(null);
        setAssistantOpen(false);
        setRuns({ runId });
      },
      confirm: (confirm) =>
        new Promise((resolve) =>
          setConfirmRequest({
            confirm,
            resolve: (ok) => {
              setConfirmRequest(null);
              resolve(ok);
            },
          }),
        ),
      onAction: ({ message, button }) =>
        postJson("/sandbox/api/actions", {
          as,
          channel: message.channel,
          messageTs: message.ts,
          actionId: button.action_id,
          ...(button.value !== undefined ? { value: button.value } : {}),
        }).catch((err) => setToast(err.message)),
    };
  }, [state, as]);

  // A link naming a conversation opens it; otherwise the DM with the bot, where any message reaches it.
  const current = ws?.channelById.get(channel) ?? (ws && startingChannel(ws));
  activeChannel.current = current?.id;
  const me = ws?.userById.get(as);
  const isAdmin = Boolean(me?.isAuditAdmin);
  const other = current?.isIm ? ws.userById.get(current.dmWith) : undefined;
  const title = current ? (current.isIm ? displayName(other) : `#${current.name}`) : "";
  // In the DM with the bot, the first thing to try.
  const hint = other?.isBot ? ` · type help to see what ${title} can do` : "";

  useEffect(() => {
    if (!current) return;
    if (location.hash !== `#${current.id}`) history.replaceState(null, "", `?as=${as}#${current.id}`);
    document.title = `${title} · ${ws.team.name} · Hermes sandbox`;
    setUnread((u) => (u.has(current.id) ? new Set([...u].filter((id) => id !== current.id)) : u));
  }, [current?.id, as, title, ws?.team.name]);

  useEffect(() => {
    if (!toast) return;
    const timer = setTimeout(() => setToast(""), 6000);
    return () => clearTimeout(timer);
  }, [toast]);

  const homeTab = other?.isBot && tab === "home";
  useEffect(() => {
    if (homeTab) postJson("/sandbox/api/home", { as }).catch((err) => setToast(err.message));
  }, [homeTab, as]);

  function switchUser(id) {
    localStorage.setItem("hermes-sandbox-as", id);
    history.replaceState(null, "", `?as=${id}${location.hash}`);
    setThread(null);
    setAssistantOpen(false);
    setUnread(new Set());
    setAs(id);
  }

  // The menu opened: focus the current channel, so arrow/tab keys start in the list.
  useEffect(() => {
    if (sidebarOpen) document.querySelector(".sidebar-item.active")?.focus();
  }, [sidebarOpen]);

  function select(id) {
    setChannel(id);
    setThread(null);
    setTab("messages");
    setSidebarOpen(false);
  }

  if (!ws || !current) {
    return html`<p class="loading" role="status">${error || "Loading the sandbox workspace…"}</p>`;
  }
  const repliesOf = (m) => replies.get(`${m.channel}:${m.ts}`) ?? [];
  const parent = thread ? state.messages.get(`${thread.channel}:${thread.ts}`) : undefined;
  const send = (body) => postJson("/sandbox/api/messages", { as, channel: current.id, ...body });
  const showAudit = isAdmin && auditOpen && !parent && !runs && !assistantOpen;

  return html`<${Workspace.Provider} value=${ws}>
    <div class="app">
      <a class="skip-link" href="#main">Skip to messages</a>
      <${Topbar}
        as=${as}
        status=${status}
        isAdmin=${isAdmin}
        auditOpen=${showAudit}
        sidebarOpen=${sidebarOpen}
        onSwitch=${switchUser}
        onToggleSidebar=${() => setSidebarOpen(!sidebarOpen)}
        onToggleAudit=${() => {
          setThread(null);
          setRuns(null);
          setAssistantOpen(false);
          setAuditOpen(!showAudit);
        }}
        runsOpen=${Boolean(runs) && !parent}
        onToggleRuns=${() => {
          setThread(null);
          setAssistantOpen(false);
          setRuns(runs && !parent ? null : {});
        }}
        assistantOpen=${assistantOpen}
        onToggleAssistant=${() => {
          setThread(null);
          setRuns(null);
          setAssistantOpen(!assistantOpen);
        }}
      />
      <div class="workspace">
        <${Sidebar}
          channels=${ws.channels}
          active=${current.id}
          unread=${unread}
          open=${sidebarOpen}
          onSelect=${select}
          onClose=${() => {
            setSidebarOpen(false);
            document.querySelector(".menu-button")?.focus();
          }}
        />
        ${sidebarOpen ? html`<div class="scrim" onClick=${() => setSidebarOpen(false)}></div>` : null}
        <main id="main" class="channel-view" aria-labelledby="channel-title" tabindex="-1">
          <${ChannelHeader} title=${title} other=${other} tab=${tab} onTab=${setTab} />
          ${
            homeTab
              ? html`<${HomeView} view=${state.view} botName=${displayName(other)} />`
              : html`<div class="channel-body" id="tab-messages" role=${other?.isBot ? "tabpanel" : undefined} aria-labelledby=${other?.isBot ? "tab-messages-button" : undefined}>
                  ${other?.isBot ? html`<${AgentSessions} key=${as} as=${as} sessions=${state.agentSessions} prompts=${state.agentPrompts} onOpen=${(s) => ws.openThreadIn(s.channel, s.threadTs)} onError=${setToast} />` : null}
                  <${MessageList}
                    key=${`${as}-${current.id}`}
                    messages=${channelMessages(state, current.id)}
                    repliesOf=${repliesOf}
                    label=${`Messages in ${title}`}
                    empty=${
                      current.isIm
                        ? html`This is the start of your conversation with ${title}.${other?.isBot ? html` Type <code>help</code> to see what ${title} can do.` : null}`
                        : `This is the very beginning of ${title}.`
                    }
                  />
                  <${Composer}
                    key=${`${as}-${current.id}`}
                    label=${`Message ${title}`}
                    placeholder=${`Message ${title}${hint}`}
                    onSend=${send}
                    onCommand=${(body) => postJson("/sandbox/api/commands", { as, channel: current.id, ...body })}
                  />
                </div>`
          }
        </main>
        ${
          assistantOpen
            ? html`<${AssistantPane}
                key=${as}
                as=${as}
                viewing=${current.isIm ? undefined : current.id}
                threads=${state.assistantThreads}
                repliesOf=${repliesOf}
                onError=${setToast}
                onClose=${() => setAssistantOpen(false)}
              />`
            : null
        }
        ${
          parent && !assistantOpen
            ? html`<${ThreadPane}
                parent=${parent}
                replies=${repliesOf(parent)}
                channelLabel=${title}
                onReply=${(body) => postJson("/sandbox/api/messages", { as, channel: parent.channel, threadTs: parent.ts, ...body })}
                onClose=${() => {
                  setThread(null);
                  focusComposer();
                }}
              />`
            : null
        }
        ${runs && !parent ? html`<${RunsPanel} as=${as} tick=${tick} runId=${runs.runId} onOpenRun=${(runId) => setRuns(runId ? { runId } : {})} onClose=${() => setRuns(null)} />` : null}
        ${showAudit ? html`<${AuditPanel} as=${as} tick=${tick} onClose=${() => setAuditOpen(false)} />` : null}
      </div>
      <${ConfirmDialog} request=${confirmRequest} />
      <div class=${toast ? "toast visible" : "toast"} role="status" aria-live="polite">${toast}</div>
    </div>
  <//>`;
}

/** Where the page opens when no conversation is named: the DM with the bot, else the first channel. */
function startingChannel(ws) {
  return (
    ws.channels.find((c) => c.isIm && ws.userById.get(c.dmWith)?.isBot) ??
    ws.channels.find((c) => !c.isIm) ??
    ws.channels[0]
  );
}

function focusComposer() {
  requestAnimationFrame(() => document.querySelector("#main textarea")?.focus());
}

/** Who the page acts as: ?as=, then the last choice, then the first person who is not an admin. */
async function startingPerson() {
  const response = await fetch("/sandbox/api/people", { cache: "no-store" });
  const { people } = await response.json();
  const asked = new URLSearchParams(location.search).get("as") ?? localStorage.getItem("hermes-sandbox-as");
  const known = people.find((p) => p.id === asked && !p.isBot);
  const person = known ?? people.find((p) => !p.isBot && !p.isAuditAdmin) ?? people.find((p) => !p.isBot);
  return person?.id ?? "";
}

startingPerson()
  .then((initialAs) => render(html`<${App} initialAs=${initialAs} />`, document.getElementById("app")))
  .catch(() => {
    document.getElementById("app").textContent = "The sandbox server did not answer. Is Hermes running?";
  });
