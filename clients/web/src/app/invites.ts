/**
 * A room's invitation link, kept in the tab's session storage by the lobby that made the room, so the
 * creator's match page can show it again while it waits for the friend.
 */

const STORAGE_KEY = "floe.invites";

function kept(): Record<string, string> {
  try {
    const value = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "{}") as unknown;
    return value !== null && typeof value === "object" ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** Keep the invitation link of the room `match` (the newest few rooms only). */
export function rememberInvite(match: string, link: string): void {
  const links = Object.entries(kept()).slice(-4);
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(Object.fromEntries([...links, [match, link]])));
  } catch {
    // Storage refused: the waiting page goes without the link.
  }
}

/** The invitation link of the room `match`, if this tab made it. */
export function inviteFor(match: string): string | null {
  return kept()[match] ?? null;
}
