/**
 * The replay player, for any game: a replay played from its server-made stream (keyframes to seek
 * to, frame records to play forward), drawn every animation frame by the game's board (the game view
 * named by `joined.ruleset`); and the replay viewer page around it: the controls (buttons and keys,
 * app/replaycontrol.ts), the timeline's event markers (app/markers.ts), the text summary (app/summary.ts).
 */

import { decode, decodeMulti } from "@msgpack/msgpack";
import { browserEngine, type Engine } from "../engine/engine";
import type { PlayedReplay } from "../engine/protocol";
import { viewFor } from "../games/registry";
import type { Board } from "../games/view";
import { MatchStream } from "../net/stream";
import type { FrameBody, Joined, Keyframe, MatchResult, Over, View } from "../net/wire";
import { toMessage } from "../net/wire";
import { button, el } from "./dom";
import { adjacentMarker, lastMarker, type Marker, markerText, timelineMarkers } from "./markers";
import { fitToStage } from "./layout";
import { exposeForTests, onLeave, show } from "./page";
import { clockText, keyAction, nextSpeed, type ReplayAction, speedLabel, steppedFrame } from "./replaycontrol";
import { PracticeBoard } from "./practice";
import { matchSummary, type SummaryModel } from "./summary";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the game's model, whichever it is
type AnyStream = MatchStream<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyBoard = Board<any>;

/** A replay from its server-made stream: keyframes to seek to, frames to play forward. */
export class ReplayPlayer {
  joined: Joined | null = null;
  private keyframes: Keyframe[] = [];
  private bodies: FrameBody[] = [];
  over: Over | null = null;
  stream: AnyStream | null = null;
  board: AnyBoard | null = null;
  private raf = 0;
  private unfit: (() => void) | null = null;
  /** The frame shown (fractional while playing). */
  position = 0;
  speed = 1;
  playing = true;
  private last = 0;
  onTick: (() => void) | null = null;

  constructor(private readonly canvas: HTMLCanvasElement) {}

  load(data: Uint8Array): void {
    for (const value of decodeMulti(data)) {
      const message = toMessage(value);
      if (message.kind === "joined") this.joined = message;
      else if (message.kind === "keyframe") this.keyframes.push(message);
      else if (message.kind === "frame") this.bodies[message.frame] = message;
      else if (message.kind === "over") this.over = message;
    }
    this.begin();
  }

  /** A replay file played in the browser engine: the same joined, keyframes, frames and end the
   * server's replay stream carries (src/engine/floe_engine.py `replay_stream`). */
  loadPlayed(played: PlayedReplay, id: string): void {
    this.joined = { ...played.joined, match: id };
    this.keyframes = played.keyframes.map((keyframe, n) => ({ kind: "keyframe", n, ...keyframe }));
    for (const body of played.bodies) this.bodies[body.frame] = body;
    this.over = { kind: "over", n: 0, result: played.result, replay: id } as Over;
    this.begin();
  }

  private begin(): void {
    if (this.joined === null || this.keyframes.length === 0) throw new Error("not a replay stream");
    const game = viewFor(this.joined.ruleset);
    this.stream = new MatchStream(this.joined, game.models(this.joined));
    this.board = game.board(this.canvas, this.joined);
    this.seek(0);
  }

  get finalFrame(): number {
    return this.bodies.length;
  }

  /** The frame records by frame (the timeline's markers are read from their events). */
  get frames(): readonly (FrameBody | undefined)[] {
    return this.bodies;
  }

  /** Pause and show the frame `frames` frames from the one shown (exact both ways: `seek`). */
  step(frames: number): void {
    this.playing = false;
    this.seek(steppedFrame(this.position, frames, this.finalFrame));
  }

  /** Show frame `frame`: from the keyframe at or before it, the records after it applied. */
  seek(frame: number): void {
    const stream = this.stream;
    if (stream === null) return;
    const target = Math.max(0, Math.min(Math.floor(frame), this.finalFrame));
    let keyframe = this.keyframes[0]!;
    for (const candidate of this.keyframes) if (candidate.frame <= target) keyframe = candidate;
    const model = stream.model;
    // Play on from where the model is when that is nearer than the keyframe.
    if (!(model.frame <= target && model.frame >= keyframe.frame && stream.started)) {
      stream.reset(keyframe.view);
      this.board?.restarted();
    }
    while (stream.model.frame < target) {
      const body = this.bodies[stream.model.frame];
      if (body === undefined) break;
      stream.apply({ kind: "frame", n: 0, confirmed: body.frame + 1, ...body });
      this.board?.applied(stream, body.frame);
    }
    this.position = target;
  }

  start(): void {
    const loop = (time: number): void => {
      const elapsed = this.last === 0 ? 0 : Math.min(100, time - this.last);
      this.last = time;
      if (this.playing && this.stream !== null) {
        const next = Math.min(this.finalFrame, this.position + (elapsed / 1000) * 60 * this.speed);
        if (Math.floor(next) !== Math.floor(this.position)) this.seek(next);
        this.position = next;
        if (next >= this.finalFrame) this.playing = false;
      }
      this.draw();
      this.onTick?.();
      this.raf = requestAnimationFrame(loop);
    };
    this.raf = requestAnimationFrame(loop);
    if (this.board) this.unfit = fitToStage(this.board, this.canvas, null);
  }

  stop(): void {
    cancelAnimationFrame(this.raf);
    this.unfit?.();
  }

  get drawnFrames(): number {
    return this.board?.frames ?? 0;
  }

  /** The frames of the stream's keyframes. */
  get keyframeFrames(): number[] {
    return this.keyframes.map((keyframe) => keyframe.frame);
  }

  /** The keyframe view of a frame, if the stream has one (tests compare it with the model). */
  keyframeView(frame: number): View | undefined {
    return this.keyframes.find((keyframe) => keyframe.frame === frame)?.view;
  }

  private draw(): void {
    const stream = this.stream;
    if (stream === null || this.board === null) return;
    const model = stream.model;
    const previous = stream.stateAt(model.frame - 1) ?? model;
    this.board.draw({
      before: previous,
      after: model,
      alpha: this.playing ? this.position - Math.floor(this.position) : 1,
      frame: model.frame,
      timeLeft: model.timeLeft,
      names: this.joined?.seats ?? [],
      seat: null,
    });
  }
}

// ---- the replay viewer page --------------------------------------------------------------------------

/** A replay's result in words: who won and how ("bob wins by forfeit (ann left)"). */
export function replayResultText(result: MatchResult | null, seats: readonly string[]): string {
  if (result === null) return "The match was cancelled.";
  const scores = result.scores.join(" – ");
  if (result.winner === null) return `A draw (${result.reason}): ${scores}.`;
  const winner = seats[result.winner] ?? `seat ${result.winner}`;
  const left = (result.outcomes ?? []).flatMap((outcome, seat) => (outcome === "forfeited" ? [seats[seat] ?? `seat ${seat}`] : []));
  const why = result.reason === "forfeit" && left.length ? ` (${left.join(", ")} left)` : "";
  return `${winner} wins by ${result.reason}${why}: ${scores}.`;
}

function labelled(label: string, id: string, text: string, onClick: () => void): HTMLButtonElement {
  const node = button(text, id, onClick);
  node.setAttribute("aria-label", label);
  node.title = label;
  return node;
}

/** The replay viewer (`#/replay/{id}`): the board, its controls (buttons and keys), the timeline with
 * its event markers, and the text summary beside the canvas. */
export async function replayPage(id: string): Promise<void> {
  const canvas = el("canvas", { id: "board", "aria-hidden": "true" });
  const summary = el("p", { id: "summary", class: "summary", role: "status", "aria-live": "polite" });
  const status = el("p", { id: "replay-status", class: "message" }, "Re-simulating the replay…");
  show(el("h1", { class: "visually-hidden" }, "Replay"), el("div", { class: "viewer" }, el("div", { class: "stage fill" }, canvas), summary),
    status, el("p", {}, el("a", { href: "#/" }, "Lobby")));
  const player = new ReplayPlayer(canvas);
  // With the engine loaded, the replay file is played here (no stream asked of the server); else the
  // server's stream, and the engine starts loading for the next replay.
  const engine = browserEngine();
  let source: "engine" | "stream" = "stream";
  let file: unknown = null;
  let checked = "";
  if (engine !== null && engine.loaded) {
    try {
      file = await playedHere(engine, id, player);
      source = "engine";
      checked = " · played in your browser from the replay file: its moves reach the recorded result and log hash";
    } catch (error) {
      console.warn("the replay was not played in the browser engine:", error);
    }
  }
  if (source === "stream") {
    const response = await fetch(`/api/replays/${encodeURIComponent(id)}/stream`);
    if (!response.ok) {
      status.textContent = `The replay could not be played (${response.status}).`;
      return;
    }
    player.load(new Uint8Array(await response.arrayBuffer()));
  }
  const joined = player.joined!;
  const seats = joined.seats;
  const markers = timelineMarkers(player.stream!.vocabulary, player.frames);
  const final = player.finalFrame;

  const act = (action: ReplayAction): void => {
    switch (action) {
      case "play-pause":
        player.playing = !player.playing;
        if (player.playing && player.position >= final) player.seek(0);
        break;
      case "step-back":
        player.step(-1);
        break;
      case "step-forward":
        player.step(1);
        break;
      case "faster":
      case "slower":
        player.speed = nextSpeed(player.speed, action === "faster" ? 1 : -1);
        break;
      case "start":
        player.step(-final);
        break;
      case "end":
        player.step(final);
        break;
      case "previous-marker":
      case "next-marker": {
        // A marker is shown at its frame + 1: the next one is after the frame before the one shown.
        const marker = adjacentMarker(markers, Math.floor(player.position) - 1, action === "next-marker" ? 1 : -1);
        if (marker !== null) showMarker(marker);
        break;
      }
    }
    tick();
  };
  const showMarker = (marker: Marker): void => {
    player.playing = false;
    player.seek(marker.frame + 1);
    tick();
  };

  const playButton = labelled("Play or pause (space)", "play-pause", "Pause", () => act("play-pause"));
  const speedShown = el("span", { id: "speed", class: "speed", "aria-live": "polite", title: "speed" }, speedLabel(player.speed));
  const scrub = el("input", { id: "scrub", type: "range", min: "0", max: String(final), value: "0", "aria-label": "Frame (the timeline)" });
  scrub.addEventListener("input", () => {
    player.seek(Number(scrub.value));
    tick();
  });
  const markerRow = el("div", { class: "markers", id: "markers" },
    ...markers.map((marker) => {
      const text = `${markerText(marker, seats)} at ${clockText(marker.frame)}`;
      const node = labelled(text, `marker-${marker.kind}-${marker.frame}-${marker.seat}`, "", () => showMarker(marker));
      node.className = `marker marker-${marker.kind} seat-${marker.seat}`;
      node.dataset.frame = String(marker.frame);
      node.dataset.kind = marker.kind;
      // Reached by the [ and ] keys rather than the tab key (a match has dozens).
      node.tabIndex = -1;
      node.style.left = `${final > 0 ? (100 * marker.frame) / final : 0}%`;
      return node;
    }));
  const clock = el("span", { id: "replay-frame", class: "clock" });
  const controls = el("div", { class: "controls", role: "toolbar", "aria-label": "Replay controls" },
    labelled("Go to the start (Home)", "replay-start", "Start", () => act("start")),
    labelled("One frame back (←)", "step-back", "◀ 1", () => act("step-back")),
    playButton,
    labelled("One frame forward (→)", "step-forward", "1 ▶", () => act("step-forward")),
    labelled("Go to the end (End)", "replay-end", "End", () => act("end")),
    labelled("Slower (↓ or -)", "slower", "−", () => act("slower")),
    speedShown,
    labelled("Faster (↑ or +)", "faster", "+", () => act("faster")),
    clock);
  // The swatches of the marker kinds this game's stream can make (its view says; Pengo's by default).
  const swatches = viewFor(joined.ruleset).markerLegend ?? [["death", "a life lost"], ["landing", "a landing"],
    ["attack", "a big attack"], ["round-clear", "a round cleared"]];
  const legend = el("p", { class: "help legend" },
    ...swatches.flatMap(([kind, text]) => [el("span", { class: `swatch marker-${kind}` }), ` ${text} `]),
    "· keys: space play/pause, ← → a frame, ↑ ↓ speed, Home/End, [ ] the previous/next marker");

  let spoken = "";
  let spokenKey = "";
  function tick(): void {
    const frame = Math.floor(player.position);
    playButton.textContent = player.playing ? "Pause" : "Play";
    speedShown.textContent = speedLabel(player.speed);
    if (document.activeElement !== scrub) scrub.value = String(frame);
    clock.textContent = `${clockText(frame)} / ${clockText(final)} · frame ${frame} / ${final}`;
    const last = lastMarker(markers, frame - 1);
    // While playing, the summary changes every 5 s of match time or at an event; paused, at each step.
    const key = player.playing ? `${Math.floor(frame / 300)}|${last?.frame ?? -1}` : String(frame);
    if (key === spokenKey) return;
    spokenKey = key;
    const model = player.stream?.model as unknown as SummaryModel | undefined;
    if (model === undefined) return;
    const ended = frame >= final && player.over !== null ? ` ${replayResultText(player.over.result, seats)}` : "";
    const text = matchSummary(model, seats, last === null ? null : markerText(last, seats)) + ended;
    if (text !== spoken) summary.textContent = spoken = text;
  }
  player.onTick = tick;

  const onKey = (event: KeyboardEvent): void => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement | null;
    // A focused button's own keys activate it; a text field keeps its keys.
    if (target instanceof HTMLButtonElement && (event.key === " " || event.key === "Enter")) return;
    if (target instanceof HTMLInputElement && target.type !== "range") return;
    if (practice?.board()) return; // the practice board's controls have the keys
    const action = keyAction(event.key);
    if (action === null) return;
    event.preventDefault();
    act(action);
  };
  document.addEventListener("keydown", onKey);

  status.textContent = `${seats.join(" vs ")} — ${player.over ? replayResultText(player.over.result, seats) : "no result recorded"}${checked}`;
  const practice = practiceButton(engine, file, player, canvas, status);
  canvas.closest(".viewer")!.after(controls, el("div", { class: "timeline" }, scrub, markerRow), legend,
    el("p", {}, el("a", { href: `/api/replays/${id}`, download: `${id}.replay`, id: "download" }, "Download the replay"),
      ...(practice === null ? [] : [" ", practice.button])));
  player.start();
  tick();
  onLeave(() => {
    player.stop();
    practice?.stop();
    document.removeEventListener("keydown", onKey);
  });
  exposeForTests({
    page: "replay",
    source: () => source,
    keyframeFrames: () => player.keyframeFrames,
    keyframeView: (frame: number) => player.keyframeView(frame) ?? null,
    frameBody: (frame: number) => player.frames[frame] ?? null,
    practice: () => practice?.board() ?? null,
    stream: () => practice?.board()?.stream ?? player.stream,
    drawnFrames: () => player.drawnFrames,
    displayFrame: () => player.position,
    result: () => player.over?.result ?? null,
    board: () => player.board,
    seek: (frame: number) => {
      player.playing = false;
      player.seek(frame);
    },
  });
}

/** Fetch the replay file and play it in the engine into `player`; the file's plain data. Refused when
 * the engine's run does not reach the file's recorded result and log hash. */
async function playedHere(engine: Engine, id: string, player: ReplayPlayer): Promise<unknown> {
  const response = await fetch(`/api/replays/${encodeURIComponent(id)}`);
  if (!response.ok) throw new Error(`the replay file: HTTP ${response.status}`);
  const file = decode(new Uint8Array(await response.arrayBuffer()));
  const played = await engine.request({ op: "replay", replay: file });
  if (!played.ok) throw new Error(played.reason);
  player.loadPlayed(played, id);
  return file;
}

/** "Play from here": the replay's shown frame continued as a practice board in the engine (seat 0 yours,
 * the others the ruleset's competent bot), in place of the replay. Null without the engine's run. */
function practiceButton(engine: Engine | null, file: unknown, player: ReplayPlayer, canvas: HTMLCanvasElement,
  status: HTMLElement): { button: HTMLButtonElement; board: () => PracticeBoard | null; stop: () => void } | null {
  if (engine === null || file === null || player.joined === null) return null;
  let practice: PracticeBoard | null = null;
  const node = labelled("Play from here: continue this position yourself (seat 1), against the bot", "play-from-here",
    "Play from here", () => {
      if (practice !== null) return;
      const frame = Math.floor(player.position);
      node.disabled = true;
      void PracticeBoard.open(engine, canvas, { joined: player.joined!, seat: 0, bot: "competent", start: file, frame, player: "" })
        .then((board) => {
          player.stop();
          practice = board;
          for (const node of document.querySelectorAll<HTMLElement>(".controls, .timeline, .legend")) node.hidden = true;
          board.onOver = (result) => {
            status.textContent = `Practice over: ${replayResultText(result, board.joined.seats)}`;
          };
          board.start();
          status.textContent = `Practising from frame ${frame}: you play ${board.joined.seats[0]} (${viewFor(board.joined.ruleset).controlsHelp()})`;
          canvas.focus();
        }, (error: unknown) => {
          node.disabled = false;
          status.textContent = `Could not play from here: ${error instanceof Error ? error.message : String(error)}`;
        });
    });
  return { button: node, board: () => practice, stop: () => practice?.stop() };
}
