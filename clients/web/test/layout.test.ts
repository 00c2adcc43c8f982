import { describe, expect, it } from "vitest";
import { arrange, BEATS_ROW, OTHER_SCALE, shapes, snapScale } from "../src/app/layout";
import type { BoardLayout, BoardPanels } from "../src/games/view";

/** Pengo's two panels (13 × 15 cells of 16 px, a 4 px border, a 28 px heads-up strip, the clock's strip). */
const PENGO: BoardPanels = { width: 216, height: 276, seats: 2, gap: 12, footerWidth: 48, footerHeight: 14 };

function inside(layout: BoardLayout, panels: BoardPanels): void {
  for (const place of [...layout.places]) {
    expect(place.x).toBeGreaterThanOrEqual(0);
    expect(place.y).toBeGreaterThanOrEqual(0);
    expect(place.x + panels.width * place.scale).toBeLessThanOrEqual(layout.width + 1e-9);
    expect(place.y + panels.height * place.scale).toBeLessThanOrEqual(layout.height + 1e-9);
  }
  expect(layout.footer.y + panels.footerHeight).toBeLessThanOrEqual(layout.height + 1e-9);
}

function overlap(a: { x: number; y: number; scale: number }, b: { x: number; y: number; scale: number }, p: BoardPanels): boolean {
  return a.x < b.x + p.width * b.scale && b.x < a.x + p.width * a.scale
    && a.y < b.y + p.height * b.scale && b.y < a.y + p.height * a.scale;
}

describe("the boards' layout", () => {
  it("snaps desktop scales to halves and wholes and keeps a phone's exact", () => {
    expect(snapScale(3.7)).toBe(3);
    expect(snapScale(2.7)).toBe(2.5);
    expect(snapScale(1.734)).toBe(1.73);
    expect(snapScale(0.86)).toBe(0.86);
  });

  it("every arrangement holds its panels apart and inside its size", () => {
    for (const seats of [2, 3, 4]) {
      const panels = { ...PENGO, seats };
      for (const own of [null, 0, seats - 1]) {
        for (const shape of shapes(panels, own)) {
          const layout = { ...shape, scale: 1, resolution: 1 };
          inside(layout, panels);
          for (let a = 0; a < seats; a += 1) {
            for (let b = a + 1; b < seats; b += 1) expect(overlap(layout.places[a]!, layout.places[b]!, panels)).toBe(false);
          }
        }
      }
    }
  });

  it("keeps the row on a desktop window", () => {
    const layout = arrange({ width: 1068, height: 690 }, PENGO, 0);
    expect(layout.kind).toBe("row");
    expect(layout.scale).toBe(2);
    expect(layout.resolution).toBe(1);
  });

  it("puts a phone player's own board large with the opponent's small above it", () => {
    const layout = arrange({ width: 378, height: 620 }, PENGO, 1);
    expect(layout.kind).toBe("focus-above");
    expect(layout.places[1]!.scale).toBe(1);
    expect(layout.places[0]!.scale).toBe(OTHER_SCALE);
    expect(layout.places[0]!.y).toBeLessThan(layout.places[1]!.y);
    expect(layout.resolution).toBe(2);
    // it fits the room, and the own board is drawn larger than the row would draw it
    expect(layout.width * layout.scale).toBeLessThanOrEqual(378);
    expect(layout.height * layout.scale).toBeLessThanOrEqual(620);
    const row = shapes(PENGO, 1)[0]!;
    expect(layout.scale).toBeGreaterThan((378 / row.width) * BEATS_ROW);
  });

  it("stacks a spectator's boards on a phone held upright, and never draws wider than the room", () => {
    const layout = arrange({ width: 378, height: 700 }, PENGO, null);
    expect(layout.kind).toBe("column");
    expect(layout.width * layout.scale).toBeLessThanOrEqual(378);
    const tiny = arrange({ width: 200, height: 150 }, PENGO, null);
    expect(tiny.width * tiny.scale).toBeLessThanOrEqual(200);
    expect(tiny.height * tiny.scale).toBeLessThanOrEqual(150);
  });

  it("keeps a landscape phone's boards side by side when the height limits both alike", () => {
    const layout = arrange({ width: 560, height: 340 }, PENGO, 0);
    expect(layout.height * layout.scale).toBeLessThanOrEqual(340);
    expect(layout.width * layout.scale).toBeLessThanOrEqual(560);
    expect(["row", "focus-beside"]).toContain(layout.kind);
  });
});
