/**
 * The logic of Pengo's board drawing, apart from the canvas: where a sprite is drawn (its true position;
 * only corrections glide), the one label over a board, the telegraph, a death's progress, the look from
 * the settings, and the rules compendium worded for players.
 */

import { describe, expect, it } from "vitest";
import { PALETTES, SETTINGS, SettingsStore } from "../src/app/settings";
import { boardLabel, deathProgress, telegraph } from "../src/games/pengo/hud";
import { lookFrom, PALETTE_COLOURS } from "../src/games/pengo/look";
import { between, EASE_LIMIT, place, type SpritePlace } from "../src/games/pengo/motion";
import { playerText } from "../src/games/pengo/wording";

const STEP = 4;

describe("where a sprite is drawn", () => {
  it("is its true position on every drawing at any speed, with no correction", () => {
    // 4× replay speed: a sliding block moves 16 pixels between two drawings.
    let last: SpritePlace | undefined;
    for (let x = 0; x <= 160; x += 16) {
      last = place(last, x, 32, false, STEP);
      expect([last.x, last.y]).toEqual([x, 32]);
    }
  });

  it("glides after a correction of more than a step, from where it was drawn onto the true position", () => {
    const before = place(undefined, 40, 40, false, STEP);
    const corrected = place(before, 50, 40, true, STEP);
    expect(corrected.x).toBe(40); // drawn where it was: the correction starts there
    let last = corrected;
    const gaps: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      last = place(last, 50 + i, 40, false, STEP);
      gaps.push(Math.abs(last.x - (50 + i)));
    }
    expect(gaps[0]).toBeLessThan(10);
    for (let i = 1; i < gaps.length; i += 1) expect(gaps[i]!).toBeLessThanOrEqual(gaps[i - 1]!);
    expect(gaps.at(-1)).toBe(0);
  });

  it("does not glide a correction within a step, nor a jump too far to be one (a respawn)", () => {
    const start = place(undefined, 40, 40, false, STEP);
    expect(place(start, 43, 40, true, STEP).x).toBe(43);
    expect(place(start, 40 + EASE_LIMIT + 1, 40, true, STEP).x).toBe(40 + EASE_LIMIT + 1);
  });

  it("interpolates a record between its two frames, but not a jump (a respawn)", () => {
    expect(between([0, 10, 20], [0, 14, 20], 0.25, STEP)).toEqual([11, 20]);
    expect(between([0, 10, 20], [0, 90, 20], 0.25, STEP)).toEqual([90, 20]);
  });
});

describe("the label over a board", () => {
  const ending = { frame: 3719, outcomes: ["won", "lost", "lost", "lost"] };

  it("is OUT alone for a seat out of lives while the match goes on (never GAME OVER with it)", () => {
    expect(boardLabel(3, "lost", 1, null, 2950)).toBe("OUT");
    expect(boardLabel(3, "lost", 1, ending, 3000)).toBe("OUT");
    expect(boardLabel(1, "lost", 2, null, 10)).toBe("FORFEIT");
  });

  it("is each seat's result once the match is over", () => {
    expect([0, 1, 2, 3].map((seat) => boardLabel(seat, "playing", seat === 0 ? 0 : 1, ending, 3719)))
      .toEqual(["WINNER", "GAME OVER", "GAME OVER", "GAME OVER"]);
    expect(boardLabel(0, "playing", 0, { frame: 10, outcomes: ["drawn", "drawn"] }, 10)).toBe("DRAW");
  });

  it("is the status's while the seat plays", () => {
    expect(boardLabel(0, "ready", 0, null, 5)).toBe("READY!");
    expect(boardLabel(0, "clear", 0, null, 5)).toBe("ROUND CLEAR");
    expect(boardLabel(0, "playing", 0, null, 5)).toBe("");
    expect(boardLabel(0, "dying", 0, null, 5)).toBe("");
  });
});

describe("the telegraph", () => {
  it("shows each pending attack's units and seconds to land, soonest first, its fuse as a part", () => {
    const shown = telegraph([[7, 1, 3, 514], [8, 1, 6, 430]], 400, 150);
    expect(shown.map((fuse) => [fuse.units, fuse.seconds, fuse.urgent])).toEqual([[6, "0.5", true], [3, "1.9", false]]);
    expect(shown[1]!.left).toBeCloseTo(114 / 150);
    expect(telegraph([[1, 0, 2, 300]], 310, 150)[0]).toMatchObject({ frames: 0, seconds: "0.0", left: 0 });
  });
});

describe("a death's progress", () => {
  it("runs from 0 at the death to 1 at the status's end", () => {
    expect(deathProgress(366, 366, 492)).toBe(0);
    expect(deathProgress(429, 366, 492)).toBeCloseTo(0.5);
    expect(deathProgress(600, 366, 492)).toBe(1);
  });
});

describe("the look from the settings", () => {
  it("follows the browser's reduced motion unless the player overrides it", () => {
    const settings = { palette: "standard", reducedMotion: "system", wallShake: true, flashes: true } as const;
    expect(lookFrom(settings, true)).toMatchObject({ shake: false, flashes: false, glyphs: false });
    expect(lookFrom(settings, false)).toMatchObject({ shake: true, flashes: true });
    expect(lookFrom({ ...settings, reducedMotion: "off" }, true)).toMatchObject({ shake: true, flashes: true });
    expect(lookFrom({ ...settings, reducedMotion: "on" }, false)).toMatchObject({ shake: false, flashes: false });
    expect(lookFrom({ ...settings, wallShake: false }, false)).toMatchObject({ shake: false, flashes: true });
  });

  it("gives every palette but the standard one a glyph per block kind, and Pengo a colour apart from the Sno-Bees", () => {
    for (const palette of PALETTES) {
      const look = lookFrom({ palette, reducedMotion: "off", wallShake: true, flashes: true }, false);
      expect(look.glyphs).toBe(palette !== "standard");
      expect(look.colours).toBe(PALETTE_COLOURS[palette]);
      expect(look.colours.pengo).not.toBe(look.colours.snoBee);
      const c = look.colours;
      expect(new Set([c.ice, c.diamond, c.gem, c.egg]).size).toBe(4);
    }
  });

  it("keeps the look's settings under their keys, refusing values they do not take", () => {
    const stored = new Map<string, string>();
    const storage = {
      getItem: (key: string) => stored.get(key) ?? null,
      setItem: (key: string, value: string) => void stored.set(key, value),
      removeItem: (key: string) => void stored.delete(key),
    };
    const store = new SettingsStore(SETTINGS, storage);
    expect([store.get("palette"), store.get("reducedMotion"), store.get("wallShake"), store.get("flashes")])
      .toEqual(["standard", "system", true, true]);
    store.set("palette", "tritanopia");
    store.set("reducedMotion", "on");
    store.set("flashes", false);
    expect([...stored]).toEqual([["floe.palette", "tritanopia"], ["floe.reduced-motion", "on"], ["floe.flashes", "off"]]);
    expect(() => store.set("palette", "sepia" as never)).toThrow(/not a valid value/);
  });
});

describe("the compendium worded for players", () => {
  it("leaves out source file names and Z80 addresses, tidying what they leave", () => {
    expect(playerText("pengo-versus ruleset version 3 (rules/versus/tables.py); frames are 1/60 s"))
      .toBe("pengo-versus ruleset version 3; frames are 1/60 s");
    expect(playerText("Attack table (AttackTable)")).toBe("Attack table");
    expect(playerText("$31DA")).toBe("");
    expect(playerText("$3293, $43BD")).toBe("");
    expect(playerText("$38F0: chewing creeps in at base + 24")).toBe("chewing creeps in at base + 24");
    expect(playerText("the period of a life this many minutes old ($344B: P − 1 − minutes)."))
      .toBe("the period of a life this many minutes old (P − 1 − minutes).");
    expect(playerText("Pengo's respawn candidates, in order ($0D66, table $0D9D), skipping egg and diamond cells."))
      .toBe("Pengo's respawn candidates, in order, skipping egg and diamond cells.");
    expect(playerText("Seats in a match: DESIGN.md's 2 (ranked is 1 v 1) to 4"))
      .toBe("Seats in a match: 2 (ranked is 1 v 1) to 4");
    expect(playerText("A game-second is 62 vblanks ($0081–$0093 counts 0..61).")).toBe("A game-second is 62 vblanks (counts 0..61).");
  });
});
