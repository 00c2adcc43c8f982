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

/** A label floated over a cell in one frame of the playback. */
export interface FloatLabel {
  cell: number;
  text: string;
  /** "up", "down" or "move" for a value change; "split", "bank" or "capped" for the others. */
  kind: string;
  /** How many triggers the label stands for (1: a trigger's own label). */
  triggers: number;
  /** True when it carries on a label the cell still shows (the view updates it in place). */
  merged: boolean;
}

/** Frames a label stays open for merging: a little under the float's 0.9 s at 200 ms a frame. */
export const MERGE_FRAMES = 3;

const signed = (n: number): string => (n >= 0 ? `+${n}` : `${n}`);
const changeKind = (delta: number): string => (delta > 0 ? "up" : delta < 0 ? "down" : "move");

/**
 * The labels each frame floats. When triggers fire close together on one cell — in one frame (two
 * marbles through one part) or within `window` frames of the cell's open label (a spring loop, a chain
 * of copies) — they merge into one rising number: the cell's label becomes the sum of their changes
 * ("+14"), updated in place, instead of a stack of labels no one can read. A lone trigger keeps its
 * own label ("×2", "+3"), and so does a merge that changed no value yet ("spring spent"). Splits, banks and caps always float their own label. Pure: the view decides
 * only how to draw them.
 */
export function floatLabels(grouped: readonly Frame[], window = MERGE_FRAMES): FloatLabel[][] {
  const open = new Map<number, { delta: number; triggers: number; opened: number; last: number }>();
  return grouped.map((frame, index) => {
    const out: FloatLabel[] = [];
    const changed = new Map<number, FloatLabel>();
    for (const event of frame) {
      if (event.kind === "trigger") {
        const delta = event.after - event.before;
        let current = open.get(event.cell);
        if (current === undefined || index - current.last > window) {
          current = { delta: 0, triggers: 0, opened: index, last: index };
          open.set(event.cell, current);
        }
        current.delta += delta;
        current.triggers += 1;
        current.last = index;
        // a path change alone (a spring's bounce) has no number to add: its own words say more
        const text = current.triggers === 1 || current.delta === 0 ? event.label : signed(current.delta);
        const label = { cell: event.cell, text, kind: changeKind(current.delta), triggers: current.triggers,
          merged: current.opened < index };
        const previous = changed.get(event.cell);
        if (previous === undefined) out.push(label);
        else out[out.indexOf(previous)] = label;
        changed.set(event.cell, label);
      } else if (event.kind === "spawn") {
        out.push({ cell: event.cell, text: `copy ${event.value}`, kind: "split", triggers: 0, merged: false });
      } else if (event.kind === "bank") {
        out.push({ cell: event.cell, text: `bank ${event.value}`, kind: "bank", triggers: 0, merged: false });
      } else if (event.kind === "capped") {
        out.push({ cell: event.cell, text: event.label, kind: "down", triggers: 0, merged: false });
      }
    }
    return out;
  });
}
