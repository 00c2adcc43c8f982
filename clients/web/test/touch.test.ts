import { beforeAll, describe, expect, it, vi } from "vitest";
import { DIRECTION_BITS, KICK_BIT } from "../src/generated/protocol";
import { Controls } from "../src/games/pengo/input";
import { directionOf } from "../src/games/pengo/touch";

describe("touch controls", () => {
  beforeAll(() => {
    // a browser with no gamepad (Node has no navigator)
    vi.stubGlobal("navigator", { getGamepads: () => [], maxTouchPoints: 5 });
  });

  it("reads a finger's direction by its dominant axis, none in the dead centre", () => {
    expect(directionOf(30, 5, 10)).toBe("right");
    expect(directionOf(-30, 12, 10)).toBe("left");
    expect(directionOf(4, -25, 10)).toBe("up");
    expect(directionOf(-3, 40, 10)).toBe("down");
    expect(directionOf(6, -7, 10)).toBeNull();
  });

  it("makes the same input byte as the keys: a held direction, the kick once", () => {
    const controls = new Controls();
    expect(controls.byte()).toBe(0);
    controls.touchDirection("left");
    expect(controls.byte()).toBe(DIRECTION_BITS.left);
    controls.sent(controls.byte());
    expect(controls.byte()).toBe(DIRECTION_BITS.left);
    controls.kick();
    const kicked = controls.byte();
    expect(kicked).toBe(DIRECTION_BITS.left | KICK_BIT);
    controls.sent(kicked);
    expect(controls.byte()).toBe(DIRECTION_BITS.left);
    controls.touchDirection(null);
    expect(controls.byte()).toBe(0);
  });

  it("carries a tapped direction until a byte has sent it", () => {
    const controls = new Controls();
    controls.touchDirection("up");
    controls.touchDirection(null);
    expect(controls.byte()).toBe(DIRECTION_BITS.up);
    controls.sent(0);
    expect(controls.byte()).toBe(DIRECTION_BITS.up);
    controls.sent(DIRECTION_BITS.up);
    expect(controls.byte()).toBe(0);
  });
});
