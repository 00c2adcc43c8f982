/**
 * A drop's event log (rules/payload/simulate.py) regrouped for the view: pure, no timing and no maths.
 *
 * The log is ordered as the rules resolved it — the first marble's whole path, then each copy's — so
 * played in that order the copies would wait their turn. `frames` regroups it so that every marble in
 * flight advances together: frame n holds each live marble's n-th step since it appeared (a copy
 * appears the frame after the step of its parent that split it, at the prism). Nothing is reordered
 * within a marble's path, and every event of the log is in exactly one frame, so playing the frames
 * replays the whole log; skipping only applies the remaining frames at once.
 */

import type { DropEvent } from "./types";

/** One frame: the steps (one per marble in flight) shown together. */
export type Frame = DropEvent[];

/** The log as frames in which every marble in flight advances one step. */
export function frames(log: readonly DropEvent[]): Frame[] {
  const start = new Map<number, number>();
  const steps = new Map<number, number>();
  const out: Frame[] = [];
  for (const event of log) {
    const marble = event.marble;
    if (!start.has(marble)) {
      if (event.kind === "spawn") {
        const parent = start.get(event.parent);
        if (parent === undefined) throw new Error(`drop log: copy ${marble} of unknown marble ${event.parent}`);
        start.set(marble, parent + (steps.get(event.parent) ?? 0));
      } else {
        start.set(marble, 0);
      }
    }
    const index = start.get(marble)! + (steps.get(marble) ?? 0);
    steps.set(marble, (steps.get(marble) ?? 0) + 1);
    while (out.length <= index) out.push([]);
    out[index]!.push(event);
  }
  return out;
}

/** One marble's path in order, for the breakdown: where it came from, each change, what it banked. */
export interface Path {
  marble: number;
  /** The first line: "drop 1" or "copy of #0 at the prism, 5". */
  from: string;
  /** Each trigger as "Name label → value". */
  steps: string[];
  banked: number | null;
}

/** How the breakdown writes one event of a marble's path (names from the compendium). */
export function stepText(event: DropEvent, nameOf: (part: string) => string): string {
  switch (event.kind) {
    case "enter":
      return `${event.label}, ${event.value}`;
    case "spawn":
      return `copy of #${event.parent} at the prism, ${event.value}`;
    case "trigger":
      return `${nameOf(event.part)} ${event.label} → ${event.after}`;
    case "capped":
      return event.label;
    case "bank":
      return `banked ${event.value}`;
  }
}

/** The drop's breakdown: each marble's value after every part, in path order (names from the compendium). */
export function paths(log: readonly DropEvent[], nameOf: (part: string) => string): Path[] {
  const byMarble = new Map<number, Path>();
  const path = (marble: number): Path => {
    let found = byMarble.get(marble);
    if (found === undefined) {
      found = { marble, from: "", steps: [], banked: null };
      byMarble.set(marble, found);
    }
    return found;
  };
  for (const event of log) {
    switch (event.kind) {
      case "enter":
      case "spawn":
        path(event.marble).from = stepText(event, nameOf);
        break;
      case "trigger":
      case "capped":
        path(event.marble).steps.push(stepText(event, nameOf));
        break;
      case "bank":
        path(event.marble).banked = event.value;
        break;
    }
  }
  return [...byMarble.values()].sort((a, b) => a.marble - b.marble);
}

/** The total a log banks (the sum of its Bank events). */
export function banked(log: readonly DropEvent[]): number {
  let total = 0;
  for (const event of log) if (event.kind === "bank") total += event.value;
  return total;
}

/** The best column of a preview (leftmost on a tie), as rules/payload/preview.py `Projection.best`. */
export function bestColumn(totals: readonly number[]): number {
  let best = 0;
  totals.forEach((total, column) => {
    if (total > totals[best]!) best = column;
  });
  return best;
}
