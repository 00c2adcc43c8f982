/**
 * What the live match page says beside the board, apart from the board: who watches (the spectator
 * count from `joined.spectators` and each `status.spectators`, and a ranked match's spectator delay
 * from `joined.delay`), and the text summary of the match (score, lives, time, last event) in an
 * aria-live region for screen readers (app/summary.ts builds its text).
 */

import type { MatchStream } from "../net/stream";
import type { GameEvent } from "../net/vocabulary";
import type { Joined, Status } from "../net/wire";
import { el } from "./dom";
import { type Marker, markerOf, markerText } from "./markers";
import { matchSummary, type SummaryModel } from "./summary";
import { watchingText } from "./watching";

/** How often the summary is looked at (ms); its text changes only every `SUMMARY_BUCKET` frames or at an event. */
const SUMMARY_EVERY_MS = 500;
/** Frames of match time between two summaries while nothing happens (5 s: a screen reader is not flooded). */
const SUMMARY_BUCKET = 300;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the game's model, whichever it is
type AnyStream = MatchStream<any>;

export class MatchInfo {
  /** The spectator count and the delay. */
  readonly watching = el("p", { id: "watching", class: "help", "aria-live": "polite" });
  /** The match in words. */
  readonly summary = el("p", { id: "summary", class: "summary", role: "status", "aria-live": "polite" });
  private seats: readonly string[] = [];
  private delay = 0;
  private last: Marker | null = null;
  private spokenKey = "";
  private timer: number | undefined;

  constructor(private readonly role: "player" | "spectator") {}

  joined(joined: Joined): void {
    this.seats = joined.seats;
    this.delay = joined.delay ?? 0;
    this.spectators(joined.spectators ?? 0);
  }

  status(status: Status): void {
    if (typeof status.spectators === "number") this.spectators(status.spectators);
  }

  /** A frame's events: the newest that marks a moment (a death, a landing, a big attack, a round clear). */
  frame(events: readonly GameEvent[], frame: number): void {
    for (const event of events) {
      const marker = markerOf(event, frame);
      if (marker !== null) this.last = marker;
    }
  }

  /** Show the summary beside the board's canvas and the count after `status`; they stop when removed. */
  attach(canvas: HTMLCanvasElement, status: HTMLElement, stream: () => AnyStream | null): void {
    // Beside the board: the board's box and the summary side by side (wrapping on a narrow screen).
    const stage = canvas.parentElement;
    if (stage !== null) {
      const viewer = el("div", { class: "viewer" });
      stage.replaceWith(viewer);
      viewer.append(stage, this.summary);
    }
    status.after(this.watching);
    this.timer = window.setInterval(() => {
      if (!this.summary.isConnected) {
        window.clearInterval(this.timer);
        return;
      }
      const shown = stream();
      if (shown === null || !shown.started) return;
      const model = shown.model as unknown as SummaryModel & { frame: number };
      const key = `${Math.floor(model.frame / SUMMARY_BUCKET)}|${this.last?.frame ?? -1}`;
      if (key === this.spokenKey) return;
      this.spokenKey = key;
      this.summary.textContent = matchSummary(model, this.seats, this.last === null ? null : markerText(this.last, this.seats));
    }, SUMMARY_EVERY_MS);
  }

  private spectators(count: number): void {
    this.watching.textContent = watchingText(count, this.role, this.delay);
  }
}
