/**
 * The stream is complete: the client's model, rebuilt from each recorded stream alone (keyframe +
 * frame records, rewinds included), agrees with every later keyframe the server sent — blocks,
 * actors, lives, status, eggs, pending attacks, gems, every summary field.
 */

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { decodeMulti } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import { MatchStream } from "../src/net/stream";
import { type Joined, type StreamMessage, toMessage } from "../src/net/wire";

const FIXTURES = join(__dirname, "fixtures");

function load(name: string): { stream: MatchStream; messages: number; frames: number } {
  const data = readFileSync(join(FIXTURES, name));
  let stream: MatchStream | undefined;
  let messages = 0;
  let frames = 0;
  for (const value of decodeMulti(data)) {
    const message = toMessage(value);
    messages += 1;
    if (message.kind === "joined") stream = new MatchStream(message as Joined);
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
