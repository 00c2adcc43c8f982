/**
 * The match view, for any game: a live match played or watched (a `Connection` feeding a
 * `MatchStream`), or a replay played from its server-made stream (`ReplayPlayer`), drawn every
 * animation frame by the game's board (the game view named by `joined.ruleset`).
 *
 * Live, the display runs a few frames behind the newest record (the player's own stream: 2; a
 * spectator's, which trails by the rollback window: 2 more than `rollback_window`), interpolating
 * between the two frame states around it, so 30 websocket messages a second of two frames each make
 * smooth 60 Hz motion.
 */

import { decodeMulti } from "@msgpack/msgpack";
import { type AnyGameView, viewFor } from "../games/registry";
import type { Board, InputDevice } from "../games/view";
import { MatchStream } from "../net/stream";
import { Connection } from "../net/transport";
import type { FrameBody, Joined, Keyframe, MatchResult, Over, Rated, StreamMessage, View } from "../net/wire";
import { toMessage } from "../net/wire";
import { fitToStage } from "./layout";
import { browserSettings } from "./settings";

/** Frames the display trails the newest record by (a player's own stream). */
const PLAYER_DELAY = 2;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the game's model, whichever it is
type AnyStream = MatchStream<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyBoard = Board<any>;

export interface MatchEvents {
  onJoined?(joined: Joined, game: AnyGameView): void;
  onRated?(rated: Rated): void;
  onOver?(over: Over): void;
  onConnection?(dropped: boolean): void;
  onError?(code: string, message: string, fatal: boolean): void;
}

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
  /** Leave the match for good (a player forfeits it): a test reaches the result without playing it out. */
  leave?: () => void;
}

/** A live match: play (with controls) or watch. */
export class LiveView {
  stream: AnyStream | null = null;
  readonly connection: Connection;
  private game: AnyGameView | null = null;
  private board: AnyBoard | null = null;
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
        this.stream = new MatchStream(joined, game.models(joined));
        this.board = game.board(canvas, joined);
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
    });
  }

  start(): void {
    this.connection.open();
    if (this.role === "player") this.inputTimer = window.setInterval(() => this.sendInput(), 1000 / 120);
    const loop = (): void => {
      this.draw();
      this.raf = requestAnimationFrame(loop);
    };
    this.raf = requestAnimationFrame(loop);
  }

  stop(): void {
    cancelAnimationFrame(this.raf);
    window.clearInterval(this.inputTimer);
    this.unfit?.();
    this.controls?.detach();
    this.connection.close();
  }

  private sendInput(): void {
    const controls = this.controls;
    if (controls === null) return;
    const value = controls.byte();
    if (this.connection.input(value, controls.heldMask)) controls.sent(value);
  }

  private onStream(message: StreamMessage): void {
    const stream = this.stream;
    if (stream === null || this.board === null || this.game === null) return;
    const started = performance.now();
    stream.apply(message);
    if (message.kind === "frame") {
      this.board.applied(stream, message.frame);
      this.records += 1;
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

  get drawnFrames(): number {
    return this.board?.frames ?? 0;
  }

  get drawMs(): number {
    return this.board?.busyMs ?? 0;
  }

  private draw(): void {
    const stream = this.stream;
    const board = this.board;
    if (stream === null || board === null || !stream.started) return;
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
      names: stream.joined.seats,
      seat: this.role === "player" ? stream.joined.seat : null,
    });
  }
}

/** A replay from its server-made stream: keyframes to seek to, frames to play forward. */
export class ReplayPlayer {
  joined: Joined | null = null;
  private keyframes: Keyframe[] = [];
  private bodies: FrameBody[] = [];
  over: Over | null = null;
  stream: AnyStream | null = null;
  private board: AnyBoard | null = null;
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
    if (this.joined === null || this.keyframes.length === 0) throw new Error("not a replay stream");
    const game = viewFor(this.joined.ruleset);
    this.stream = new MatchStream(this.joined, game.models(this.joined));
    this.board = game.board(this.canvas, this.joined);
    this.seek(0);
  }

  get finalFrame(): number {
    return this.bodies.length;
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
