import { useContext } from "preact/hooks";
import { html, Workspace } from "./html.js";
import { Icon } from "./icons.js";
import { displayName } from "./message.js";

/** The bar on top: menu (narrow screens), workspace, model in use, "you are" switcher, audit toggle. */
export function Topbar({
  as,
  status,
  isAdmin,
  auditOpen,
  sidebarOpen,
  onSwitch,
  onToggleSidebar,
  onToggleAudit,
  runsOpen,
  onToggleRuns,
  assistantOpen,
  onToggleAssistant,
}) {
  const ws = useContext(Workspace);
  const people = ws.users.filter((u) => !u.isBot);
  return html`<header class="topbar">
    <button
      type="button"
      class="menu-button icon-button"
      aria-controls="sidebar"
      aria-expanded=${sidebarOpen ? "true" : "false"}
      aria-label="Channels and direct messages"
      onClick=${onToggleSidebar}
    >
      <${Icon} name="menu" size=${20} />
    </button>
    <div class="brand">
      <span class="brand-mark" aria-hidden="true">H</span>
      <span class="brand-name">${ws.team.name}</span>
      <span class="brand-sub">Hermes sandbox</span>
    </div>
    <p class="model-banner" title=${ws.modelInfo}>
      <span class=${`live-dot ${status}`} role="img" aria-label=${status === "live" ? "Live" : "Reconnecting"}></span>
      <span class="model-text">${ws.modelInfo}</span>
    </p>
    <label class="switcher">
      <span>You are</span>
      <select value=${as} onChange=${(e) => onSwitch(e.currentTarget.value)}>
        ${people.map(
          (p) =>
            html`<option key=${p.id} value=${p.id}>${displayName(p)}${p.isAuditAdmin ? " (admin)" : ""}</option>`,
        )}
      </select>
    </label>
    <button
      type="button"
      class="audit-toggle runs-toggle"
      aria-pressed=${runsOpen ? "true" : "false"}
      aria-controls="runs-panel"
      onClick=${onToggleRuns}
    >Runs</button>
    <button
      type="button"
      class="audit-toggle assistant-toggle"
      aria-pressed=${assistantOpen ? "true" : "false"}
      onClick=${onToggleAssistant}
    >Ask Hermes</button>
    ${
      isAdmin
        ? html`<button
            type="button"
            class="audit-toggle"
            aria-pressed=${auditOpen ? "true" : "false"}
            aria-controls="audit-panel"
            onClick=${onToggleAudit}
          >Audit log</button>`
        : null
    }
  </header>`;
}
