/**
 * floe in the browser: the entry point. Each change of the URL's hash shows its page (app/routes.ts).
 *
 * `window.__floe` exposes the page's decoded model to the browser tests (tests/web/; app/page.ts).
 */

import { match } from "./livepage";
import { lobby } from "./lobby";
import { parseRoute } from "./routes";
import { join, replay, rules } from "./screens";

function route(): void {
  const shown = parseRoute(location.hash);
  switch (shown.page) {
    case "play":
      match(shown.match, "player", shown.bot);
      break;
    case "watch":
      match(shown.match, "spectator", null);
      break;
    case "replay":
      void replay(shown.id);
      break;
    case "join":
      void join(shown.invite);
      break;
    case "rules":
      void rules();
      break;
    case "lobby":
      lobby();
      break;
  }
}

window.addEventListener("hashchange", route);
route();
