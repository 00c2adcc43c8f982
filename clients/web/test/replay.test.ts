/**
 * The replay viewer's logic and the match's words (app/replaycontrol.ts, app/markers.ts,
 * app/summary.ts, app/history.ts, app/watching.ts): the speeds and keys, the timeline's markers read
 * from a recorded stream's events, the text summary, the list of the matches this browser played, the
 * spectator count and delay.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeMulti } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import {
  BIG_ATTACK_UNITS, adjacentMarker, lastMarker, type Marker, markerOf, markerText, timelineMarkers,
} from "../src/app/markers";
import { PLAYED_KEPT, type Played, parsePlayed, playedText, withPlayed } from "../src/app/history";
import { SPEEDS, clockText, keyAction, nextSpeed, speedLabel, steppedFrame } from "../src/app/replaycontrol";
import { matchSummary, seatSummary } from "../src/app/summary";
import { watchingText } from "../src/app/watching";
import { pengoView } from "../src/games/pengo/view";
import { MatchStream } from "../src/net/stream";
import { Vocabulary } from "../src/net/vocabulary";
import { type FrameBody, type Joined, type StreamMessage, toMessage } from "../src/net/wire";

const FIXTURES = join(__dirname, "fixtures");

/** A recorded stream's joined, its frame records by frame, and the events decoded by frame. */
function recorded(name: string): { joined: Joined; bodies: FrameBody[]; messages: StreamMessage[] } {
  let joined: Joined | undefined;
  const bodies: FrameBody[] = [];
  const messages: StreamMessage[] = [];
  for (const value of decodeMulti(readFileSync(join(FIXTURES, name)))) {
    const message = toMessage(value);
    if (message.kind === "joined") joined = message;
    else if (message.kind === "frame") {
      bodies[message.frame] = message;
      messages.push(message);
    } else if (message.kind === "keyframe" || message.kind === "over") messages.push(message);
  }
  if (joined === undefined) throw new Error(`${name}: no joined`);
  return { joined, bodies, messages };
}

describe("the replay's speeds and keys", () => {
  it("offers ×0.25 to ×16 and steps through them, held at the ends", () => {
    expect(SPEEDS).toEqual([0.25, 0.5, 1, 2, 4, 8, 16]);
    expect(nextSpeed(1, 1)).toBe(2);
    expect(nextSpeed(1, -1)).toBe(0.5);
    expect(nextSpeed(16, 1)).toBe(16);
    expect(nextSpeed(0.25, -1)).toBe(0.25);
    expect(nextSpeed(3, 1)).toBe(2); // not a speed: from ×1
    expect(speedLabel(0.25)).toBe("×0.25");
  });

  it("maps space, the arrows, +/-, Home/End and [ ] to their actions and leaves other keys alone", () => {
    expect(keyAction(" ")).toBe("play-pause");
    expect(keyAction("ArrowLeft")).toBe("step-back");
    expect(keyAction("ArrowRight")).toBe("step-forward");
    expect(keyAction("ArrowUp")).toBe("faster");
    expect(keyAction("+")).toBe("faster");
    expect(keyAction("ArrowDown")).toBe("slower");
    expect(keyAction("-")).toBe("slower");
    expect(keyAction("Home")).toBe("start");
    expect(keyAction("End")).toBe("end");
    expect(keyAction("[")).toBe("previous-marker");
    expect(keyAction("]")).toBe("next-marker");
    expect(keyAction("a")).toBeNull();
    expect(keyAction("Tab")).toBeNull();
  });

  it("steps from the whole frame the model is at, within the replay", () => {
    expect(steppedFrame(10.6, 1, 100)).toBe(11);
    expect(steppedFrame(10.6, -1, 100)).toBe(9);
    expect(steppedFrame(10, -1, 100)).toBe(9);
    expect(steppedFrame(0, -1, 100)).toBe(0);
    expect(steppedFrame(100, 1, 100)).toBe(100);
    expect(steppedFrame(40, -1000, 100)).toBe(0);
    expect(clockText(3900)).toBe("1:05");
  });
});

describe("the timeline's markers", () => {
  const { joined, bodies } = recorded("spectator-competent-mirror.msgpack");
  const vocabulary = new Vocabulary(joined.tables);
  const markers = timelineMarkers(vocabulary, bodies);
  const events = bodies.flatMap((body) => body.events.map((values) => ({ frame: body.frame, event: vocabulary.event(values) })));

  it("marks every death, landing and round clear of a recorded match, in frame order", () => {
    for (const kind of ["death", "landing", "round-clear"] as const) {
      const expected = events.filter(({ event }) => event.kind === kind).map(({ frame, event }) => [frame, event.seat]);
      expect(markers.filter((marker) => marker.kind === kind).map((marker) => [marker.frame, marker.seat])).toEqual(expected);
    }
    expect(markers.some((marker) => marker.kind === "death")).toBe(true);
    expect(markers.some((marker) => marker.kind === "landing")).toBe(true);
    const frames = markers.map((marker) => marker.frame);
    expect(frames).toEqual([...frames].sort((a, b) => a - b));
  });

  it("marks only the big attacks", () => {
    const attacks = events.filter(({ event }) => event.kind === "attack");
    const big = attacks.filter(({ event }) => (event.units as number) >= BIG_ATTACK_UNITS);
    expect(markers.filter((marker) => marker.kind === "attack").map((marker) => marker.frame)).toEqual(big.map(({ frame }) => frame));
    expect(attacks.length).toBeGreaterThan(big.length); // small ones exist and are left out
  });

  it("reads each kind from its fields and says it in words", () => {
    expect(markerOf({ kind: "death", at: [1, 2], cause: "enemy", seat: 1 }, 40)).toEqual({ frame: 40, kind: "death", seat: 1 });
    expect(markerOf({ kind: "attack", seat: 0, units: BIG_ATTACK_UNITS - 1 }, 5)).toBeNull();
    expect(markerOf({ kind: "attack", seat: 0, units: 12 }, 5)).toEqual({ frame: 5, kind: "attack", seat: 0, units: 12 });
    expect(markerOf({ kind: "landing", seat: 1, units: 4 }, 9)).toEqual({ frame: 9, kind: "landing", seat: 1, units: 4 });
    expect(markerOf({ kind: "kick", seat: 0 }, 9)).toBeNull();
    expect(markerOf({ kind: "match-end" }, 9)).toBeNull();
    const names = ["ann", "bob"];
    expect(markerText({ frame: 1, kind: "death", seat: 0 }, names)).toBe("ann lost a life");
    expect(markerText({ frame: 1, kind: "attack", seat: 1, units: 8 }, names)).toBe("bob sent a big attack (8 units)");
  });

  it("finds the marker before and after a frame and the last one shown", () => {
    const list: Marker[] = [10, 20, 30].map((frame) => ({ frame, kind: "death", seat: 0 }));
    expect(adjacentMarker(list, 20, 1)?.frame).toBe(30);
    expect(adjacentMarker(list, 20, -1)?.frame).toBe(10);
    expect(adjacentMarker(list, 30, 1)).toBeNull();
    expect(adjacentMarker(list, 10, -1)).toBeNull();
    expect(lastMarker(list, 25)?.frame).toBe(20);
    expect(lastMarker(list, 9)).toBeNull();
  });
});

describe("the text summary", () => {
  const { joined, messages } = recorded("spectator-competent-mirror.msgpack");
  const stream = new MatchStream(joined, pengoView.models(joined));
  for (const message of messages.slice(0, 400)) stream.apply(message);
  const model = stream.model;

  it("says each seat's score and lives, the time left and the last event", () => {
    const text = matchSummary(model, joined.seats, "bob lost a life");
    for (const [seat, name] of joined.seats.entries()) {
      expect(text).toContain(`${name}: ${model.field(seat, "score") as number} points, ${model.field(seat, "lives") as number} lives`);
    }
    expect(text).toContain(`${clockText(model.timeLeft)} left.`);
    expect(text.endsWith("Last: bob lost a life.")).toBe(true);
    expect(matchSummary(model, joined.seats, null)).not.toContain("Last");
  });

  it("says a seat is out of lives or forfeited, one life in the singular", () => {
    const index = model.vocabulary.summaryIndex;
    const seat = (lives: number, out: number) => {
      const summary: unknown[] = [];
      summary[index.score!] = 300;
      summary[index.lives!] = lives;
      summary[index.out!] = out;
      return { summary };
    };
    const made = { vocabulary: model.vocabulary, timeLeft: 60, seats: [seat(1, 0), seat(0, 1), seat(2, 2)] };
    expect(seatSummary(made, 0, "ann")).toBe("ann: 300 points, 1 life");
    expect(seatSummary(made, 1, "bob")).toBe("bob: 300 points, 0 lives, out of lives");
    expect(seatSummary(made, 2, "cy")).toBe("cy: 300 points, 2 lives, forfeited");
  });
});

describe("the matches this browser played", () => {
  const at = (match: string, joined = 0): Played => ({ match, seat: 0, joined });

  it("keeps the newest first, once each, at most PLAYED_KEPT", () => {
    let list: Played[] = [];
    for (let index = 0; index < PLAYED_KEPT + 5; index += 1) list = withPlayed(list, at(`m${index}`, index));
    expect(list).toHaveLength(PLAYED_KEPT);
    expect(list[0]!.match).toBe(`m${PLAYED_KEPT + 4}`);
    expect(list.some((entry) => entry.match === "m0")).toBe(false);
    list = withPlayed(list, at("m10", 999));
    expect(list[0]).toEqual(at("m10", 999));
    expect(list.filter((entry) => entry.match === "m10")).toHaveLength(1);
  });

  it("reads back what it wrote and drops what is malformed", () => {
    expect(parsePlayed(JSON.stringify([at("a"), { match: 3 }, "x", at("b")]))).toEqual([at("a"), at("b")]);
    expect(parsePlayed("{not json")).toEqual([]);
    expect(parsePlayed(null)).toEqual([]);
  });

  it("says the date, the opponent and the result of a record", () => {
    const ended = new Date(2026, 11, 3, 12, 40).getTime() / 1000;
    const record = {
      live: false, seats: ["ann", "competent-bot"], ended, replay: "m1",
      result: { winner: 1, outcomes: ["forfeited", "won"], reason: "forfeit", scores: [0, 300] },
    };
    expect(playedText(at("m1"), record)).toBe("2026-12-03 12:40 · vs competent-bot · lost: you left, 0–300");
    expect(playedText({ match: "m1", seat: 1, joined: 0 }, record)).toBe("2026-12-03 12:40 · vs ann · won by forfeit, 0–300");
    expect(playedText(at("m2", ended * 1000), { live: true, seats: ["ann", null] })).toBe("2026-12-03 12:40 · vs open · still playing");
    expect(playedText(at("m3"), { live: false, seats: ["ann", "bob"], ended, result: null })).toContain("cancelled");
    const justOver = { live: true, seats: ["ann", "bob"], result: { winner: 0, reason: "time", scores: [5, 1] } };
    expect(playedText(at("m4", ended * 1000), justOver)).toBe("2026-12-03 12:40 · vs bob · won by time, 5–1");
  });
});

describe("who watches", () => {
  it("counts the spectators and states a ranked match's delay to its spectators", () => {
    expect(watchingText(0, "player", 0)).toBe("nobody watching");
    expect(watchingText(2, "player", 0)).toBe("2 watching");
    expect(watchingText(1, "spectator", 0)).toBe("1 watching (you included)");
    expect(watchingText(1, "spectator", 10)).toMatch(/^1 watching \(you included\) · watching 10 s behind/);
    expect(watchingText(3, "player", 10)).toBe("3 watching");
  });
});
