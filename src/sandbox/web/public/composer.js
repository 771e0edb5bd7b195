import { useContext, useRef, useState } from "preact/hooks";
import {
  AttachButtons,
  attachmentPayload,
  MAX_FILES,
  PendingAttachments,
  readAttachment,
  sampleAttachment,
} from "./attachments.js";
import { html, Workspace } from "./html.js";
import { Icon } from "./icons.js";
import { toSlackText } from "./mrkdwn.js";

export const COMMANDS = [
  { text: "/hermes help", hint: "What Hermes can do" },
  { text: "/hermes tools", hint: "The tools you may use" },
  { text: "/hermes whoami", hint: "Your permission level" },
  { text: "/hermes approvals", hint: "Approvals waiting for you" },
  { text: "/hermes audit", hint: "Recent audit rows (admins)" },
];

let composerIds = 0;

/**
 * The message box: Enter sends, Shift+Enter starts a new line. `@` suggests people (the chosen
 * name shows as @name and is sent as <@U…>), `#` suggests channels (shown as #name, sent as
 * <#C…|name>), `/` at the start suggests the /hermes commands. The server then attaches the
 * rich_text block with `user` and `channel` elements, as Slack's client does. A `/hermes` command's
 * text is encoded as Slack encodes it for a command with `should_escape: true`: a chosen person as
 * <@U…|handle>, a channel as <#C…|name>.
 * Files are attached with the paperclip, the "Sample files" menu, by dropping them on the box or by
 * pasting an image; each shows before sending and can be removed.
 * `onSend({ text, files? })` or `onCommand({ command, text })` resolve once the server took it.
 */
export function Composer({ label, placeholder, onSend, onCommand, commands = true }) {
  const ws = useContext(Workspace);
  const [text, setText] = useState("");
  const [error, setError] = useState("");
  const [query, setQuery] = useState(null);
  const [active, setActive] = useState(0);
  const [attachments, setAttachments] = useState([]);
  const [dragging, setDragging] = useState(false);
  const area = useRef(null);
  const ids = useRef(null);
  if (!ids.current) ids.current = ++composerIds;
  const id = `composer-${ids.current}`;
  const suggestions = query ? suggest(query, ws, commands) : [];
  const open = suggestions.length > 0;

  function update(value, caret) {
    setText(value);
    setError("");
    setQuery(queryAt(value, caret));
    setActive(0);
  }

  function choose(item) {
    const el = area.current;
    const caret = el?.selectionStart ?? text.length;
    const before = text.slice(0, caret);
    const sigil = query.kind === "channel" ? "#" : "@";
    const start = query.kind === "command" ? 0 : before.lastIndexOf(sigil);
    const insert = query.kind === "command" ? `${item.text} ` : `${sigil}${item.name} `;
    const next = text.slice(0, start) + insert + text.slice(caret);
    // The text and caret are set now, not after the next render: a key typed right after choosing
    // must land after the inserted name (it used to land before the caret moved, at the end).
    if (el) {
      el.value = next;
      el.focus();
      el.setSelectionRange(start + insert.length, start + insert.length);
    }
    setText(next);
    setQuery(null);
  }

  function attach(items) {
    setError("");
    const room = MAX_FILES - attachments.length;
    if (items.length > room) {
      setError(`A message can carry at most ${MAX_FILES} files.`);
      return;
    }
    setAttachments((list) => [...list, ...items]);
  }

  async function addFiles(files) {
    if (files.length === 0) return;
    try {
      attach(await Promise.all(files.map(readAttachment)));
    } catch (err) {
      setError(err.message);
    }
  }

  function drop(event) {
    event.preventDefault();
    setDragging(false);
    addFiles([...(event.dataTransfer?.files ?? [])]);
  }

  function dragOver(event) {
    if (![...(event.dataTransfer?.types ?? [])].includes("Files")) return;
    event.preventDefault();
    setDragging(true);
  }

  function paste(event) {
    const files = [...(event.clipboardData?.files ?? [])];
    if (files.length === 0) return;
    event.preventDefault();
    addFiles(files);
  }

  async function submit(event) {
    event?.preventDefault();
    const typed = text.trim();
    const files = attachments;
    if (!typed && files.length === 0) return;
    const command = /^\/(\S+)\s*([\s\S]*)$/.exec(typed);
    if (command && commands && files.length > 0) {
      setError("A /hermes command cannot carry files: remove them, or write a message instead.");
      return;
    }
    setText("");
    setQuery(null);
    setAttachments([]);
    try {
      if (command && commands) {
        if (command[1] !== "hermes")
          throw new Error(`/${command[1]} is not a command here. Try /hermes help.`);
        await onCommand({
          command: "/hermes",
          text: toSlackText(command[2] ?? "", ws.users, ws.channels, { command: true }),
        });
      } else {
        const sent = { text: toSlackText(typed, ws.users, ws.channels) };
        await onSend(files.length > 0 ? { ...sent, files: files.map(attachmentPayload) } : sent);
      }
    } catch (err) {
      setText(typed);
      setAttachments(files);
      setError(err.message);
    }
  }

  function keyDown(event) {
    if (open && ["ArrowDown", "ArrowUp"].includes(event.key)) {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((active + step + suggestions.length) % suggestions.length);
    } else if (open && (event.key === "Enter" || event.key === "Tab") && !event.shiftKey) {
      event.preventDefault();
      choose(suggestions[active]);
    } else if (open && event.key === "Escape") {
      event.preventDefault();
      setQuery(null);
    } else if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      submit(event);
    }
  }

  const optionId = (i) => `${id}-option-${i}`;
  return html`<form class="composer" onSubmit=${submit}>
    <label class="visually-hidden" for=${id}>${label}</label>
    ${
      open
        ? html`<ul class="suggestions" id=${`${id}-list`} role="listbox" aria-label=${LIST_LABELS[query.kind]}>
            ${suggestions.map(
              (item, i) => html`<li
                key=${item.key}
                id=${optionId(i)}
                role="option"
                aria-selected=${i === active ? "true" : "false"}
                class=${i === active ? "suggestion active" : "suggestion"}
                onMouseDown=${(e) => {
                  e.preventDefault();
                  choose(item);
                }}
              >
                ${item.avatar ? html`<img class="avatar-xs" src=${item.avatar} alt="" />` : html`<span class="slash" aria-hidden="true">${item.icon ?? "/"}</span>`}
                <span class="suggestion-main">${item.label}</span>
                <span class="suggestion-hint">${item.hint}</span>
              </li>`,
            )}
          </ul>`
        : null
    }
    <div
      class=${dragging ? "composer-box dragging" : "composer-box"}
      onDragOver=${dragOver}
      onDragLeave=${() => setDragging(false)}
      onDrop=${drop}
    >
      <${PendingAttachments}
        attachments=${attachments}
        onRemove=${(key) => setAttachments((list) => list.filter((a) => a.key !== key))}
      />
      <textarea
        id=${id}
        ref=${area}
        rows="1"
        value=${text}
        placeholder=${placeholder}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded=${open ? "true" : "false"}
        aria-controls=${open ? `${id}-list` : undefined}
        aria-activedescendant=${open ? optionId(active) : undefined}
        aria-describedby=${`${id}-hint`}
        onInput=${(e) => update(e.currentTarget.value, e.currentTarget.selectionStart)}
        onKeyDown=${keyDown}
        onClick=${(e) => setQuery(queryAt(text, e.currentTarget.selectionStart))}
        onBlur=${() => setQuery(null)}
        onPaste=${paste}
      ></textarea>
      <${AttachButtons} id=${id} onFiles=${addFiles} onSample=${(s) => attach([sampleAttachment(s)])} />
      <button type="submit" class="send" disabled=${!text.trim() && attachments.length === 0} aria-label="Send message">
        <${Icon} name="send" />
      </button>
    </div>
    ${error ? html`<p class="composer-error" role="alert">${error}</p>` : null}
    <p class="composer-hint" id=${`${id}-hint`}>
      <kbd>Enter</kbd> to send · <kbd>Shift</kbd>+<kbd>Enter</kbd> new line · <kbd>@</kbd> mention · <kbd>#</kbd> channel${commands ? html` · <kbd>/</kbd> commands` : null} · drop or paste files
    </p>
  </form>`;
}

const LIST_LABELS = { command: "Commands", mention: "People", channel: "Channels" };

/** What the text before the caret asks for: `@li` → people, `#gen` → channels, `/her` at the very start → commands. */
function queryAt(value, caret) {
  const before = value.slice(0, caret ?? value.length);
  const mention = /(?:^|\s)@([\p{L}\p{N}._-]*)$/u.exec(before);
  if (mention) return { kind: "mention", text: (mention[1] ?? "").toLowerCase() };
  const channel = /(?:^|\s)#([\p{L}\p{N}._-]*)$/u.exec(before);
  if (channel) return { kind: "channel", text: (channel[1] ?? "").toLowerCase() };
  if (/^\/[\w-]*(?: [\w-]*)?$/.test(before)) return { kind: "command", text: before.toLowerCase() };
  return null;
}

/** Does any word of `name` (or the whole of it) start with what was typed? "ming" finds Li Ming. */
const startsWord = (name, typed) =>
  Boolean(name) && [name, ...name.split(/[\s._-]+/)].some((part) => part.toLowerCase().startsWith(typed));

function suggest(query, ws, commands) {
  if (query.kind === "command") {
    if (!commands) return [];
    // A command typed out in full needs no suggestion: Enter sends it.
    return COMMANDS.filter((c) => c.text.startsWith(query.text) && c.text !== query.text).map((c) => ({
      key: c.text,
      text: c.text,
      label: c.text,
      hint: c.hint,
    }));
  }
  if (query.kind === "channel") {
    return ws.channels
      .filter((c) => !c.isIm && startsWord(c.name, query.text))
      .sort(
        (a, b) =>
          Number(b.name.startsWith(query.text)) - Number(a.name.startsWith(query.text)) ||
          a.name.localeCompare(b.name),
      )
      .slice(0, 8)
      .map((c) => ({
        key: c.id,
        name: c.name,
        label: `#${c.name}`,
        hint: c.isPrivate ? "Private channel" : "Channel",
        icon: "#",
      }));
  }
  return ws.users
    .filter((u) => [u.name, u.displayName, u.realName].some((n) => startsWord(n, query.text)))
    .sort((a, b) => Number(b.isBot) - Number(a.isBot) || a.realName.localeCompare(b.realName))
    .slice(0, 8)
    .map((u) => ({
      key: u.id,
      name: u.name,
      label: u.realName,
      hint: u.isBot ? `@${u.name} · App` : `@${u.name}`,
      avatar: u.avatar,
    }));
}
