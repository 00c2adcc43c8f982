/**
 * The pages' addresses (the URL's hash) as routes, and back: pure, so a test reads them.
 *
 *   #/                 the lobby: name, play a bot, a private room, live matches, recent replays
 *   #/join/{invite}    take the free seat of a room shared by link
 *   #/play/{match}     play your seat (?bot=name: a bot match, its rematch is another)
 *   #/watch/{match}    spectate
 *   #/replay/{id}      the replay viewer
 *   #/rules            the rule compendium of the default game (#/rules/{ruleset}: another game's)
 *   #/daily            the daily challenge played in the browser engine
 *   #/settings         the player's settings (keys, sound, ratings, display), kept in the browser
 *   #/payload          Payload (practice), played in the browser engine (?daily: the day's run)
 */

export type Route =
  | { page: "lobby" }
  | { page: "join"; invite: string }
  | { page: "play"; match: string; bot: string | null }
  | { page: "watch"; match: string }
  | { page: "replay"; id: string }
  | { page: "rules"; ruleset: string | null }
  | { page: "settings" }
  | { page: "payload"; daily: boolean }
  | { page: "daily" };

/** The route of a location hash (anything unknown is the lobby). */
export function parseRoute(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#/, "").split("?");
  const [page, id] = path.split("/").filter(Boolean);
  const params = new URLSearchParams(query);
  if (page === "play" && id) return { page: "play", match: id, bot: params.get("bot") };
  if (page === "watch" && id) return { page: "watch", match: id };
  if (page === "replay" && id) return { page: "replay", id };
  if (page === "join" && id) return { page: "join", invite: id };
  if (page === "rules") return { page: "rules", ruleset: id ?? null };
  if (page === "settings") return { page: "settings" };
  if (page === "payload") return { page: "payload", daily: params.has("daily") };
  if (page === "daily") return { page: "daily" };
  return { page: "lobby" };
}
