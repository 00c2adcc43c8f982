/**
 * The daily challenge played in the browser (`#/daily`): today's run (`GET /api/daily`: its ruleset,
 * config and seed) played in the browser engine as a practice board (app/practice.ts) from your keys,
 * recorded there as a replay bound to your guest, and submitted (`POST /api/daily/runs`): the server
 * re-verifies it and puts it on the day's board. The day's best kept run, when there is one, is played
 * from its replay file in the engine too and drawn beside you as a ghost, frame for frame with yours.
 */

import { encode } from "@msgpack/msgpack";
import { browserEngine, type Engine } from "../engine/engine";
import type { Joined } from "../net/wire";
import { guest } from "./api";
import { button, el } from "./dom";
import { exposeForTests, onLeave, show } from "./page";
import { PracticeBoard } from "./practice";
import { type Daily, type DailySubmitted, ranked } from "./ranked";
import { ReplayPlayer } from "./replay";

/** What the page and the tests read of a daily run in the browser. */
export interface DailyState {
  phase: "loading" | "ready" | "playing" | "submitting" | "done" | "failed";
  message: string;
  day: string | null;
  /** The ghost's replay id and whether it is drawn. */
  ghost: string | null;
  submitted: DailySubmitted | null;
  /** The run's replay as sent (plain data), once over. */
  replay: unknown;
}

export async function dailyPage(): Promise<void> {
  const canvas = el("canvas", { id: "board", "aria-hidden": "true" });
  const ghostCanvas = el("canvas", { id: "ghost", "aria-hidden": "true" });
  const ghostStage = el("div", { class: "stage fill ghost", hidden: "" }, ghostCanvas);
  const status = el("p", { id: "daily-status", class: "message", role: "status", "aria-live": "polite" }, "Loading today's challenge…");
  const board = el("ol", { id: "daily-board" });
  const state: DailyState = { phase: "loading", message: "", day: null, ghost: null, submitted: null, replay: null };
  const say = (phase: DailyState["phase"], message: string): void => {
    state.phase = phase;
    state.message = message;
    status.textContent = message;
  };
  const play = button("Play today's run", "daily-play", () => void start());
  play.disabled = true;
  show(el("h1", {}, "Daily challenge"), el("div", { class: "viewer" }, el("div", { class: "stage fill" }, canvas), ghostStage),
    status, el("p", {}, play), el("h2", {}, "Today's board"), board, el("p", {}, el("a", { href: "#/" }, "Lobby")));

  let practice: PracticeBoard | null = null;
  let ghost: ReplayPlayer | null = null;
  onLeave(() => {
    practice?.stop();
    ghost?.stop();
  });
  exposeForTests({
    page: "daily",
    stream: () => practice?.stream ?? null,
    drawnFrames: () => 0,
    displayFrame: () => practice?.stream.model.frame ?? 0,
    result: () => practice?.result ?? null,
    practice: () => practice,
    daily: () => state,
  });

  const engine = browserEngine();
  if (engine === null) {
    say("failed", "This browser cannot run the rules engine (no WebAssembly): play the daily with `floe daily play`.");
    return;
  }
  let daily: Daily;
  try {
    daily = await ranked.daily();
    state.day = daily.day;
    await showBoard(daily.day, board);
    say("loading", `Today (${daily.day}): loading the rules engine…`);
    await engine.ready;
  } catch (error) {
    say("failed", `The daily challenge is not available: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  say("ready", `Today (${daily.day}): one Pengo board for everyone. Press "Play today's run" (arrows move, space kicks).`);
  play.disabled = false;

  async function start(): Promise<void> {
    if (practice !== null || state.phase !== "ready") return;
    play.disabled = true;
    say("playing", "Starting…");
    try {
      const me = await guest();
      const joined: Joined = {
        kind: "joined", match: `daily-${daily.day}`, role: "player", seat: 0, seats: [me.name], bots: [null],
        seed: daily.seed, config: daily.config, ruleset: daily.ruleset, ruleset_version: daily.ruleset_version,
        state: "running", head: 0, keyframe_every: 0, tables: {} as Joined["tables"],
      };
      ghost = await ghostOf(engine!, daily.day, ghostCanvas, state);
      if (ghost !== null) ghostStage.hidden = false;
      practice = await PracticeBoard.open(engine!, canvas, { joined, seat: 0, bot: "", start: null, frame: 0, player: me.guest });
      practice.onFrame = (frame) => ghost?.seek(frame);
      practice.onOver = (_result, replay) => void submit(me.token, replay);
      practice.start();
      ghost?.start();
      canvas.focus();
      say("playing", `Playing today's run${ghost === null ? "" : " beside the day's best (the ghost)"}.`);
    } catch (error) {
      say("failed", `The run could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async function submit(token: string, replay: unknown): Promise<void> {
    state.replay = replay;
    say("submitting", "Run over: sending it to the server to verify…");
    try {
      const answer = await ranked.submitDaily(token, new Blob([encode(replay)], { type: "application/msgpack" }));
      state.submitted = answer;
      say("done", answer.ok ? `Verified: ${answer.score} points (your best today: ${answer.best?.score ?? answer.score} points)`
        : `Refused: ${answer.message ?? "not a verified run"}`);
      await showBoard(daily.day, board);
    } catch (error) {
      say("failed", `The run could not be submitted: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

async function showBoard(day: string, board: HTMLElement): Promise<void> {
  const { entries } = await ranked.dailyBoard(day, 10);
  board.replaceChildren(...(entries.length ? entries.map((entry) =>
    entry.replay === null ? el("li", {}, `${entry.name} ${entry.score}`)
      : el("li", {}, `${entry.name} ${entry.score}`, " ", el("a", { href: `#/replay/${entry.replay}` }, "replay")))
    : [el("li", {}, "no runs yet")]));
}

/** The day's best kept run, played from its replay file in the engine, paused (the run moves it), or null. */
async function ghostOf(engine: Engine, day: string, canvas: HTMLCanvasElement, state: DailyState): Promise<ReplayPlayer | null> {
  const { entries } = await ranked.dailyBoard(day, 1);
  const best = entries[0];
  if (best === undefined || best.replay === null) return null;
  const response = await fetch(`/api/replays/${encodeURIComponent(best.replay)}`);
  if (!response.ok) return null;
  const { decode } = await import("@msgpack/msgpack");
  const played = await engine.request({ op: "replay", replay: decode(new Uint8Array(await response.arrayBuffer())) });
  if (!played.ok) return null;
  const player = new ReplayPlayer(canvas);
  player.loadPlayed(played, best.replay);
  player.playing = false;
  state.ghost = best.replay;
  return player;
}
