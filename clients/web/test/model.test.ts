/**
 * The Pengo model (games/pengo/model.ts) and the stream's bookkeeping (net/stream.ts).
 *
 * The stream is complete: the client's model, rebuilt from each recorded stream alone (keyframe +
 * frame records, rewinds included), agrees with every later keyframe the server sent — blocks,
 * actors, lives, status, eggs, pending attacks, gems, every summary field. Then each part of a frame
 * record alone (summary changes, small moves, whole and gone records, block events, notes), the clone,
 * the differences, and rewinds, resyncs and gaps, on the recorded tables.
 */

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { decodeMulti } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import type { MatchModel } from "../src/games/pengo/model";
import { type PengoTables, pengoVocabulary } from "../src/games/pengo/tables";
import { pengoView } from "../src/games/pengo/view";
import { MatchStream } from "../src/net/stream";
import { type FrameBody, type FrameMessage, type Joined, type StreamMessage, type View, toMessage } from "../src/net/wire";

const FIXTURES = join(__dirname, "fixtures");

function load(name: string): { stream: MatchStream<MatchModel>; messages: number; frames: number } {
  const data = readFileSync(join(FIXTURES, name));
  let stream: MatchStream<MatchModel> | undefined;
  let messages = 0;
  let frames = 0;
  for (const value of decodeMulti(data)) {
    const message = toMessage(value);
    messages += 1;
    if (message.kind === "joined") stream = new MatchStream(message as Joined, pengoView.models(message as Joined));
    else if (stream && ["frame", "keyframe", "rewind", "resync", "over"].includes(message.kind)) {
      if (message.kind === "frame") frames += 1;
      stream.apply(message as StreamMessage);
    }
  }
  if (stream === undefined) throw new Error(`${name}: no joined`);
  return { stream, messages, frames };
}

const fixtures = readdirSync(FIXTURES).filter((name) => name.endsWith(".msgpack"));

describe("the model rebuilt from a recorded stream", () => {
  it("has several long recorded streams to check, a player's with rewinds among them", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(4);
    expect(fixtures).toContain("player-rewinds.msgpack");
  });

  for (const name of fixtures) {
    it(`agrees with every keyframe of ${name}`, () => {
      const { stream, frames } = load(name);
      expect(frames).toBeGreaterThan(1000);
      expect(stream.checks.length).toBeGreaterThan(10);
      const wrong = stream.checks.filter((check) => check.differences.length > 0);
      expect(wrong.slice(0, 3)).toEqual([]);
      if (name.startsWith("player")) expect(stream.rewinds).toBeGreaterThan(0);
    });
  }
});

// ---- the Pengo model, record by record -----------------------------------------------------------------

/** The pengo-versus tables, as a recorded stream's `joined` carries them. */
function recordedJoined(): Joined {
  for (const value of decodeMulti(readFileSync(join(FIXTURES, "spectator-competent-mirror.msgpack")))) {
    const message = toMessage(value);
    if (message.kind === "joined") return message as Joined;
  }
  throw new Error("no joined");
}

const JOINED = recordedJoined();
const TABLES = JOINED.tables as PengoTables;
const VOCABULARY = pengoVocabulary(TABLES);
const word = (name: string): number => VOCABULARY.code(name);

/** An event array: its kind's code, then its fields in the tables' order. */
function event(kind: string, fields: Record<string, unknown>): unknown[] {
  const code = TABLES.events.findIndex(([name]) => name === kind);
  const [, names] = TABLES.events[code]!;
  return [code, ...names.map((name) => fields[name] ?? null)];
}

function note(kind: string, ...values: unknown[]): unknown[] {
  return [TABLES.notes.findIndex(([name]) => name === kind), ...values];
}

/** A small move's code: dx and dy in −4 … 4 (protocol/delta.py). */
const step = (dx: number, dy: number): number => (dx + 4) * 9 + (dy + 4);

/** One seat, two ice blocks (ids 1, 2) and a diamond (id 3), Pengo at (96, 96), at frame 10. */
function view(frame = 10): View {
  const summary: unknown[] = TABLES.summary.map(() => 0);
  summary[TABLES.summary.indexOf("status")] = word("playing");
  return {
    frame,
    time_left: 500,
    seats: [{
      name: "ann", cols: 13, rows: 15, summary,
      records: [[TABLES.keys.player, 96, 96, word("up"), word("walk")]],
      blocks: [1, 0, 0, word("ice"), 0, 2, 1, 0, word("ice"), 0, 3, 2, 0, word("diamond"), 0],
    }],
  };
}

function model(frame = 10): MatchModel {
  const made = pengoView.models(JOINED)();
  made.applyView(view(frame));
  return made;
}

/** A frame record for the one seat: its actors' change and its events. */
function body(frame: number, change: unknown[], events: unknown[][] = []): FrameBody {
  return { frame, inputs: [0], events, actors: [change] };
}

describe("the Pengo model", () => {
  it("reads a keyframe view: blocks with their materials, records, summary, clock", () => {
    const made = model();
    expect(made.frame).toBe(10);
    expect(made.timeLeft).toBe(500);
    const seat = made.seats[0]!;
    expect(seat.blocks.get(3)).toEqual({ id: 3, x: 2, y: 0, material: "diamond", damage: 0, breaking: false, sliding: false });
    expect(seat.records.get(TABLES.keys.player)).toEqual([TABLES.keys.player, 96, 96, word("up"), word("walk")]);
    expect(VOCABULARY.word(made.field(0, "status"))).toBe("playing");
  });

  it("applies a frame's summary changes, small moves, whole records and gone keys, and counts the clock down", () => {
    const made = model();
    const enemy = [TABLES.keys.enemy, 16, 16, 0, 0, word("moving"), word("down"), 0];
    const score = TABLES.summary.indexOf("score");
    made.applyFrame(body(10, [[score, 120], [TABLES.keys.player, step(1, -2)], [enemy], []]));
    expect(made.frame).toBe(11);
    expect(made.timeLeft).toBe(499);
    expect(made.field(0, "score")).toBe(120);
    expect(made.seats[0]!.records.get(TABLES.keys.player)!.slice(1, 3)).toEqual([97, 94]);
    expect(made.seats[0]!.records.get(TABLES.keys.enemy)).toEqual(enemy);
    made.applyFrame(body(11, [[], [], [], [TABLES.keys.enemy]]));
    expect(made.seats[0]!.records.has(TABLES.keys.enemy)).toBe(false);
  });

  it("slides, cracks and breaks blocks as the frame's events say", () => {
    const made = model();
    const by = word("player");
    made.applyFrame(body(10, [], [event("slide-start", { block: 1, at: [0, 0], dir: word("down"), by, seat: 0 })]));
    expect(made.seats[0]!.blocks.get(1)!.sliding).toBe(true);
    made.applyFrame(body(11, [], [
      event("slide-stop", { block: 1, at: [0, 5], dir: word("down"), by, travelled: 5, group: null, seat: 0 }),
      event("crack", { block: 2, at: [1, 0], damage: 2, seat: 0 }),
    ]));
    expect(made.seats[0]!.blocks.get(1)).toMatchObject({ x: 0, y: 5, sliding: false });
    expect(made.seats[0]!.blocks.get(2)!.damage).toBe(2);
    made.applyFrame(body(12, [], [event("break-start", { block: 2, at: [1, 0], by, egg: null, material: word("ice"), seat: 0 })]));
    expect(made.seats[0]!.blocks.get(2)).toMatchObject({ breaking: true, damage: 0 });
    made.applyFrame(body(13, [], [event("broken", { block: 2, at: [1, 0], by, egg: null, material: word("ice"), seat: 0 })]));
    expect(made.seats[0]!.blocks.has(2)).toBe(false);
    expect(made.lastEvents.map((e) => e.kind)).toEqual(["broken"]);
  });

  it("places a landing's ice and counter gems under the ids its `landed` note names", () => {
    const made = model();
    const landing = event("landing", { seat: 0, landing: word("ice"), units: 3, blocks: [[5, 5], [6, 6]], eggs: [], gems: [[7, 7]] });
    made.applyFrame(body(10, [[], [], [], [], [note("landed", [1], [40, 41, 42])]], [landing]));
    const blocks = made.seats[0]!.blocks;
    expect([blocks.get(40), blocks.get(41), blocks.get(42)].map((b) => [b?.x, b?.y, b?.material])).toEqual([
      [5, 5, "ice"], [6, 6, "ice"], [7, 7, "counter-gem"],
    ]);
  });

  it("replaces the board on a `board` note", () => {
    const made = model();
    made.applyFrame(body(10, [[], [], [], [], [note("board", 9, 11, [7, 4, 4, word("diamond"), 0], [0, 0, 1, 0])]]));
    const seat = made.seats[0]!;
    expect([seat.cols, seat.rows, [...seat.blocks.keys()], seat.carve]).toEqual([9, 11, [7], [0, 0, 1, 0]]);
  });

  it("clones into a model that shares no block, record or summary with the original", () => {
    const made = model();
    const copy = made.clone();
    copy.applyFrame(body(10, [[TABLES.summary.indexOf("score"), 5], [TABLES.keys.player, step(4, 4)], [], []],
      [event("crack", { block: 1, at: [0, 0], damage: 1, seat: 0 })]));
    expect(made.differences(view())).toEqual([]);
    expect(copy.differences(view(11)).length).toBeGreaterThan(0);
  });

  it("names each difference from a keyframe view of the same frame", () => {
    const made = model();
    made.seats[0]!.blocks.get(1)!.x = 4;
    const found = made.differences(view());
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^seat 0 blocks: extra .* missing /);
    expect(model().differences(view(12))).toEqual(["frame 10 != 12"]);
  });
});

describe("the stream's bookkeeping on the Pengo model", () => {
  function stream(): MatchStream<MatchModel> {
    const made = new MatchStream(JOINED, pengoView.models(JOINED));
    made.apply({ kind: "keyframe", n: 1, frame: 10, view: view(10), checksum: "" });
    return made;
  }

  const move = (frame: number, n: number): FrameMessage => ({
    kind: "frame", n, confirmed: frame, ...body(frame, [[], [TABLES.keys.player, step(1, 0)], [], []]),
  });

  it("restores the state before the rewound frame, and replays a frame sent again from there", () => {
    const made = stream();
    made.apply(move(10, 2));
    made.apply(move(11, 3));
    made.apply({ kind: "rewind", n: 4, frame: 11 });
    expect([made.model.frame, made.model.seats[0]!.records.get(0)![1]]).toEqual([11, 97]);
    expect(made.rewinds).toBe(1);
    made.apply(move(11, 5));
    expect([made.model.frame, made.model.seats[0]!.records.get(0)![1], made.lastN]).toEqual([12, 98, 5]);
    expect(made.stateAt(11)!.seats[0]!.records.get(0)![1]).toBe(97);
  });

  it("checks a keyframe against the model it built, and starts over from a resync", () => {
    const made = stream();
    made.apply(move(10, 2));
    const keyframe = view(11);
    keyframe.seats[0]!.records = [[0, 97, 96, word("up"), word("walk")]];
    made.apply({ kind: "keyframe", n: 3, frame: 11, view: keyframe, checksum: "" });
    expect(made.checks.map((check) => [check.frame, check.differences])).toEqual([[11, []]]);
    made.apply({ kind: "resync", n: 9, frame: 20, view: view(20), checksum: "", frames: [move(20, 0)], confirmed: 20 });
    expect([made.resyncs, made.lastN, made.model.frame]).toEqual([1, 9, 21]);
  });

  it("waits for a keyframe after a gap in the frames", () => {
    const made = stream();
    made.apply(move(12, 2));
    expect(made.model.frame).toBe(10);
  });
});
