/**
 * A viewer's stream, for any ruleset: keyframes, frame records, rewinds and resyncs applied to the
 * game's model (`StreamModel`), the states of the last frames kept (a rewind restores the one before
 * the rewound frame; drawing interpolates between two), and every keyframe checked against the model
 * built up to it. What a record means is the model's business (games/<ruleset>/model.ts).
 */

import type { GameEvent, Vocabulary } from "./vocabulary";
import type { FrameBody, Joined, Keyframe, StreamMessage, View } from "./wire";

/** Frames of states kept behind the newest (covers the rollback window and the drawing delay). */
export const KEPT_FRAMES = 48;

/** What the stream needs of a game's model: every seat's state at the start of `frame`. */
export interface StreamModel<Self> {
  readonly vocabulary: Vocabulary;
  /** The frame this state is at the start of. */
  frame: number;
  /** Frames left on the match clock. */
  timeLeft: number;
  /** Events of the last frame applied (sounds and effects use them). */
  lastEvents: GameEvent[];
  /** Start from a keyframe view (the state at the start of `view.frame`). */
  applyView(view: View): void;
  /** Apply one frame record. */
  applyFrame(body: FrameBody): void;
  clone(): Self;
  /** Where this model and a keyframe view of the same frame differ (empty when they agree). */
  differences(view: View): string[];
  /** The model as plain data (tests compare pages with each other). */
  plain(): unknown;
}

/** A keyframe compared with the model the stream had built for its frame. */
export interface KeyframeCheck {
  frame: number;
  differences: string[];
  /** The model built for that frame, plain (tests compare pages with each other). */
  model: unknown;
}

export class MatchStream<M extends StreamModel<M>> {
  readonly vocabulary: Vocabulary;
  model: M;
  /** The state at the start of each recent frame (frame → model). */
  readonly states = new Map<number, M>();
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

  /** `newModel` makes an empty model of the match's ruleset (the game view's). */
  constructor(readonly joined: Joined, private readonly newModel: () => M) {
    this.model = newModel();
    this.vocabulary = this.model.vocabulary;
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
    this.model = this.newModel();
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
  stateAt(frame: number): M | undefined {
    return frame === this.model.frame ? this.model : this.states.get(frame);
  }
}
