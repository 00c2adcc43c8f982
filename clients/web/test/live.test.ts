/**
 * The live match page's logic (app/stats.ts, app/connection.ts, app/precard.ts, app/rematch.ts,
 * app/results.ts) and the session's rematch messages (net/session.ts): pure functions, no DOM.
 */

import { decode, encode } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import { forfeitRule, lagText, msPerDraw, secondsLeft, signalBars, barsText } from "../src/app/connection";
import { abortRule, cardRating, ratingText } from "../src/app/precard";
import { refusalText } from "../src/app/rematch";
import { ratingChangeText, resultText } from "../src/app/results";
import { EventLog, matchStats } from "../src/app/stats";
import { Session } from "../src/net/session";
import { Vocabulary, type GameEvent } from "../src/net/vocabulary";
import { FRAME_CODE, type StreamMessage } from "../src/net/wire";

/** The pengo-versus event kinds the statistics read, with their fields as the server's tables name them. */
const TABLES = {
  words: ["ice"],
  events: [
    ["queued", ["seat", "source", "packet", "units", "lands_at"]],
    ["landing", ["seat", "landing", "units", "blocks", "eggs", "gems"]],
    ["offset", ["seat", "units"]],
    ["crush", ["ids", "at", "score", "seat"]],
    ["line", ["cells", "along_wall", "score", "seat"]],
    ["death", ["at", "cause", "seat"]],
    ["kick", ["at", "dir", "result", "seat"]],
  ] as [string, string[]][],
  word_fields: [],
  summary: [],
  notes: [],
};
const vocabulary = new Vocabulary(TABLES);
const QUEUED = 0, LANDING = 1, OFFSET = 2, CRUSH = 3, LINE = 4, DEATH = 5, KICK = 6;

function frame(at: number, events: unknown[][]): StreamMessage {
  return { kind: "frame", n: at + 1, frame: at, confirmed: at, inputs: [0, 0], events, actors: [] };
}

describe("a match's statistics", () => {
  it("counts each seat's attacks sent, received and cancelled, crushes, diamond lines and deaths", () => {
    const events: GameEvent[] = [
      { kind: "queued", seat: 1, source: 0, packet: 1, units: 3, lands_at: 90 },
      { kind: "queued", seat: 0, source: 1, packet: 2, units: 2, lands_at: 95 },
      { kind: "offset", seat: 0, units: 2 },
      { kind: "landing", seat: 1, landing: "garbage", units: 3, blocks: [], eggs: [], gems: [] },
      { kind: "crush", ids: [2, 5], at: [3, 4], score: 1600, seat: 0 },
      { kind: "crush", ids: [1], at: [3, 4], score: 400, seat: 1 },
      { kind: "line", cells: [], along_wall: false, score: 5000, seat: 1 },
      { kind: "death", at: [1, 1], cause: "enemy", seat: 1 },
      { kind: "death", at: [1, 1], cause: "enemy", seat: 1 },
      { kind: "kick", at: [1, 1], dir: "up", result: "slide", seat: 0 },
    ];
    expect(matchStats(events, 2)).toEqual([
      { sent: 3, received: 0, cancelled: 2, crushes: 2, lines: 0, deaths: 0 },
      { sent: 2, received: 3, cancelled: 0, crushes: 1, lines: 1, deaths: 2 },
    ]);
  });

  it("gives zeros to every seat of a match without events, and ignores seats it does not know", () => {
    expect(matchStats([{ kind: "death", seat: 7 }], 2)).toEqual([
      { sent: 0, received: 0, cancelled: 0, crushes: 0, lines: 0, deaths: 0 },
      { sent: 0, received: 0, cancelled: 0, crushes: 0, lines: 0, deaths: 0 },
    ]);
  });

  it("keeps each frame's latest events: a rewind takes back the speculative frames, which come again", () => {
    const log = new EventLog((values) => vocabulary.event(values));
    log.apply(frame(10, [[DEATH, [1, 1], "enemy", 0]]));
    log.apply(frame(11, [[CRUSH, [1, 2], [2, 2], 800, 0]]));  // speculative: taken back
    log.apply({ kind: "rewind", n: 3, frame: 11 });
    log.apply(frame(11, [[LINE, [], false, 5000, 1]]));
    log.apply(frame(12, [[QUEUED, 0, 1, 1, 4, 80], [OFFSET, 1, 1]]));
    log.apply(frame(12, [[QUEUED, 0, 1, 1, 4, 80], [OFFSET, 1, 1]]));  // the same frame again: counted once
    log.apply(frame(13, [[LANDING, 0, "garbage", 4, [], [], []], [KICK, [0, 0], "up", "slide", 1]]));
    expect(matchStats(log.events(), 2)).toEqual([
      { sent: 0, received: 4, cancelled: 0, crushes: 0, lines: 0, deaths: 1 },
      { sent: 4, received: 0, cancelled: 1, crushes: 0, lines: 1, deaths: 0 },
    ]);
    expect(log.firstFrame).toBe(10);
  });

  it("takes a resync's frames in place of the ones it replaces", () => {
    const log = new EventLog((values) => vocabulary.event(values));
    log.apply(frame(5, [[DEATH, [1, 1], "enemy", 0]]));
    log.apply(frame(6, [[DEATH, [1, 1], "enemy", 0]]));
    log.apply({
      kind: "resync", n: 9, frame: 6, view: { frame: 6, time_left: 0, seats: [] }, checksum: "", confirmed: 7,
      frames: [{ frame: 6, inputs: [0, 0], events: [[DEATH, [1, 1], "enemy", 1]], actors: [] }],
    });
    expect(matchStats(log.events(), 2).map((seat) => seat.deaths)).toEqual([1, 1]);
  });
});

describe("the connection information", () => {
  it("shows a round trip as 4 to 1 bars, and none without a measure", () => {
    expect([0, 59, 60, 119, 120, 249, 250, 9999].map(signalBars)).toEqual([4, 4, 3, 3, 2, 2, 1, 1]);
    expect(signalBars(null)).toBe(0);
    expect(signalBars(undefined)).toBe(0);
    expect(barsText(3)).toBe("▂▄▆_");
    expect(lagText(48.4)).toBe("48 ms");
    expect(lagText(null)).toBe("—");
  });

  it("counts a grace period down between two status messages, rounding up, never below 0", () => {
    expect(secondsLeft(23, 1000, 1000)).toBe(23);
    expect(secondsLeft(23, 1000, 1001)).toBe(23);
    expect(secondsLeft(23, 1000, 2000)).toBe(22);
    expect(secondsLeft(23, 1000, 60_000)).toBe(0);
  });

  it("states the forfeit rule with the server's grace period and the draw time per frame", () => {
    expect(forfeitRule(30)).toBe("a player who does not come back within 30 s forfeits");
    expect(forfeitRule(12.5)).toBe("a player who does not come back within 13 s forfeits");
    expect(msPerDraw(30, 20, 10, 10)).toBe(2);
    expect(msPerDraw(30, 10, 10, 10)).toBeNull();
  });
});

describe("the ranked card and the results", () => {
  it("states the abort rule with the server's numbers, or that every match is rated when it is off", () => {
    expect(abortRule(10, 300)).toBe("Rated only if both players move and 10 s of play run; a match that ends "
      + "sooner is aborted, not rated, and whoever left (or never moved) cannot queue for 300 s, doubling for "
      + "each further one within a day.");
    expect(abortRule(0, 300)).toBe("Every ranked match that ends is rated.");
    expect(ratingText(1562.4, false)).toBe("1562");
    expect(ratingText(1500, true)).toBe("1500?");
  });

  it("says the rating change and who won", () => {
    expect(ratingChangeText({ change: -11.84, rating: 1488.2, provisional: true })).toBe("Rating -11.8: now 1488?");
    expect(ratingChangeText({ change: 0, rating: 1500, provisional: false })).toBe("Rating +0.0: now 1500");
    const result = { winner: 1, outcomes: [], reason: "time", frame: 100, scores: [10, 20] };
    expect(resultText(result, ["ann", "bob"], 1)).toBe("You win by time: 10 – 20.");
    expect(resultText(result, ["ann", "bob"], 0)).toBe("bob wins by time: 10 – 20.");
    expect(resultText({ ...result, winner: null }, ["ann", "bob"], 0)).toBe("A draw (time).");
    expect(resultText({ ...result, reason: "finished" }, ["ann", "bob"], 0)).toBe("bob wins with both runs over: 10 – 20.");
  });

  it("says why a rematch did not happen", () => {
    expect(refusalText({ reason: "declined" }, false, "bob")).toBe("bob declined the rematch.");
    expect(refusalText({ reason: "declined" }, true, "bob")).toBe("You declined the rematch.");
    expect(refusalText({ reason: "expired" }, false, "bob")).toBe("The rematch offer expired without an answer.");
    expect(refusalText({ reason: "refused", code: "too-many-matches", message: "your address is busy" }, false, "bob"))
      .toBe("No rematch: your address is busy (too-many-matches).");
  });
});

describe("the session's rematch messages", () => {
  it("sends rematch and rematch-answer for its match, and passes the offers, refusals and readiness on", () => {
    const session = new Session("token", "m1", "player");
    expect(decode(session.rematch())).toEqual({ kind: "rematch", match: "m1" });
    expect(decode(session.rematchAnswer(false))).toEqual({ kind: "rematch-answer", match: "m1", accept: false });
    const offer = { kind: "rematch-offer", match: "m1", seat: 1, name: "bob", expires: 20 };
    const ready = { kind: "rematch-ready", match: "m1", rematch: "m2", seat: 0, ranked: false };
    const refused = { kind: "rematch-refused", match: "m1", reason: "expired", code: null, message: null };
    for (const message of [offer, ready, refused]) {
      expect(session.receive(encode(message), 0)).toEqual([{ kind: "rematch", message }]);
    }
    expect(session.receive(encode([FRAME_CODE, 1, 0, 0, [0, 0], [], []]), 0)[0]?.kind).toBe("stream");
  });
});

describe("the ranked card's rating", () => {
  it("shows the rating and the provisional mark, or nothing of them while ratings are hidden", () => {
    expect(cardRating(1612.4, false, false)).toBe("1612");
    expect(cardRating(1500, true, false)).toBe("1500? (provisional)");
    expect(cardRating(1612.4, false, true)).toBe("hidden (settings)");
    expect(cardRating(1500, true, true)).not.toContain("1500");
  });
});
