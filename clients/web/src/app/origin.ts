/**
 * The page's origin, checked before a websocket is opened: a browser hides the handshake's 403 (an
 * origin the server does not allow) from the page, whose socket only closes, so without this check the
 * page would say "reconnecting…" forever. `GET /api/origin` is asked once per page load.
 */

import { api, originAccepted } from "./api";
import { el } from "./dom";
import { show } from "./page";

let asked: Promise<boolean> | null = null;

/** Does the server's websocket accept this page's origin? (True when the question itself fails: the
 * page's reconnecting then says what it can.) */
export function originOk(): Promise<boolean> {
  asked ??= api.origin().then((answer) => originAccepted(answer, location.origin), () => true);
  return asked;
}

/** The explanation of a refused origin, for the page to show instead of a match. */
export function originRefusal(): HTMLElement {
  return el("div", { id: "origin-refused", class: "refusal", role: "alert" },
    el("strong", {}, "This page cannot reach the game server. "),
    `The server only lets pages from the origins it allows open its websocket, and this page's origin, ${location.origin}, `
      + "is not one of them (a reverse proxy or another port gives a page another origin). ",
    "The server's operator allows it by adding it to ", el("code", {}, "FLOE_ORIGINS"),
    ` (comma-separated, e.g. FLOE_ORIGINS=${location.origin}), or serves the page from an allowed origin.`);
}

/** Open a websocket page (a match played or watched) only once the origin is known to be allowed;
 * otherwise show why it cannot be. */
export async function withAllowedOrigin(open: () => void): Promise<void> {
  const hash = location.hash;
  const ok = await originOk();
  if (location.hash !== hash) return; // another page was asked for meanwhile
  if (ok) {
    open();
    return;
  }
  show(el("h1", {}, "floe"), originRefusal(), el("p", {}, el("a", { href: "#/" }, "Back to the lobby")));
}
