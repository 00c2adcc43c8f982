/**
 * The match view: a live match played or watched (a `Session` feeding a `MatchStream`), or a replay
 * played from its server-made stream (`ReplayPlayer`), drawn every animation frame.
 *
 * Live, the display runs a few frames behind the newest record (the player's own stream: 2; a
 * spectator's, which trails by the rollback window: 2 more than `rollback_window`), interpolating
 * between the two frame states around it, so 30 websocket messages a second of two frames each make
 * smooth 60 Hz motion.
 */

import { Controls } from "../games/pengo/input";
import { MatchModel } from "../games/pengo/model";
import { type DrawInput, Renderer } from "../games/pengo/render";
import { Session } from "../net/session";
import { play as playSound } from "../games/pengo/sound";
import { MatchStream } from "../net/stream";
import { decodeMulti } from "@msgpack/msgpack";
import type { FrameBody, Joined, Keyframe, MatchResult, Over, Rated, StreamMessage, View } from "../net/wire";
import { toMessage } from "../net/wire";

/** Frames the display trails the newest record by (a player's own stream). */
const PLAYER_DELAY = 2;

export interface MatchEvents {
  onJoined?(joined: Joined): void;
  onRated?(rated: Rated): void;
  onOver?(over: Over): void;
  onConnection?(dropped: boolean): void;
  onError?(code: string, message: string, fatal: boolean): void;
}

/** What a test reads from the page (window.__floe). */
export interface TestHooks {
  stream: () => MatchStream | null;
  drawnFrames: () => number;
  /** Milliseconds spent drawing and applying stream records so far (bench/browser_fps.py). */
  busy?: () => { drawMs: number; applyMs: number; records: number };
  displayFrame: () => number;
  result: () => MatchResult | null;
  seek?: (frame: number) => void;
  /** Drop the connection as a network failure would (a live page reconnects and resumes). */
  dropConnection?: () => void;
}

type Landings = DrawInput["landings"];

function noteLandings(landings: Landings, stream: MatchStream, body: FrameBody): void {
  for (const event of stream.model.lastEvents) {
    if (event.kind !== "landing" || typeof event.seat !== "number") continue;
    const cells = [...((event.blocks as [number, number][]) ?? []), ...((event.gems as [number, number][]) ?? [])];
    const list = landings.get(event.seat) ?? [];
    list.push({ frame: body.frame, cells });
    while (list.length > 8) list.shift();
    landings.set(event.seat, list);
  }
}

/** A live match: play (with controls) or watch. */
export class LiveView {
  stream: MatchStream | null = null;
  readonly session: Session;
  private renderer: Renderer | null = null;
  private readonly controls = new Controls();
  private raf = 0;
  private inputTimer: number | undefined;
  private landings: Landings = new Map();
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
    this.session = new Session(url, token, match, role, {
      onJoined: (joined) => {
        this.stream = new MatchStream(joined);
        this.renderer = new Renderer(canvas, this.stream.vocabulary, joined.seats.length);
        this.fit();
        events.onJoined?.(joined);
      },
      onStream: (message) => this.onStream(message),
      onError: (code, message, fatal) => events.onError?.(code, message, fatal),
      onConnection: (dropped) => events.onConnection?.(dropped),
      onRated: (rated) => events.onRated?.(rated),
    });
  }

  start(): void {
    this.session.open();
    if (this.role === "player") {
      this.controls.attach();
      this.inputTimer = window.setInterval(() => this.sendInput(), 1000 / 120);
    }
    window.addEventListener("resize", this.fit);
    const loop = (): void => {
      this.draw();
      this.raf = requestAnimationFrame(loop);
    };
    this.raf = requestAnimationFrame(loop);
  }

  stop(): void {
    cancelAnimationFrame(this.raf);
    window.clearInterval(this.inputTimer);
    window.removeEventListener("resize", this.fit);
    this.controls.detach();
    this.session.close();
  }

  private readonly fit = (): void => {
    const box = this.canvas.parentElement;
    if (this.renderer && box) this.renderer.fit(box.clientWidth, Math.max(200, window.innerHeight - 110));
  };

  private sendInput(): void {
    const value = this.controls.byte();
    if (this.session.input(value) && value & 0x08) this.controls.kicked();
  }

  private onStream(message: StreamMessage): void {
    const stream = this.stream;
    if (stream === null) return;
    const started = performance.now();
    stream.apply(message);
    if (message.kind === "frame") {
      noteLandings(this.landings, stream, message);
      this.records += 1;
      if (message.frame + 1 === stream.model.frame) playSound(stream.model.lastEvents, stream.joined.seat);
    }
    this.applyMs += performance.now() - started;
    if (message.kind === "over") {
      this.over = message;
      this.result = message.result;
      this.events.onOver?.(message);
    }
  }

  get drawnFrames(): number {
    return this.renderer?.frames ?? 0;
  }

  get drawMs(): number {
    return this.renderer?.busyMs ?? 0;
  }

  private draw(): void {
    const stream = this.stream;
    const renderer = this.renderer;
    if (stream === null || renderer === null || !stream.started) return;
    const newest = stream.model.frame;
    const welcome = this.session.welcome;
    const delay = this.role === "player" ? PLAYER_DELAY : (welcome?.rollback_window ?? 8) + PLAYER_DELAY;
    const estimate = this.session.serverFrame();
    let display = estimate === null || this.over !== null ? newest : estimate - delay;
    display = Math.min(newest, Math.max(display, newest - 30));
    this.display = display;
    const base = Math.floor(display);
    const before = stream.stateAt(base) ?? stream.model;
    const after = stream.stateAt(base + 1) ?? before;
    renderer.draw({
      before,
      after: base + 1 <= newest ? after : before,
      alpha: display - base,
      frame: base,
      timeLeft: before.timeLeft,
      names: stream.joined.seats,
      seat: this.role === "player" ? stream.joined.seat : null,
      landings: this.landings,
    });
  }
}

/** A replay from its server-made stream: keyframes to seek to, frames to play forward. */
export class ReplayPlayer {
  joined: Joined | null = null;
  private keyframes: Keyframe[] = [];
  private bodies: FrameBody[] = [];
  over: Over | null = null;
  stream: MatchStream | null = null;
  private renderer: Renderer | null = null;
  private raf = 0;
  private landings: Landings = new Map();
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
    this.stream = new MatchStream(this.joined);
    this.renderer = new Renderer(this.canvas, this.stream.vocabulary, this.joined.seats.length);
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
      this.landings = new Map();
    }
    while (stream.model.frame < target) {
      const body = this.bodies[stream.model.frame];
      if (body === undefined) break;
      stream.apply({ kind: "frame", n: 0, confirmed: body.frame + 1, ...body });
      noteLandings(this.landings, stream, body);
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
    const box = this.canvas.parentElement;
    if (this.renderer && box) this.renderer.fit(box.clientWidth, Math.max(200, window.innerHeight - 130));
  }

  stop(): void {
    cancelAnimationFrame(this.raf);
  }

  get drawnFrames(): number {
    return this.renderer?.frames ?? 0;
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
    if (stream === null || this.renderer === null) return;
    const model: MatchModel = stream.model;
    const previous = stream.stateAt(model.frame - 1) ?? model;
    this.renderer.draw({
      before: previous,
      after: model,
      alpha: this.playing ? this.position - Math.floor(this.position) : 1,
      frame: model.frame,
      timeLeft: model.timeLeft,
      names: this.joined?.seats ?? [],
      seat: null,
      landings: this.landings,
    });
  }
}
