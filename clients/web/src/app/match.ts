/**
 * The match view, for any game: a live match played or watched (a `Connection` feeding a
 * `MatchStream`; a replay's player is app/replay.ts), drawn every
 * animation frame by the game's board (the game view named by `joined.ruleset`).
 *
 * Live, the display runs a few frames behind the newest record (the player's own stream: 2; a
 * spectator's, which trails by the rollback window: 2 more than `rollback_window`), interpolating
 * between the two frame states around it, so 30 websocket messages a second of two frames each make
 * smooth 60 Hz motion.
 */

import { browserEngine } from "../engine/engine";
import { type AnyGameView, viewFor } from "../games/registry";
import type { Board, InputDevice } from "../games/view";
import { Prediction, type PredictionWork } from "../net/predict";
import { KEPT_FRAMES, MatchStream } from "../net/stream";
import { Connection } from "../net/transport";
import type { GameEvent } from "../net/vocabulary";
import type { Joined, MatchResult, Over, Rated, RematchMessage, Status, StreamMessage } from "../net/wire";
import { fitToStage } from "./layout";
import { browserSettings } from "./settings";
import { EventLog } from "./stats";

/** Frames the display trails the newest record by (a player's own stream). */
const PLAYER_DELAY = 2;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the game's model, whichever it is
type AnyStream = MatchStream<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyBoard = Board<any>;

export interface MatchEvents {
  onJoined?(joined: Joined, game: AnyGameView): void;
  onRated?(rated: Rated): void;
  onStatus?(status: Status): void;
  onRematch?(message: RematchMessage): void;
  onOver?(over: Over): void;
  onConnection?(dropped: boolean): void;
  onError?(code: string, message: string, fatal: boolean): void;
  onStatus?(status: Status): void;
  /** A frame record was applied: its events (the text summary's last event). */
  onFrame?(events: GameEvent[], frame: number): void;
}

/** A key press measured: from the key event to the first drawing that moved your avatar. */
export interface Press {
  /** Milliseconds from the event's timestamp to that drawing. */
  ms: number;
  /** Animation frames drawn from the key event to that one (1: the first drawing after the key). */
  draws: number;
  /** The board drawn was the predicted one. */
  predicted: boolean;
}

/** Presses waiting for their drawing are dropped after this many drawings (the avatar did not move). */
export const PRESS_DRAWS_KEPT = 120;

/** A key press in the match's frames (tests/web/test_prediction.py's frame-by-frame check). */
export interface PressFrames {
  /** The frame the page had drawn when the key came. */
  keyFrame: number;
  /** Where the last drawing put your avatar then. */
  keyAvatar: string | null;
  /** The frame the press's byte was stamped for (−1 until it was sent). */
  stamped: number;
  /** The first drawing after the key of a frame past `stamped` (the state after the stamped frame):
   * its frame, where it put your avatar, whether it was the predicted board (−1/null until drawn). */
  drawnFrame: number;
  drawnAvatar: string | null;
  drawnPredicted: boolean;
}

/** What the page drew and what the authority said, frame by frame (`window.__floe.frames()`). */
export interface FrameLog {
  presses: PressFrames[];
  /** Your avatar in the stream's state at each confirmed frame: [frame, avatar]. */
  authority: [number, string | null][];
  /** Each drawing: [frame drawn, your avatar, predicted]. */
  drawings: [number, string | null, boolean][];
}

/** Entries of each frame log kept (a minute of frames and drawings). */
export const FRAME_LOG_KEPT = 3600;

/** What a test reads from the page (window.__floe). */
export interface TestHooks {
  stream: () => AnyStream | null;
  drawnFrames: () => number;
  /** Milliseconds spent drawing and applying stream records so far (bench/browser_fps.py). */
  busy?: () => { drawMs: number; applyMs: number; records: number };
  displayFrame: () => number;
  result: () => MatchResult | null;
  seek?: (frame: number) => void;
  /** Drop the connection as a network failure would (a live page reconnects and resumes). */
  dropConnection?: () => void;
  /** The game's board (its renderer's last drawing: tests compare drawn and model positions). */
  board?: () => AnyBoard | null;
  /** Leave the match for good (a player forfeits it): a test reaches the result without playing it out. */
  leave?: () => void;
  /** The browser engine's prediction (net/predict.ts), null when the page draws from the stream alone. */
  prediction?: () => PredictionState | null;
  /** The predicted model drawn (null when none is). */
  predicted?: () => unknown;
  /** Key presses measured so far (bench/own_board_latency.py). */
  presses?: () => Press[];
  /** Presses, the authority's avatar and the drawings, in frames (tests/web/test_prediction.py). */
  frames?: () => FrameLog;
  /** The replay viewer: where its frames came from (the browser engine playing the file, or the
   * server's stream), its keyframes' frames and views, and its practice board ("play from here"). */
  source?: () => "engine" | "stream";
  keyframeFrames?: () => number[];
  keyframeView?: (frame: number) => unknown;
  frameBody?: (frame: number) => unknown;
  practice?: () => unknown;
  /** The daily challenge page: its state and its submission's answer. */
  daily?: () => unknown;
}

/** What the page and the tests read of the prediction. */
export interface PredictionState {
  /** The drawn board is the predicted one. */
  active: boolean;
  /** Why prediction stopped (null while it runs or loads). */
  stopped: string | null;
  /** Corrections of the drawn board per seat (the authority disagreed with a drawn prediction). */
  corrections: number[];
  /** Keyframes the replica disagreed with. */
  desyncs: number[];
  /** Rebuilds of the replica from a resync's state (a reconnect past the stream's history). */
  restores: number;
  /** Predictions made; the frame drawn; the milliseconds the last prediction took (asked to answered). */
  made: number;
  frame: number;
  lastMs: number;
  /** The worker's work so far: advances, rollbacks, frames stepped and re-simulated, milliseconds. */
  work: PredictionWork;
  /** `input-late` replies so far, and the clock's lead (frames an input is stamped ahead). */
  late: number;
  lead: number | null;
}

/** A live match: play (with controls) or watch. */
export class LiveView {
  stream: AnyStream | null = null;
  readonly connection: Connection;
  game: AnyGameView | null = null;
  board: AnyBoard | null = null;
  private controls: InputDevice | null = null;
  private raf = 0;
  private inputTimer: number | undefined;
  private readonly settings = browserSettings();
  private unfit: (() => void) | null = null;
  result: MatchResult | null = null;
  over: Over | null = null;
  display = 0;
  applyMs = 0;
  records = 0;
  /** Each frame's latest events, for the results' statistics. */
  log: EventLog | null = null;
  /** The seat names drawn (the page updates them as players take their seats). */
  names: string[] = [];
  /** The browser engine's prediction of this seat's match (null: drawn from the stream alone). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  prediction: Prediction<any> | null = null;
  /** Key presses measured (`Press`), and those still waiting for a drawing that moved the avatar. */
  readonly presses: Press[] = [];
  private pending: { t: number; avatar: string | null; draws: number }[] = [];
  /** Presses in frames (`PressFrames`), the stream's avatar per confirmed frame, each drawing. */
  private readonly pressFrames: PressFrames[] = [];
  private readonly authority: [number, string | null][] = [];
  private authorityNext = 0;
  private readonly drawings: [number, string | null, boolean][] = [];
  private lastSent: number | null = null;
  private readonly onKey = (event: KeyboardEvent): void => {
    if (event.repeat) return;
    const seat = this.stream?.joined.seat;
    if (seat === null || seat === undefined || this.board?.avatar === undefined) return;
    const avatar = this.board.avatar(seat);
    this.pending.push({ t: event.timeStamp, avatar, draws: 0 });
    this.pressFrames.push({
      keyFrame: Math.floor(this.display), keyAvatar: avatar, stamped: -1, drawnFrame: -1,
      drawnAvatar: null, drawnPredicted: false,
    });
    if (this.pressFrames.length > FRAME_LOG_KEPT) this.pressFrames.shift();
  };


  constructor(
    private readonly canvas: HTMLCanvasElement,
    url: string,
    token: string | null,
    match: string,
    readonly role: "player" | "spectator",
    private readonly events: MatchEvents,
  ) {
    this.connection = new Connection(url, token, match, role, {
      onJoined: (joined) => {
        let game: AnyGameView;
        try {
          game = viewFor(joined.ruleset);
        } catch (error) {
          // A match this client cannot draw: say so and stay off the stream.
          this.connection.close();
          events.onError?.("unknown-ruleset", String(error instanceof Error ? error.message : error), true);
          return;
        }
        this.game = game;
        const stream = new MatchStream(joined, game.models(joined));
        this.stream = stream;
        this.log = new EventLog((values) => stream.vocabulary.event(values));
        this.names = [...joined.seats];
        this.board = game.board(canvas, joined);
        if (this.role === "player" && joined.seat !== null && game.predicts !== false && this.settings.get("prediction")) {
          const engine = browserEngine();
          if (engine !== null) {
            const prediction = new Prediction(engine, joined, joined.seat, stream, this.connection.session);
            prediction.onCorrection = () => this.board?.correct?.();
            prediction.onDesync = (frame) => this.connection.desync(frame);
            prediction.start();
            this.prediction = prediction;
          }
        }
        if (this.role === "player") {
          this.controls = game.controls();
          this.controls.attach(canvas.parentElement ?? undefined);
        }
        // sized once the touch controls (if any) take their room in the stage, and on every resize
        this.unfit?.();
        this.unfit = fitToStage(this.board, canvas, this.role === "player" ? joined.seat : null);
        events.onJoined?.(joined, game);
      },
      onStream: (message) => this.onStream(message),
      onError: (code, message, fatal) => events.onError?.(code, message, fatal),
      onConnection: (dropped) => events.onConnection?.(dropped),
      onRated: (rated) => events.onRated?.(rated),
      onStatus: (status) => events.onStatus?.(status),
      onRematch: (message) => events.onRematch?.(message),
    });
  }

  start(): void {
    this.connection.open();
    if (this.role === "player") {
      this.inputTimer = window.setInterval(() => this.sendInput(), 1000 / 120);
      window.addEventListener("keydown", this.onKey, true);
    }
    const loop = (): void => {
      this.draw();
      this.measure();
      this.raf = requestAnimationFrame(loop);
    };
    this.raf = requestAnimationFrame(loop);
  }

  stop(): void {
    cancelAnimationFrame(this.raf);
    window.clearInterval(this.inputTimer);
    window.removeEventListener("keydown", this.onKey, true);
    this.unfit?.();
    this.controls?.detach();
    this.prediction?.stop("the page was left");
    this.connection.close();
  }

  private sendInput(): void {
    const controls = this.controls;
    if (controls === null) return;
    const value = controls.byte();
    if (this.connection.input(value, controls.heldMask)) {
      controls.sent(value);
      if (value !== this.lastSent) {
        // a changed byte: the presses waiting for their frame were stamped on this one
        for (const press of this.pressFrames) if (press.stamped < 0) press.stamped = this.connection.session.lastStamped;
      }
      this.lastSent = value;
      this.prediction?.pump();
    }
  }

  private onStream(message: StreamMessage): void {
    const stream = this.stream;
    if (stream === null || this.board === null || this.game === null) return;
    const started = performance.now();
    stream.apply(message);
    this.prediction?.onStream(message);
    this.log?.apply(message);
    if (message.kind === "frame" || message.kind === "resync") this.logAuthority(stream);
    if (message.kind === "frame") {
      this.board.applied(stream, message.frame);
      this.records += 1;
      this.events.onFrame?.(stream.model.lastEvents, message.frame);
      if (message.frame + 1 === stream.model.frame && this.settings.get("sound")) {
        this.game.sounds(stream.model.lastEvents, stream.joined.seat);
      }
    }
    this.applyMs += performance.now() - started;
    if (message.kind === "over") {
      this.over = message;
      this.result = message.result;
      this.events.onOver?.(message);
    }
  }

  /** Your avatar in the stream's state of each frame now confirmed (final: the authority's). */
  private logAuthority(stream: AnyStream): void {
    const seat = stream.joined.seat;
    const board = this.board;
    if (seat === null || board?.avatarIn === undefined) return;
    this.authorityNext = Math.max(this.authorityNext, stream.confirmed - KEPT_FRAMES + 1);
    // a record may say frames are confirmed before the records of them came (they follow in its batch)
    const last = Math.min(stream.confirmed, stream.model.frame);
    for (; this.authorityNext <= last; this.authorityNext += 1) {
      const state = stream.stateAt(this.authorityNext);
      if (state === undefined) continue;
      this.authority.push([this.authorityNext, board.avatarIn(state, seat)]);
    }
    if (this.authority.length > FRAME_LOG_KEPT) this.authority.splice(0, this.authority.length - FRAME_LOG_KEPT);
  }

  frameLog(): FrameLog {
    return { presses: this.pressFrames.map((press) => ({ ...press })), authority: [...this.authority], drawings: [...this.drawings] };
  }

  /** The prediction as the page and the tests read it (null: none for this page). */
  predictionState(): PredictionState | null {
    const prediction = this.prediction;
    if (prediction === null) return null;
    return {
      active: prediction.active, stopped: prediction.stopped, corrections: [...prediction.corrections],
      desyncs: [...prediction.desyncs], restores: prediction.restores, made: prediction.made, frame: prediction.state?.frame ?? -1,
      lastMs: prediction.lastMs, work: { ...prediction.work }, late: this.connection.session.late,
      lead: this.connection.session.clock.lead(),
    };
  }

  get drawnFrames(): number {
    return this.board?.frames ?? 0;
  }

  get drawMs(): number {
    return this.board?.busyMs ?? 0;
  }

  /** After a drawing: each key press whose avatar this drawing moved is measured; the drawing logged. */
  private measure(): void {
    const seat = this.stream?.joined.seat;
    if (seat === null || seat === undefined || this.board?.avatar === undefined || !this.stream?.started) return;
    const now = performance.now();
    const avatar = this.board.avatar(seat);
    const predicted = (this.prediction?.active ?? false) && this.over === null;
    const frame = Math.floor(this.display);
    this.drawings.push([frame, avatar, predicted]);
    if (this.drawings.length > 2 * FRAME_LOG_KEPT) this.drawings.splice(0, FRAME_LOG_KEPT);
    for (const press of this.pressFrames) {
      if (press.stamped >= 0 && press.drawnFrame < 0 && frame > press.stamped) {
        press.drawnFrame = frame;
        press.drawnAvatar = avatar;
        press.drawnPredicted = predicted;
      }
    }
    if (this.pending.length === 0) return;
    this.pending = this.pending.filter((press) => {
      press.draws += 1;
      if (press.avatar !== null && avatar !== null && avatar !== press.avatar) {
        this.presses.push({ ms: now - press.t, draws: press.draws, predicted });
        return false;
      }
      if (press.avatar === null) press.avatar = avatar;
      return press.draws < PRESS_DRAWS_KEPT;
    });
  }

  private draw(): void {
    const stream = this.stream;
    const board = this.board;
    if (stream === null || board === null || !stream.started) return;
    const predicted = this.prediction?.active && this.over === null ? this.prediction.state : null;
    if (predicted) {
      this.display = predicted.frame;
      board.draw({
        before: predicted, after: predicted, alpha: 0, frame: predicted.frame, timeLeft: predicted.timeLeft,
        names: this.names, seat: stream.joined.seat,
      });
      return;
    }
    const newest = stream.model.frame;
    const welcome = this.connection.welcome;
    const delay = this.role === "player" ? PLAYER_DELAY : (welcome?.rollback_window ?? 8) + PLAYER_DELAY;
    const estimate = this.connection.serverFrame();
    let display = estimate === null || this.over !== null ? newest : estimate - delay;
    display = Math.min(newest, Math.max(display, newest - 30));
    this.display = display;
    const base = Math.floor(display);
    const before = stream.stateAt(base) ?? stream.model;
    const after = stream.stateAt(base + 1) ?? before;
    board.draw({
      before,
      after: base + 1 <= newest ? after : before,
      alpha: display - base,
      frame: base,
      timeLeft: before.timeLeft,
      names: this.names,
      seat: this.role === "player" ? stream.joined.seat : null,
    });
  }
}
