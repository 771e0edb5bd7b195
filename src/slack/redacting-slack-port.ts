import type { Redactor } from "../policy/redact.ts";
import type { SlackPort } from "../tools/slack-port.ts";

/**
 * The SlackPort tools use, with credentials cut out of everything they post or upload (configured
 * secret values in any spelling, tokens, keys, passwords). A model that read a secret in a tool
 * result, or an injection that asks for one, cannot get it into Slack through `send_message`, a
 * ticket notification or a report file. The approval card shows the same `[secret]` placeholders,
 * so what an approver saw is what is sent. Personal data is left alone: it may be the point.
 */
export function redactingSlackPort(port: SlackPort, redactor: Redactor): SlackPort {
  const text = (value: string) => redactor.redactSecrets(value);
  return {
    postMessage: (input) =>
      port.postMessage({
        ...input,
        text: text(input.text),
        ...(input.blocks ? { blocks: redactor.redactSecretsDeep(input.blocks) as unknown[] } : {}),
      }),
    uploadFile: (input) =>
      port.uploadFile({
        ...input,
        filename: text(input.filename),
        ...(input.title === undefined ? {} : { title: text(input.title) }),
        ...(input.initialComment === undefined ? {} : { initialComment: text(input.initialComment) }),
        content: redactContent(input.content, text),
      }),
    isMember: (channelId, userId) => port.isMember(channelId, userId),
    getUser: (userId, options) => port.getUser(userId, options),
    loadedUsers: () => port.loadedUsers(),
    loadedChannels: () => port.loadedChannels(),
    loadedUserGroups: () => port.loadedUserGroups(),
    directoryLoads: () => port.directoryLoads(),
    userById: (userId) => port.userById(userId),
    channelById: (channelId) => port.channelById(channelId),
    getChannel: (channelId) => port.getChannel(channelId),
  };
}

/** Text content is scanned; binary content (a PNG chart) is passed on as it is. */
function redactContent(content: Buffer | string, text: (value: string) => string): Buffer | string {
  if (typeof content === "string") return text(content);
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(content);
  } catch {
    return content;
  }
  const redacted = text(decoded);
  return redacted === decoded ? content : Buffer.from(redacted, "utf8");
}
