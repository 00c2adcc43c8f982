/**
 * The rules page (the default game's). The other screens have their own modules: the lobby and the
 * invitation's page (app/lobby.ts), the live match page (app/livepage.ts), the replay viewer
 * (app/replay.ts), the settings (app/settings-screen.ts).
 */

import { DEFAULT_RULESET, viewFor } from "../games/registry";
import { el } from "./dom";
import { show } from "./page";

// ---- the rules ---------------------------------------------------------------------------------------

export async function rules(): Promise<void> {
  show(el("h1", {}, "The rules"), el("p", { id: "rules-loading" }, "…"));
  const page = await viewFor(DEFAULT_RULESET).rulesPage();
  show(el("h1", {}, "The rules"), ...page, el("p", {}, el("a", { href: "#/" }, "Lobby")));
}
