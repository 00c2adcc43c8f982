/**
 * Prediction, for any game (GGPO's shape; the server stays the authority): the browser engine's
 * replica (src/engine, floe_engine.py `Replica`) rebuilt from what the players' stream carries — the
 * ruleset, config, seed and seats of `joined`, and each frame record's inputs — and the frames past the
 * confirmed one predicted, incrementally.
 *
 * - Every frame record's inputs are kept (a `rewind` forgets the frames it takes back; a re-sent
 *   record replaces them). Frames below the stream's `confirmed` are final: they go to the replica
 *   once each, in order.
 * - The seat's own bytes, as the session stamped them (`Session.own`), are played on their frames; the
 *   other seats hold their last confirmed input (the server's own prediction). The replica keeps its
 *   predicted state and steps it on to the frame the session stamps next: one step a frame in play.
 *   A confirmed frame that agrees with what was predicted only moves its confirmed pointer; one that
 *   disagrees restores a snapshot at or before it and re-simulates to the present (the rollback).
 * - One request is in flight at a time (`pump` coalesces what comes meanwhile), and a request steps a
 *   bounded number of frames (the page asks again for the rest), so the worker is never queued faster
 *   than it answers, and a catch-up never holds it long.
 * - Each answer's frame bodies are the stream's own form: applied to the page's predicted state, or,
 *   after a rollback, to the stream's state of the confirmed frame (final); the newest state is what
 *   the page draws.
 * - What was drawn of each predicted frame is compared with that frame's final simulation once it is
 *   confirmed (in the worker, per seat): a difference is a correction, counted per seat
 *   (`corrections`; the board eases it). A keyframe whose checksum differs from the replica's state at
 *   its frame is a desync: counted (reported), and the page draws from the stream alone until the
 *   replica is rebuilt (the stream is the authority).
 *
 * The replica needs every frame's inputs from its confirmed frame on. Once the engine is ready, every
 * `join` asks for `replica` (`OwnInputs.replica`): a `resync` then carries the match's state at its
 * keyframe (`state`), and the replica is rebuilt from it (`restore`) and predicts again, after a
 * reconnect past the history's end as after a desync (the protocol has no resync on demand: a desync
 * waits for the next one, at the next reconnect). A `resync` without `state` that starts past the
 * frames the replica has stops the prediction, and the page draws from the stream, as a thin client.
 */

import type { Engine } from "../engine/engine";
import type { MatchStream, StreamModel } from "./stream";
import type { FrameBody, Joined, ReplicaState, StreamMessage } from "./wire";

/** Frames of the stream's inputs kept past the replica's confirmed frame (a bound on a stuck worker). */
export const INPUTS_KEPT = 1200;
/** Frames of inputs kept while the engine loads (ten minutes of play); past them prediction gives up. */
export const LOADING_KEPT = 36_000;

/** What the prediction needs of the session: the seat's own stamped bytes and the next frame to stamp. */
export interface OwnInputs {
  readonly own: ReadonlyMap<number, number>;
  readonly stampedUntil: number;
  /** Set once the engine is ready: the next `join` asks that resyncs carry the match's state. */
  replica: boolean;
}

/** What the bench reads of the worker's work. */
export interface PredictionWork {
  /** Advances answered, rollbacks, frames stepped and re-simulated (in the worker). */
  advances: number;
  rollbacks: number;
  stepped: number;
  resimulated: number;
  /** Milliseconds the worker spent on advances (all), and the longest one. */
  workerMs: number;
  workerMaxMs: number;
}

export class Prediction<M extends StreamModel<M>> {
  /** Each frame's inputs as the stream last said them. */
  private readonly inputs = new Map<number, number[]>();
  private confirmed = 0;
  /** Frames below this are confirmed in the replica (the next confirmed row it needs). */
  private base = 0;
  private replica = false;
  private busy = false;
  private again = false;
  /** The page holds no state of the replica's chain (it starts again from the confirmed frame). */
  private fresh = true;
  /** Why the prediction stopped (null while it runs); a resync with `state` starts it again unless
   * the engine itself failed (`broken`). */
  stopped: string | null = null;
  private broken = false;
  /** Bumped by each rebuild: an answer to a request made before it is dropped. */
  private generation = 0;
  /** A resync's state that came while the engine loaded (restored once the replica exists). */
  private pendingState: ReplicaState | null = null;
  /** Rebuilds of the replica from a resync's state. */
  restores = 0;
  /** The newest predicted state (the start of frame `state.frame`). */
  state: M | null = null;
  /** Corrections of what was drawn, per seat, and the keyframes the replica disagreed with. */
  corrections: number[];
  desyncs: number[] = [];
  /** Predictions made (answers drawn), and the milliseconds the last one took (request to answer). */
  made = 0;
  lastMs = 0;
  readonly work: PredictionWork = { advances: 0, rollbacks: 0, stepped: 0, resimulated: 0, workerMs: 0, workerMaxMs: 0 };
  /** Called when a correction was counted (the board eases it). */
  onCorrection: (() => void) | null = null;
  /** Called on a desync (the page reports it). */
  onDesync: ((frame: number) => void) | null = null;

  constructor(private readonly engine: Engine, private readonly joined: Joined, private readonly seat: number,
    private readonly stream: MatchStream<M>, private readonly session: OwnInputs) {
    this.corrections = joined.seats.map(() => 0);
  }

  /** Create the replica once the engine is loaded (the page draws from the stream until then). */
  start(): void {
    const joined = this.joined;
    this.engine.ready
      .then(() => this.engine.request({
        op: "create", ruleset: joined.ruleset, version: joined.ruleset_version, config: joined.config, seed: joined.seed,
        seats: joined.seats,
      }))
      .then(async () => {
        this.replica = true;
        this.session.replica = true;
        const state = this.pendingState;
        this.pendingState = null;
        if (state !== null) await this.restore(state);
        this.pump();
      })
      .catch((error: unknown) => this.fail(error));
  }

  private fail(error: unknown): void {
    this.broken = true;
    this.stop(`the engine failed: ${error instanceof Error ? error.message : String(error)}`);
  }

  /** Rebuild the replica from a resync's state: it starts again at that frame, confirmed, with the
   * page's inputs from there (the resync's frames, which the caller keeps); the page holds nothing. */
  private async restore(state: ReplicaState): Promise<void> {
    this.generation += 1;
    this.base = state.frame;
    this.fresh = true;
    this.state = null;
    this.stopped = null;
    this.keyframes.length = 0;
    await this.engine.request({ op: "restore", state });
    this.restores += 1;
  }

  /** Prediction is drawn (the engine runs, nothing stopped it, a state is predicted). */
  get active(): boolean {
    return this.stopped === null && this.state !== null;
  }

  stop(why: string): void {
    if (this.stopped === null) this.stopped = why;
    this.state = null;
  }

  /** A stream message, after the stream applied it. */
  onStream(message: StreamMessage): void {
    if (message.kind === "resync" && message.state !== undefined && !this.broken) {
      this.rebuild(message.state, message.frames, message.confirmed);
      return;
    }
    if (this.stopped !== null) return;
    switch (message.kind) {
      case "frame":
        this.inputs.set(message.frame, message.inputs);
        this.confirmed = Math.max(this.confirmed, message.confirmed);
        if (!this.replica && this.inputs.size > LOADING_KEPT) this.stop("the engine took too long to load");
        break;
      case "rewind":
        for (const frame of [...this.inputs.keys()]) if (frame >= message.frame) this.inputs.delete(frame);
        break;
      case "resync": {
        const first = message.frames[0]?.frame ?? message.frame;
        if (first > this.nextNeeded()) {
          this.stop("a resync past the replica's frames");
          return;
        }
        for (const body of message.frames) this.inputs.set(body.frame, body.inputs);
        this.confirmed = Math.max(this.confirmed, message.confirmed);
        break;
      }
      case "keyframe":
        if (this.replica) void this.engine.request({ op: "keyframe", frame: message.frame, checksum: message.checksum });
        else this.keyframes.push([message.frame, message.checksum]);
        break;
      case "over":
        break;
    }
    this.pump();
  }

  private readonly keyframes: [number, string][] = [];

  /** A resync with the match's state: the inputs from its frame on are the resync's, and the replica is
   * rebuilt there (now, or once the engine is ready); prediction runs again. */
  private rebuild(state: ReplicaState, frames: FrameBody[], confirmed: number): void {
    this.inputs.clear();
    for (const body of frames) this.inputs.set(body.frame, body.inputs);
    this.confirmed = confirmed;
    if (!this.replica) {
      this.pendingState = state;
      this.base = state.frame;
      this.stopped = null;
      return;
    }
    // the request goes after any in flight (the worker answers in order); that one's answer is dropped
    this.restore(state)
      .then(() => this.pump())
      .catch((error: unknown) => this.fail(error));
  }

  /** The first frame whose inputs the replica still needs. */
  private nextNeeded(): number {
    let frame = this.base;
    while (this.inputs.has(frame)) frame += 1;
    return frame;
  }

  /** A new input was stamped, or a frame confirmed: advance the replica (one request at a time; what
   * comes while one is in flight is taken by the next). */
  pump(): void {
    if (!this.replica || this.stopped !== null) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.again = false;
    this.cycle()
      .catch((error: unknown) => this.fail(error))
      .finally(() => {
        this.busy = false;
        if (this.again) this.pump();
      });
  }

  private async cycle(): Promise<void> {
    const engine = this.engine;
    for (const [frame, checksum] of this.keyframes.splice(0)) await engine.request({ op: "keyframe", frame, checksum });
    const rows: [number, number[]][] = [];
    for (let frame = this.base; frame < this.confirmed; frame += 1) {
      const inputs = this.inputs.get(frame);
      if (inputs === undefined) break;
      rows.push([frame, inputs]);
    }
    if (this.inputs.size > INPUTS_KEPT) {
      this.stop("the replica fell behind the stream");
      return;
    }
    const target = this.session.stampedUntil;
    const own: Record<number, number> = {};
    for (const [frame, value] of this.session.own) if (frame >= this.base && frame < target) own[frame] = value;
    const asked = performance.now();
    const generation = this.generation;
    const answer = await engine.request({ op: "advance", seat: this.seat, rows, own, target, fresh: this.fresh });
    if (generation !== this.generation) return; // asked of the replica before a rebuild
    this.fresh = false;
    this.lastMs = performance.now() - asked;
    const work = this.work;
    work.advances = answer.advances;
    work.rollbacks = answer.rollbacks;
    work.stepped = answer.stepped;
    work.resimulated = answer.resimulated;
    work.workerMs += answer.ms;
    work.workerMaxMs = Math.max(work.workerMaxMs, answer.ms);
    this.base = answer.base;
    for (const frame of [...this.inputs.keys()]) if (frame < this.base) this.inputs.delete(frame);
    this.count(answer.corrections, answer.desyncs);
    if (this.stopped !== null) return;
    if (answer.from >= 0) this.apply(answer.from, answer.restart, answer.bodies);
    // the replica stepped as far as one request may: ask for the rest
    if (answer.present < target && answer.bodies.length > 0) this.again = true;
  }

  private count(corrections: number[], desyncs: number[]): void {
    if (corrections.some((count, seat) => count > (this.corrections[seat] ?? 0))) this.onCorrection?.();
    this.corrections = corrections;
    const fresh = desyncs.slice(this.desyncs.length);
    for (const frame of fresh) {
      this.desyncs.push(frame);
      this.onDesync?.(frame);
    }
    if (fresh.length > 0) this.stop(`the replica disagreed with the keyframe of frame ${fresh[0]}`);
  }

  /** The answer's bodies applied: after a rollback (`restart`) to the stream's state at `from` (a
   * confirmed frame: final), else to the page's predicted state (at `from`). Without that state (the
   * stream no longer keeps the frame) the next request starts again from the confirmed frame. */
  private apply(from: number, restart: boolean, bodies: FrameBody[]): void {
    const start = restart ? this.stream.stateAt(from) : (this.state?.frame === from ? this.state : undefined);
    if (start === undefined) {
      this.fresh = true;
      return;
    }
    const model = start.clone();
    for (const body of bodies) model.applyFrame(body);
    this.state = model;
    this.made += 1;
  }
}
