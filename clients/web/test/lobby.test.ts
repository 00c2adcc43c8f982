/**
 * The lobby's pure logic: a live match's age ticking between polls, its line, leaderboard lines with
 * the provisional mark, and the page's origin checked against the websocket's allowed origins.
 */

import { describe, expect, it } from "vitest";
import { type LiveMatch, originAccepted } from "../src/app/api";
import { clock, leaderLine, liveLine, liveSeconds } from "../src/app/lobby-text";

const MATCH: LiveMatch = { id: "m1", state: "running", seats: ["ann", "bob"], bots: [null, null], frame: 600, spectators: 2,
  ruleset: "pengo-versus" };

describe("the live list", () => {
  it("ages a running match by its frame plus the time since it was listed", () => {
    expect(liveSeconds(MATCH, 1000, 1000)).toBe(10);
    expect(liveSeconds(MATCH, 1000, 3500)).toBe(12);
  });

  it("does not age a match that is not running", () => {
    expect(liveSeconds({ ...MATCH, state: "waiting", frame: 0 }, 1000, 9000)).toBe(0);
  });

  it("says the seats, the state, the age and the spectators", () => {
    expect(liveLine(MATCH, 75)).toBe("ann vs bob (running, 1:15, 2 watching)");
    expect(liveLine({ ...MATCH, seats: ["ann", null], spectators: 0 }, 5)).toBe("ann vs — (running, 0:05)");
    expect(clock(600)).toBe("10:00");
  });
});

describe("the leaderboards", () => {
  it("marks a provisional rating with ?", () => {
    const row = { rank: 1, id: "g", name: "ann", rating: 1612.4, rd: 180, games: 1, provisional: true };
    expect(leaderLine(row)).toBe("ann 1612? (1 game)");
    expect(leaderLine({ ...row, provisional: false, games: 30 })).toBe("ann 1612 (30 games)");
  });
});

describe("the page's origin", () => {
  const answer = { origin: null, allowed: true, origins: ["http://localhost:8000"], reason: "no Origin header" };

  it("compares the page's own origin when the server saw none (a same-origin GET carries none)", () => {
    expect(originAccepted(answer, "http://localhost:8000")).toBe(true);
    expect(originAccepted(answer, "http://proxy.example")).toBe(false);
    expect(originAccepted({ ...answer, origins: ["*"] }, "http://proxy.example")).toBe(true);
  });

  it("takes the server's verdict when it saw the page's origin", () => {
    expect(originAccepted({ ...answer, origin: "http://proxy.example", allowed: false }, "http://localhost:8000")).toBe(false);
  });
});
