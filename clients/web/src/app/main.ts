/**
 * floe in the browser: the entry point. Each change of the URL's hash shows its page (app/routes.ts).
 *
 * `window.__floe` exposes the page's decoded model to the browser tests (tests/web/; app/page.ts).
 */

import { exposeEngine } from "../engine/engine";
import { dailyPage } from "./daily";
import { match } from "./livepage";
import { joinPage, lobby } from "./lobby";
import { withAllowedOrigin } from "./origin";
import { parseRoute } from "./routes";
import { replayPage } from "./replay";
import { rules } from "./screens";
import { settingsPage } from "./settings-screen";
import { PRACTICE } from "../games/registry";

function route(): void {
  const shown = parseRoute(location.hash);
  switch (shown.page) {
    case "play":
      void withAllowedOrigin(() => match(shown.match, "player", shown.bot));
      break;
    case "watch":
      void withAllowedOrigin(() => match(shown.match, "spectator", null));
      break;
    case "replay":
      void replayPage(shown.id);
      break;
    case "join":
      joinPage(shown.invite);
      break;
    case "daily":
      void dailyPage();
      break;
    case "settings":
      settingsPage();
      break;
    case "rules":
      void rules(shown.ruleset);
      break;
    case "payload":
      PRACTICE.get("payload")!.page(shown.daily);
      break;
    case "lobby":
      lobby();
      break;
  }
}

exposeEngine();
window.addEventListener("hashchange", route);
route();
