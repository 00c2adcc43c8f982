/**
 * The rules page (the default game's, or the one `#/rules/{ruleset}` names). The other screens have their own modules: the lobby and the
 * invitation's page (app/lobby.ts), the live match page (app/livepage.ts), the replay viewer
 * (app/replay.ts), the settings (app/settings-screen.ts).
 */

import { canShow, DEFAULT_RULESET, PLAYABLE, viewFor } from "../games/registry";
import { el } from "./dom";
import { show } from "./page";

// ---- the rules ---------------------------------------------------------------------------------------

export async function rules(ruleset: string | null = null): Promise<void> {
  const shown = ruleset !== null && canShow(ruleset) ? ruleset : DEFAULT_RULESET;
  show(el("h1", {}, "The rules"), el("p", { id: "rules-loading" }, "…"));
  const page = await viewFor(shown).rulesPage();
  const others = PLAYABLE.filter((game) => game.ruleset !== shown)
    .flatMap((game) => [" · ", el("a", { href: `#/rules/${game.ruleset}`, "data-ruleset": game.ruleset }, `${game.label} rules`)]);
  show(el("h1", {}, "The rules"), ...page, el("p", {}, el("a", { href: "#/" }, "Lobby"), ...others));
}
