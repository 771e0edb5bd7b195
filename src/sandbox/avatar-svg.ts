import type { SandboxUser } from "./workspace-types.ts";

const COLORS = ["#4a154b", "#1264a3", "#2bac76", "#e01e5a", "#ecb22e", "#36c5f0", "#7c3085", "#0b4c8c"];

/** A square avatar with the user's initials, so the sandbox needs no images from anywhere. */
export function avatarSvg(user: SandboxUser): string {
  const hash = [...user.id].reduce((sum, ch) => sum + ch.charCodeAt(0), 0);
  const color = COLORS[hash % COLORS.length] ?? "#4a154b";
  const initials = user.profile.initials.replace(/[<>&"]/g, "");
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48">',
    `<rect width="48" height="48" rx="8" fill="${color}"/>`,
    '<text x="24" y="31" font-family="sans-serif" font-size="18" font-weight="700" fill="#fff" text-anchor="middle">',
    `${initials}</text></svg>`,
  ].join("");
}
