/**
 * A board played in the browser engine alone (src/engine: the `practice`, `step` and `finish`
 * requests): "play from here" (a replay's position continued as a solo practice board) and the daily
 * challenge. The page's seat takes its bytes from the game's controls, one per frame at 60 frames a
 * second; every other seat is played by the ruleset's bot inside the engine (or holds its input). The
 * engine answers each frame's body as the server's stream would, so the board is drawn by the same
 * stream model and game view as a live match. Nothing here talks to the server.
 */

import type { Engine } from "../engine/engine";
import type { EngineKeyframe } from "../engine/protocol";
import { viewFor } from "../games/registry";
import type { Board, InputDevice } from "../games/view";
import { MatchStream } from "../net/stream";
import type { Joined, MatchResult } from "../net/wire";
import { fitToStage } from "./layout";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the game's model, whichever it is
type AnyStream = MatchStream<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyBoard = Board<any>;

/** Frames a second the practice board runs at (the server's rate). */
const FRAME_RATE = 60;
/** The most frames asked of the engine in one request (after a stall the board catches up in steps). */
const MOST_FRAMES_A_STEP = 8;

/** How a practice board starts: a fresh match (`start` null) or a replay's plain data played to `frame`. */
export interface PracticeStart {
  joined: Joined;
  seat: number;
  bot: string;
  start: unknown;
  frame: number;
  /** The guest the run is bound to (a daily run), or "". */
  player: string;
}

export class PracticeBoard {
  readonly stream: AnyStream;
  readonly board: AnyBoard;
  private readonly controls: InputDevice;
  private raf = 0;
  private unfit: (() => void) | null = null;
  private last = 0;
  /** Frames due and not yet asked of the engine (fractional). */
  private due = 0;
  private asking = false;
  result: MatchResult | null = null;
  /** The run's replay as plain data, once over. */
  replay: unknown = null;
  failed: string | null = null;
  /** The frame the board started at, the last frame's inputs, and how often a seat's input changed. */
  readonly startFrame: number;
  lastInputs: number[] = [];
  changes: number[] = [];
  /** Called with each frame played (the daily page's ghost follows it). */
  onFrame: ((frame: number) => void) | null = null;
  onOver: ((result: MatchResult, replay: unknown) => void) | null = null;

  private constructor(private readonly engine: Engine, private readonly canvas: HTMLCanvasElement,
    readonly joined: Joined, keyframe: EngineKeyframe) {
    const game = viewFor(joined.ruleset);
    this.stream = new MatchStream(joined, game.models(joined));
    this.stream.reset(keyframe.view);
    this.board = game.board(canvas, joined);
    this.board.restarted();
    this.controls = game.controls();
    this.startFrame = keyframe.frame;
  }

  /** Start a practice board in the engine (its state made there first). */
  static async open(engine: Engine, canvas: HTMLCanvasElement, start: PracticeStart): Promise<PracticeBoard> {
    const given = start.joined;
    const keyframe = await engine.request({
      op: "practice", ruleset: given.ruleset, version: given.ruleset_version, config: given.config,
      seed: given.seed, seats: given.seats, seat: start.seat, bot: start.bot, start: start.start,
      frame: start.frame, player: start.player,
    });
    const joined: Joined = { ...given, role: "player", seat: start.seat, state: "running", tables: keyframe.tables };
    return new PracticeBoard(engine, canvas, joined, keyframe);
  }

  start(): void {
    this.controls.attach(this.canvas.parentElement ?? undefined);
    const loop = (time: number): void => {
      const elapsed = this.last === 0 ? 0 : Math.min(250, time - this.last);
      this.last = time;
      if (this.result === null && this.failed === null) {
        this.due += (elapsed / 1000) * FRAME_RATE;
        if (!this.asking && this.due >= 1) void this.advance();
      }
      this.draw();
      this.raf = requestAnimationFrame(loop);
    };
    this.raf = requestAnimationFrame(loop);
    this.unfit = fitToStage(this.board, this.canvas, this.joined.seat);
  }

  stop(): void {
    cancelAnimationFrame(this.raf);
    this.unfit?.();
    this.controls.detach();
  }

  /** The frames due, played in the engine with the controls' byte (one press spent on the first). */
  private async advance(): Promise<void> {
    const count = Math.min(MOST_FRAMES_A_STEP, Math.floor(this.due));
    this.due -= count;
    const inputs: number[] = [];
    for (let i = 0; i < count; i++) {
      const value = this.controls.byte();
      this.controls.sent(value);
      inputs.push(value);
    }
    this.asking = true;
    try {
      const bodies = await this.engine.request({ op: "step", inputs });
      for (const body of bodies) {
        this.stream.apply({ kind: "frame", n: 0, confirmed: body.frame + 1, ...body });
        this.board.applied(this.stream, body.frame);
        body.inputs.forEach((value, seat) => {
          if (value !== this.lastInputs[seat]) this.changes[seat] = (this.changes[seat] ?? 0) + 1;
        });
        this.lastInputs = body.inputs;
      }
      if (bodies.length) this.onFrame?.(this.stream.model.frame);
      if (bodies.length < inputs.length) {
        const finished = await this.engine.request({ op: "finish" });
        if (finished.result !== null) {
          this.result = finished.result;
          this.replay = finished.replay;
          this.onOver?.(finished.result, finished.replay);
        }
      }
    } catch (error) {
      this.failed = error instanceof Error ? error.message : String(error);
    } finally {
      this.asking = false;
    }
  }

  private draw(): void {
    const model = this.stream.model;
    const previous = this.stream.stateAt(model.frame - 1) ?? model;
    this.board.draw({
      before: previous,
      after: model,
      alpha: 1,
      frame: model.frame,
      timeLeft: model.timeLeft,
      names: this.joined.seats,
      seat: this.joined.seat,
    });
  }
}
