/**
 * The replay player, for any game: a replay played from its server-made stream (keyframes to seek
 * to, frame records to play forward), drawn every animation frame by the game's board (the game view
 * named by `joined.ruleset`). Moved out of match.ts unchanged.
 */

import { decodeMulti } from "@msgpack/msgpack";
import { viewFor } from "../games/registry";
import type { Board } from "../games/view";
import { MatchStream } from "../net/stream";
import type { FrameBody, Joined, Keyframe, Over, View } from "../net/wire";
import { toMessage } from "../net/wire";

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
  private board: AnyBoard | null = null;
  private raf = 0;
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
    const box = this.canvas.parentElement;
    if (this.board && box) this.board.fit(box.clientWidth, Math.max(200, window.innerHeight - 130));
  }

  stop(): void {
    cancelAnimationFrame(this.raf);
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
