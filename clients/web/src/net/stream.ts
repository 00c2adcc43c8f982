/**
 * A viewer's stream: keyframes, frame records, rewinds and resyncs applied to a `MatchModel`, the
 * states of the last frames kept (a rewind restores the one before the rewound frame; drawing
 * interpolates between two), and every keyframe checked against the model built up to it.
 */

import { MatchModel, type PlainSeat } from "../games/pengo/model";
import { type FrameBody, type Joined, type Keyframe, type StreamMessage, type View, Vocabulary } from "./wire";

/** Frames of states kept behind the newest (covers the rollback window and the drawing delay). */
export const KEPT_FRAMES = 48;

/** A keyframe compared with the model the stream had built for its frame. */
export interface KeyframeCheck {
  frame: number;
  differences: string[];
  /** The model built for that frame, plain (tests compare pages with each other). */
  model: PlainSeat[];
}

export class MatchStream {
  readonly vocabulary: Vocabulary;
  model: MatchModel;
  /** The state at the start of each recent frame (frame → model). */
  readonly states = new Map<number, MatchModel>();
  readonly checks: KeyframeCheck[] = [];
  /** The newest keyframe view by frame (tests compare pages with them). */
  readonly keyframes = new Map<number, View>();
  started = false;
  lastN = 0;
  confirmed = 0;
  rewinds = 0;
  resyncs = 0;
  /** Events seen per kind and seat ("kick:0"), frames re-sent after a rewind counted again. */
  readonly seen = new Map<string, number>();

  constructor(readonly joined: Joined) {
    this.vocabulary = new Vocabulary(joined.tables);
    this.model = new MatchModel(this.vocabulary);
  }

  /** Apply one stream message (in stream order). */
  apply(message: StreamMessage): void {
    if (message.kind !== "resync") this.lastN = message.n;
    switch (message.kind) {
      case "keyframe":
        this.keyframe(message);
        break;
      case "frame":
        this.confirmed = Math.max(this.confirmed, message.confirmed);
        this.frame(message);
        break;
      case "rewind":
        this.rewind(message.frame);
        break;
      case "resync":
        this.resyncs += 1;
        this.lastN = message.n;
        this.confirmed = Math.max(this.confirmed, message.confirmed);
        this.start(message.view);
        for (const body of message.frames) this.frame(body);
        break;
      case "over":
        break;
    }
  }

  /** Start again from a keyframe view (a replay's seek). */
  reset(view: View): void {
    this.start(view);
  }

  private start(view: View): void {
    this.keyframes.set(view.frame, view);
    this.model = new MatchModel(this.vocabulary);
    this.model.applyView(view);
    this.states.clear();
    this.states.set(view.frame, this.model.clone());
    this.started = true;
  }

  private keyframe(message: Keyframe): void {
    const view = message.view;
    this.keyframes.set(view.frame, view);
    if (!this.started) {
      this.start(view);
      return;
    }
    const built = view.frame === this.model.frame ? this.model : this.states.get(view.frame);
    if (built !== undefined) {
      this.checks.push({ frame: view.frame, differences: built.differences(view), model: built.plain() });
    }
    if (view.frame === this.model.frame) this.start(view);
  }

  private frame(body: FrameBody): void {
    if (!this.started) return;
    if (body.frame < this.model.frame) {
      const before = this.states.get(body.frame);
      if (before === undefined) return;
      this.model = before.clone();
    }
    if (body.frame !== this.model.frame) return; // a gap: wait for the next keyframe
    this.model.applyFrame(body);
    for (const event of this.model.lastEvents) {
      const key = `${event.kind}:${event.seat ?? ""}`;
      this.seen.set(key, (this.seen.get(key) ?? 0) + 1);
    }
    this.states.set(this.model.frame, this.model.clone());
    this.states.delete(this.model.frame - KEPT_FRAMES);
  }

  private rewind(frame: number): void {
    this.rewinds += 1;
    const before = this.states.get(frame);
    if (before === undefined) return;
    this.model = before.clone();
    for (const kept of [...this.states.keys()]) if (kept > frame) this.states.delete(kept);
  }

  /** The state at the start of `frame`, if kept. */
  stateAt(frame: number): MatchModel | undefined {
    return frame === this.model.frame ? this.model : this.states.get(frame);
  }
}
