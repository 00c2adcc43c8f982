/**
 * Payload's playback (src/games/payload/playback.ts) over a drop log rules/payload made
 * (test/fixtures/payload-drop.json: a peg, two prisms, a coil, a spring and a bell, dropped down column 1;
 * written by rules/payload/simulate.py and events.py `drop_event_plain`).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { banked, bestColumn, floatLabels, frames, paths } from "../src/games/payload/playback";
import type { DropEvent } from "../src/games/payload/types";

const fixture = JSON.parse(readFileSync(join(__dirname, "fixtures", "payload-drop.json"), "utf8")) as {
  total: number;
  log: DropEvent[];
};

describe("a drop's frames", () => {
  const grouped = frames(fixture.log);

  it("hold every event of the log exactly once, each marble's in its own order", () => {
    expect(grouped.flat()).toHaveLength(fixture.log.length);
    expect(new Set(grouped.flat())).toEqual(new Set(fixture.log));
    for (const marble of [0, 1, 2]) {
      const mine = (events: DropEvent[]) => events.filter((event) => event.marble === marble);
      expect(mine(grouped.flat())).toEqual(mine(fixture.log));
    }
  });

  it("advance every marble in flight together: at most one step per marble per frame", () => {
    for (const frame of grouped) {
      const marbles = frame.map((event) => event.marble);
      expect(new Set(marbles).size).toBe(marbles.length);
    }
  });

  it("start a copy at its prism, the frame after the step that split it", () => {
    const frameOf = (predicate: (event: DropEvent) => boolean) => grouped.findIndex((frame) => frame.some(predicate));
    const split = frameOf((event) => event.kind === "trigger" && event.marble === 0 && event.part === "prism");
    const copy = frameOf((event) => event.kind === "spawn" && event.marble === 1);
    expect(copy).toBe(split + 1);
    const spawn = fixture.log.find((event) => event.kind === "spawn" && event.marble === 1)!;
    const prism = fixture.log.find((event) => event.kind === "trigger" && event.part === "prism" && event.marble === 0)!;
    expect(spawn.cell).toBe(prism.cell);
    // the copy is in flight while its parent still is: they advance in the same frames
    expect(grouped[copy]!.map((event) => event.marble).sort()).toEqual([0, 1]);
    // the regrouped drop is shorter than the log played one event at a time
    expect(grouped.length).toBeLessThan(fixture.log.length);
  });

  it("bank what the rules banked", () => {
    expect(banked(grouped.flat())).toBe(fixture.total);
  });

  it("refuse a copy of a marble the log never entered", () => {
    expect(() => frames([{ kind: "spawn", marble: 3, parent: 9, cell: 0, column: 1, value: 1, label: "copy" }])).toThrow(/unknown marble/);
  });
});

describe("the breakdown", () => {
  it("lists each marble's path in order with its value after every part", () => {
    const shown = paths(fixture.log, (part) => part.toUpperCase());
    expect(shown.map((path) => path.marble)).toEqual([0, 1, 2]);
    expect(shown[0]!.from).toBe("drop, 1");
    expect(shown[0]!.steps.slice(0, 3)).toEqual(["PEG +1 → 2", "PRISM split → 2", "COIL ×2 → 4"]);
    expect(shown[1]!.from).toBe("copy of #0 at the prism, 2");
    expect(shown.reduce((sum, path) => sum + (path.banked ?? 0), 0)).toBe(fixture.total);
  });

  it("marks the best column, leftmost on a tie", () => {
    expect(bestColumn([1, 5, 5, 2, 0])).toBe(1);
    expect(bestColumn([0, 0, 0, 0, 0])).toBe(0);
  });
});

describe("the floating labels", () => {
  const trigger = (cell: number, before: number, after: number, label: string, marble = 0): DropEvent =>
    ({ kind: "trigger", marble, cell, part: "peg", before, after, label });

  it("merge triggers close together on one cell into one rising number, updated in place", () => {
    const labels = floatLabels([
      [trigger(5, 1, 2, "+1")],
      [trigger(5, 2, 4, "×2")],
      [trigger(7, 4, 5, "+1")],
      [],
      [],
      [],
      [trigger(5, 5, 6, "+1")],
    ], 3);
    expect(labels[0]).toEqual([{ cell: 5, text: "+1", kind: "up", triggers: 1, merged: false }]);
    expect(labels[1]).toEqual([{ cell: 5, text: "+3", kind: "up", triggers: 2, merged: true }]);
    expect(labels[2]).toEqual([{ cell: 7, text: "+1", kind: "up", triggers: 1, merged: false }]);
    // past the window the cell's label has floated away: a new one starts from the trigger's own label
    expect(labels[6]).toEqual([{ cell: 5, text: "+1", kind: "up", triggers: 1, merged: false }]);
  });

  it("show two marbles through one part in one frame as one label", () => {
    const [frame] = floatLabels([[trigger(3, 2, 5, "+3", 0), trigger(3, 4, 7, "+3", 1)]]);
    expect(frame).toEqual([{ cell: 3, text: "+6", kind: "up", triggers: 2, merged: false }]);
  });

  it("keep a spring's words when the merge changed no value, and float splits and banks on their own", () => {
    const labels = floatLabels(frames(fixture.log));
    const all = labels.flat();
    const spring = all.filter((label) => label.cell === 26);
    expect(spring.map((label) => [label.text, label.merged])).toEqual([["↑2", false], ["spring spent", true]]);
    expect(all.filter((label) => label.kind === "bank").map((label) => label.text)).toEqual(["bank 4", "bank 4", "bank 6"]);
    expect(all.filter((label) => label.kind === "split")).toHaveLength(2);
    // every trigger of the log is shown: each opens a label or moves one on (no two share a frame and a cell here)
    const triggers = fixture.log.filter((event) => event.kind === "trigger").length;
    expect(all.filter((label) => label.triggers > 0)).toHaveLength(triggers);
    expect(all.filter((label) => label.merged)).toHaveLength(1);
  });
});
