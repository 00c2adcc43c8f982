/**
 * The page's frame: one screen shown at a time in `#app` (the one before it cleaned up), the test
 * hooks of the screen shown (`window.__floe`, read by tests/web and bench/browser_fps.py), and what
 * every screen shares: the websocket's address, error text, API calls with the guest's token.
 */

import { ApiError, dropToken, guest } from "./api";
import type { TestHooks } from "./match";

declare global {
  interface Window {
    __floe?: TestHooks & { page: string };
  }
}

let cleanup: (() => void) | null = null;

/** Show a screen's nodes in place of the last screen (whose cleanup runs). */
export function show(...nodes: Node[]): void {
  cleanup?.();
  cleanup = null;
  window.__floe = undefined;
  document.getElementById("app")!.replaceChildren(...nodes);
}

/** What to do when the screen shown now is left (stop its loops, close its socket). */
export function onLeave(leave: () => void): void {
  cleanup = leave;
}

/** The shown screen's hooks for the browser tests. */
export function exposeForTests(hooks: TestHooks & { page: string }): void {
  window.__floe = hooks;
}

export function wsUrl(): string {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}

export function errorText(error: unknown): string {
  return error instanceof ApiError ? `${error.message} (${error.code})` : String(error);
}

/** Call the API with the guest's token, renewing it once if the server refused it. */
export async function withToken<T>(call: (token: string) => Promise<T>): Promise<T> {
  const nameInput = document.getElementById("name") as HTMLInputElement | null;
  try {
    return await call((await guest(nameInput?.value)).token);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      dropToken();
      return call((await guest(nameInput?.value)).token);
    }
    throw error;
  }
}
