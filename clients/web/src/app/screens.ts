/**
 * The screens besides the lobby: joining a room by its link, a match played or watched, the replay
 * viewer, and the rules page (the default game's).
 */

import { DEFAULT_RULESET, viewFor } from "../games/registry";
import type { MatchResult } from "../net/wire";
import { api, storedGuest } from "./api";
import { button, el } from "./dom";
import { LiveView, ReplayPlayer } from "./match";
import { errorText, exposeForTests, onLeave, show, withToken, wsUrl } from "./page";

// ---- joining by invitation ---------------------------------------------------------------------------

export async function join(invite: string): Promise<void> {
  show(el("p", { id: "joining" }, "Joining the room…"));
  try {
    const seated = await withToken((token) => api.joinRoom(token, invite));
    location.replace(`#/play/${seated.match}`);
  } catch (error) {
    show(el("p", { class: "message", id: "join-error" }, `Could not join: ${errorText(error)}`),
      el("a", { href: "#/" }, "Back to the lobby"));
  }
}

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
  show(banner, el("div", { class: "stage fill" }, canvas), status, help, result,
    el("p", {}, el("a", { href: "#/" }, "Lobby")));
  const token = role === "player" ? storedGuest()?.token ?? null : null;
  const view: LiveView = new LiveView(canvas, wsUrl(), token, id, role, {
    onJoined: (joined, game) => {
      if (role === "player") help.textContent = game.controlsHelp;
      status.textContent = `${joined.seats.join(" vs ")} — ${role === "player" ? `you are seat ${joined.seat}` : "watching"}`;
    },
    onConnection: (dropped) => banner.classList.toggle("hidden", !dropped),
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
  view.start();
  onLeave(() => view.stop());
  exposeForTests({
    page: role,
    stream: () => view.stream,
    drawnFrames: () => view.drawnFrames,
    busy: () => ({ drawMs: view.drawMs, applyMs: view.applyMs, records: view.records }),
    dropConnection: () => view.connection.drop(),
    leave: () => view.connection.leave(),
    displayFrame: () => view.display,
    result: () => view.result,
  });
}

// ---- the replay viewer -------------------------------------------------------------------------------

export async function replay(id: string): Promise<void> {
  const canvas = el("canvas", { id: "board" });
  const status = el("p", { id: "replay-status", class: "message" }, "Re-simulating the replay…");
  show(el("div", { class: "stage fill" }, canvas), status, el("p", {}, el("a", { href: "#/" }, "Lobby")));
  const response = await fetch(`/api/replays/${encodeURIComponent(id)}/stream`);
  if (!response.ok) {
    status.textContent = `The replay could not be played (${response.status}).`;
    return;
  }
  const player = new ReplayPlayer(canvas);
  player.load(new Uint8Array(await response.arrayBuffer()));
  const scrub = el("input", { id: "scrub", type: "range", min: "0", max: String(player.finalFrame), value: "0" });
  const playButton = button("Pause", "play-pause", () => {
    player.playing = !player.playing;
    if (player.playing && player.position >= player.finalFrame) player.seek(0);
  });
  const speed = el("select", { id: "speed" },
    ...["0.5", "1", "2", "4"].map((value) => el("option", value === "1" ? { value, selected: "" } : { value }, `${value}×`)));
  speed.addEventListener("change", () => {
    player.speed = Number(speed.value);
  });
  scrub.addEventListener("input", () => player.seek(Number(scrub.value)));
  const clock = el("span", { id: "replay-frame" });
  player.onTick = () => {
    playButton.textContent = player.playing ? "Pause" : "Play";
    if (document.activeElement !== scrub) scrub.value = String(Math.floor(player.position));
    clock.textContent = ` frame ${Math.floor(player.position)} / ${player.finalFrame}`;
  };
  const seats = player.joined?.seats ?? [];
  status.textContent = `${seats.join(" vs ")}${player.over?.result ? ` — ${resultText(player.over.result, seats, null)}` : ""}`;
  canvas.parentElement!.after(el("div", { class: "controls" }, playButton, speed, scrub, clock,
    el("a", { href: `/api/replays/${id}`, download: `${id}.replay` }, " download")));
  player.start();
  onLeave(() => player.stop());
  exposeForTests({
    page: "replay",
    stream: () => player.stream,
    drawnFrames: () => player.drawnFrames,
    displayFrame: () => player.position,
    result: () => player.over?.result ?? null,
    seek: (frame: number) => {
      player.playing = false;
      player.seek(frame);
    },
  });
}

// ---- the rules ---------------------------------------------------------------------------------------

export async function rules(): Promise<void> {
  show(el("h1", {}, "The rules"), el("p", { id: "rules-loading" }, "…"));
  const page = await viewFor(DEFAULT_RULESET).rulesPage();
  show(el("h1", {}, "The rules"), ...page, el("p", {}, el("a", { href: "#/" }, "Lobby")));
}
