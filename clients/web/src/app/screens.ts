/**
 * The screens besides the lobby: joining a room by its link, the replay viewer, and the rules page
 * (the default game's); the live match page is app/livepage.ts.
 */

import { DEFAULT_RULESET, viewFor } from "../games/registry";
import { api } from "./api";
import { button, el } from "./dom";
import { ReplayPlayer } from "./match";
import { errorText, exposeForTests, onLeave, show, withToken } from "./page";
import { resultText } from "./results";

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

// ---- the match: app/livepage.ts ----------------------------------------------------------------------

// ---- the replay viewer -------------------------------------------------------------------------------

export async function replay(id: string): Promise<void> {
  const canvas = el("canvas", { id: "board" });
  const status = el("p", { id: "replay-status", class: "message" }, "Re-simulating the replay…");
  show(el("div", { class: "stage" }, canvas), status, el("p", {}, el("a", { href: "#/" }, "Lobby")));
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
