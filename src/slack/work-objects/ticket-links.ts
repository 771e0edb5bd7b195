/** Where a ticket's link points when `HERMES_TICKET_URL_BASE` is not set (the manifest's placeholder host). */
export const DEFAULT_TICKET_URL_BASE = "https://hermes.example.com/tickets";

/** A ticket's web address and back: `<base>/<id>`, e.g. `https://hermes.example.com/tickets/42`. */
export interface TicketLinks {
  /** The base without a trailing slash. */
  readonly base: string;
  /** The host Slack unfurls (the manifest's `unfurl_domains` entry). */
  readonly domain: string;
  urlOf(id: number): string;
  /** The ticket number a link names, or undefined for any other link (another host, path or form). */
  idOf(url: string): number | undefined;
}

export function ticketLinks(base: string = DEFAULT_TICKET_URL_BASE): TicketLinks {
  const trimmed = base.replace(/\/+$/, "");
  const parsed = new URL(trimmed);
  const basePath = parsed.pathname.replace(/\/+$/, "");
  return {
    base: trimmed,
    domain: parsed.hostname,
    urlOf: (id) => `${trimmed}/${id}`,
    idOf(url) {
      if (!URL.canParse(url)) return undefined;
      const u = new URL(url);
      if (u.origin !== parsed.origin) return undefined;
      const m = /^\/(\d{1,10})\/?$/.exec(u.pathname.slice(basePath.length));
      if (!u.pathname.startsWith(`${basePath}/`) || !m) return undefined;
      const id = Number(m[1]);
      return id > 0 && id <= 2_147_483_647 ? id : undefined;
    },
  };
}
