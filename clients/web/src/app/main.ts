/**
 * floe in the browser: the pages and their routes (the URL's hash).
 *
 *   #/                 the lobby: name, play a bot, a private room, live matches, recent replays
 *   #/join/{invite}    take the free seat of a room shared by link
 *   #/play/{match}     play your seat          #/watch/{match}   spectate
 *   #/replay/{id}      the replay viewer        #/rules           the rule compendium
 *
 * `window.__floe` exposes the page's decoded model to the browser tests (tests/web/; app/page.ts).
 */

import { lobby } from "./lobby";
import { join, match, replay, rules } from "./screens";

// ---- routing -----------------------------------------------------------------------------------------

function route(): void {
  const [path = "", query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean);
  const params = new URLSearchParams(query);
  const [page, id] = parts;
  if (page === "play" && id) match(id, "player", params.get("bot"));
  else if (page === "watch" && id) match(id, "spectator", null);
  else if (page === "replay" && id) void replay(id);
  else if (page === "join" && id) void join(id);
  else if (page === "rules") void rules();
  else lobby();
}

window.addEventListener("hashchange", route);
route();
