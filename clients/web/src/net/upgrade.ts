/**
 * A page that meets a server of another protocol version reloads itself once (issue 20's rolling
 * upgrades: nodes are replaced one by one, and a page loaded from an old node speaks the old version
 * to a new one, which refuses its `hello` with the fatal error `version`). Reloading fetches the
 * client the server now serves. A second refusal soon after a reload is not reloaded again (the
 * page would loop against a server that cannot serve this client): the error is shown instead.
 */

/** Seconds after a reload in which another `version` refusal is shown, not reloaded. */
export const RELOAD_QUIET_SECONDS = 60;

/** Where the time of the last reload is kept (the tab's session storage). */
export const RELOAD_KEY = "floe.protocol-reload";

/** What the decision needs: a store for the last reload's time, the clock, and the reload itself. */
export interface Upgrade {
  storage: Pick<Storage, "getItem" | "setItem">;
  now(): number;
  reload(): void;
}

/** Reload for a newer protocol unless one was done in the last `RELOAD_QUIET_SECONDS`; true when it
 * reloaded (the caller then shows nothing). */
export function reloadForNewProtocol(upgrade: Upgrade): boolean {
  const last = Number(upgrade.storage.getItem(RELOAD_KEY) ?? "NaN");
  const now = upgrade.now();
  if (Number.isFinite(last) && now - last < RELOAD_QUIET_SECONDS * 1000) return false;
  upgrade.storage.setItem(RELOAD_KEY, String(now));
  upgrade.reload();
  return true;
}

/** The browser's own: the tab's session storage, its clock, `location.reload()`. */
export function browserUpgrade(): Upgrade {
  return { storage: sessionStorage, now: () => Date.now(), reload: () => location.reload() };
}
