/**
 * Payload versus's view (src/games/payload/): its model rebuilt from recorded spectator streams
 * (test/fixtures/payload-versus/, written by tests/web/record_streams.py: bot matches played to their
 * end, a keyframe every 3 frames) agrees with every keyframe the server sent — summary, board records
 * and the whole shown run (phase, offers, pick, blueprints, jams landed); its controls turn the page's
 * moves into held input bytes, a neutral frame between two equal moves; the registry draws it.
 */

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { decodeMulti } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import type { PayloadModel } from "../src/games/payload/model";
import { INPUT, PayloadControls, payloadVersusView } from "../src/games/payload/versus";
import { canShow, PLAYABLE, viewFor } from "../src/games/registry";
import { MatchStream } from "../src/net/stream";
import { type Joined, type StreamMessage, toMessage } from "../src/net/wire";

const FIXTURES = join(__dirname, "fixtures", "payload-versus");

function load(name: string): { stream: MatchStream<PayloadModel>; kinds: Set<string>; over: unknown } {
  let stream: MatchStream<PayloadModel> | undefined;
  const kinds = new Set<string>();
  let over: unknown = null;
  for (const value of decodeMulti(readFileSync(join(FIXTURES, name)))) {
    const message = toMessage(value);
    if (message.kind === "joined") stream = new MatchStream(message as Joined, payloadVersusView.models(message as Joined));
    else if (stream && ["frame", "keyframe", "rewind", "resync", "over"].includes(message.kind)) {
      stream.apply(message as StreamMessage);
      for (const event of stream.model.lastEvents) kinds.add(event.kind);
      if (message.kind === "over") over = (message as { result: unknown }).result;
    }
  }
  if (stream === undefined) throw new Error(`${name}: no joined`);
  return { stream, kinds, over };
}

const fixtures = readdirSync(FIXTURES).filter((name) => name.endsWith(".msgpack"));

describe("the Payload versus model rebuilt from a recorded stream", () => {
  it("has recorded Payload versus matches to check", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(2);
  });

  for (const name of fixtures) {
    it(`agrees with every keyframe of ${name}`, () => {
      const { stream, kinds, over } = load(name);
      expect(stream.joined.ruleset).toBe("payload-versus");
      expect(stream.checks.length).toBeGreaterThan(5);
      const wrong = stream.checks.filter((check) => check.differences.length > 0);
      expect(wrong.slice(0, 2)).toEqual([]);
      // the stream carried what the model follows: drafts, picks, drops, clears, the exchange, the end
      for (const kind of ["offers", "selected", "placed", "drop", "round-cleared", "end"]) expect(kinds).toContain(kind);
      const result = over as { reason: string; winner: number | null; scores: number[] };
      expect(stream.model.seats.map((seat) => seat.run.total_score)).toEqual(result.scores);
    });
  }

  it("keeps a clone apart from the model it was made from", () => {
    const { stream } = load(fixtures[0]!);
    const copy = stream.model.clone();
    copy.seats[0]!.run.board[0] = "peg";
    copy.seats[0]!.summary[0] = -1;
    copy.seats[0]!.run.blueprints.push("x");
    expect(stream.model.seats[0]!.summary[0]).not.toBe(-1);
    expect(stream.model.seats[0]!.run.blueprints).not.toContain("x");
    expect(stream.model.differences(stream.keyframes.get(Math.max(...stream.keyframes.keys()))!)).toEqual(
      stream.model.frame === Math.max(...stream.keyframes.keys()) ? [] : expect.any(Array));
  });
});

describe("Payload versus's controls", () => {
  /** The bytes a device gives frame by frame, each sent as it is given. */
  function run(device: PayloadControls, frames: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < frames; i += 1) {
      const byte = device.byte();
      device.sent(byte);
      out.push(byte);
    }
    return out;
  }

  it("sends each move's byte once, holding it, with a neutral frame between two equal moves", () => {
    const surface = new EventTarget() as unknown as HTMLElement;
    const device = new PayloadControls();
    device.attach(surface);
    expect(device.heldMask).toBe(0xff);
    expect(run(device, 2)).toEqual([INPUT.neutral, INPUT.neutral]);
    for (const byte of [INPUT.select + 1, INPUT.place + 12, INPUT.drop + 2, INPUT.drop + 2]) {
      surface.dispatchEvent(new CustomEvent("payload-move", { detail: byte }));
    }
    expect(run(device, 7)).toEqual([0x09, 0x4c, 0x1a, 0x00, 0x1a, 0x1a, 0x1a]);
    device.detach();
    surface.dispatchEvent(new CustomEvent("payload-move", { detail: INPUT.skip }));
    expect(run(device, 1)).toEqual([0x1a]);
  });

  it("is drawn by this client: the lobby lists Payload versus beside Pengo's", () => {
    expect(canShow("payload-versus")).toBe(true);
    expect(viewFor("payload-versus")).toBe(payloadVersusView);
    expect(payloadVersusView.predicts).toBe(false);
    expect(PLAYABLE.map((game) => game.ruleset)).toEqual(["pengo-versus", "payload-versus"]);
  });
});
