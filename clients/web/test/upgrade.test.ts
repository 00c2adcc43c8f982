/** A page refused for its protocol version reloads once, then shows the error (src/net/upgrade.ts). */

import { describe, expect, it } from "vitest";
import { RELOAD_KEY, RELOAD_QUIET_SECONDS, reloadForNewProtocol, type Upgrade } from "../src/net/upgrade";

function fake(start: number): Upgrade & { reloads: number; clock: number; kept: Map<string, string> } {
  const kept = new Map<string, string>();
  const upgrade = {
    reloads: 0,
    clock: start,
    kept,
    storage: { getItem: (key: string) => kept.get(key) ?? null, setItem: (key: string, value: string) => void kept.set(key, value) },
    now: () => upgrade.clock,
    reload: () => {
      upgrade.reloads += 1;
    },
  };
  return upgrade;
}

describe("a server of another protocol version", () => {
  it("reloads the page once, then shows the refusal instead of reloading in a loop", () => {
    const page = fake(1_000_000);
    expect(reloadForNewProtocol(page)).toBe(true);
    expect(page.reloads).toBe(1);
    expect(page.kept.get(RELOAD_KEY)).toBe("1000000");
    page.clock += 5_000; // the reloaded page is refused again at once: the server cannot serve it
    expect(reloadForNewProtocol(page)).toBe(false);
    expect(page.reloads).toBe(1);
  });

  it("reloads again once the quiet time has passed (the next rolling upgrade)", () => {
    const page = fake(0);
    page.kept.set(RELOAD_KEY, "0");
    page.clock = RELOAD_QUIET_SECONDS * 1000 + 1;
    expect(reloadForNewProtocol(page)).toBe(true);
    expect(page.reloads).toBe(1);
  });
});
