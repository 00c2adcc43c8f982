/**
 * The screens besides the lobby (and the invitation's page, app/lobby.ts): a match played or watched,
 * and the rules page (the default game's). The replay viewer is app/replay.ts.
 */

import { DEFAULT_RULESET, viewFor } from "../games/registry";
import type { MatchResult } from "../net/wire";
import { api, storedGuest } from "./api";
import { button, el } from "./dom";
import { rememberPlayed } from "./history";
import { LiveView } from "./match";
import { MatchInfo } from "./matchinfo";
import { errorText, exposeForTests, onLeave, show, withToken, wsUrl } from "./page";

// ---- the match ---------------------------------------------------------------------------------------

function resultText(result: MatchResult, seats: string[], seat: number | null): string {
  if (result.winner === null) return `A draw (${result.reason}).`;
  const who = seat === result.winner ? "You win" : `${seats[result.winner] ?? "?"} wins`;
  return `${who} by ${result.reason}: ${result.scores.join(" – ")}.`;
}

export function match(id: string, role: "player" | "spectator", bot: string | null): void {
  const canvas = el("canvas", { id: "board" });
  const banner = el("div", { id: "reconnect", class: "banner hidden" }, "Connection lost — reconnecting…");
  const status = el("p", { id: "match-status", class: "message" }, "Connecting…");
  const result = el("div", { id: "result", class: "result hidden" });
  // A player's controls are the game's: named once `joined` says which game it is.
  const help = el("p", { class: "help" }, role === "player" ? "" : "Spectating.");
  show(banner, el("div", { class: "stage" }, canvas), status, help, result,
    el("p", {}, el("a", { href: "#/" }, "Lobby"), " · ",
      el("a", { href: "#/settings", target: "_blank", rel: "noopener", id: "match-settings" }, "Settings (a new tab)")));
  const token = role === "player" ? storedGuest()?.token ?? null : null;
  const info = new MatchInfo(role);
  const view: LiveView = new LiveView(canvas, wsUrl(), token, id, role, {
    onJoined: (joined, game) => {
      info.joined(joined);
      if (role === "player" && joined.seat !== null) rememberPlayed(joined.match, joined.seat);
      if (role === "player") help.textContent = game.controlsHelp;
      status.textContent = `${joined.seats.join(" vs ")} — ${role === "player" ? `you are seat ${joined.seat}` : "watching"}`;
    },
    onConnection: (dropped) => banner.classList.toggle("hidden", !dropped),
    onStatus: (update) => info.status(update),
    onFrame: (events, frame) => info.frame(events, frame),
    onRated: (rated) => {
      result.append(el("p", { id: "rating-change" },
        `Rating ${rated.change >= 0 ? "+" : ""}${rated.change.toFixed(1)}: now ${Math.round(rated.rating)}`));
    },
    onError: (code, message, fatal) => {
      if (fatal || ["not-seated", "no-such-match", "auth"].includes(code)) status.textContent = `${message} (${code})`;
    },
    onOver: (over) => {
      const seats = view.stream?.joined.seats ?? [];
      const seat = role === "player" ? view.stream?.joined.seat ?? null : null;
      const replay = over.replay;
      result.replaceChildren(
        el("h2", {}, over.result ? resultText(over.result, seats, seat) : "The match was cancelled."),
        ...(replay ? [
          el("p", {},
            el("a", { href: `#/replay/${replay}`, id: "watch-replay" }, "Watch the replay"), " · ",
            el("a", { href: `/api/replays/${replay}`, download: `${replay}.replay`, id: "download-replay" }, "Download it")),
        ] : []),
        ...(role === "player" ? [button("Rematch", "rematch", async () => {
          try {
            const seated = await withToken((t) => (bot ? api.botMatch(t, bot) : api.room(t)));
            location.hash = bot ? `#/play/${seated.match}?bot=${bot}` : `#/play/${seated.match}`;
          } catch (error) {
            status.textContent = errorText(error);
          }
        })] : []),
      );
      result.classList.remove("hidden");
    },
  });
  info.attach(canvas, status, () => view.stream);
  view.start();
  onLeave(() => view.stop());
  exposeForTests({
    page: role,
    stream: () => view.stream,
    drawnFrames: () => view.drawnFrames,
    busy: () => ({ drawMs: view.drawMs, applyMs: view.applyMs, records: view.records }),
    dropConnection: () => view.connection.drop(),
    displayFrame: () => view.display,
    result: () => view.result,
    board: () => view.board,
  });
}

// ---- the rules ---------------------------------------------------------------------------------------

export async function rules(): Promise<void> {
  show(el("h1", {}, "The rules"), el("p", { id: "rules-loading" }, "…"));
  const page = await viewFor(DEFAULT_RULESET).rulesPage();
  show(el("h1", {}, "The rules"), ...page, el("p", {}, el("a", { href: "#/" }, "Lobby")));
}
