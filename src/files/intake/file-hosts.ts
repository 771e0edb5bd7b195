/**
 * Where Hermes downloads a file's bytes from, with its bot token: Slack's file hosts over HTTPS, or
 * the origin of `SLACK_API_URL` when one is set (the emulator, a proxy). Any other URL is refused,
 * whatever an event or an API answer names: the token never leaves for another host.
 */
const SLACK_FILE_HOST = /^files(-[a-z0-9]+)?\.slack\.com$/;

export function isAllowedFileUrl(url: string, slackApiUrl?: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.username || u.password) return false;
  if (u.protocol === "https:" && SLACK_FILE_HOST.test(u.hostname) && (u.port === "" || u.port === "443"))
    return true;
  if (!slackApiUrl) return false;
  try {
    return new URL(slackApiUrl).origin === u.origin;
  } catch {
    return false;
  }
}
