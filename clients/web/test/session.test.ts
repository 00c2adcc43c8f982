/**
 * The sans-I/O session (net/session.ts): what it sends for what it receives, at the times it is given.
 */

import { decode, encode } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import {
  CLIENT_NAME, MAX_INPUT_RUN, RECONNECT_FOR_MS, RECONNECT_WAITS_MS, type Role, Session,
} from "../src/net/session";
import { FRAME_CODE, PROTOCOL_VERSION } from "../src/net/wire";

const FRAME_MS = 1000 / 60;
/** The held bits of a Pengo input byte (the direction; the kick, 0x08, is one press). */
const HELD = 0x07;

function welcome(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: "welcome", version: PROTOCOL_VERSION, guest: "g1", name: "ann", frame_rate: 60, input_delay: 2,
    rollback_window: 8, max_ahead: 30, max_message_bytes: 4096, rate_per_second: 120, rate_burst: 240,
    input_batch: 2, send_every: 2, ...overrides,
  };
}

function joined(): Record<string, unknown> {
  return {
    kind: "joined", match: "m1", role: "player", seat: 0, seats: ["ann", "bot"], bots: [null, "lazy"], seed: 7,
    config: {}, ruleset: "pengo-versus", ruleset_version: 2, state: "playing", head: 0, keyframe_every: 120,
    tables: { words: [], events: [], word_fields: [], summary: [], notes: [] },
  };
}

/** A frame record in its array form: [code, n, lag, frame, inputs, events, actors]. */
function frame(n: number, at: number, lag = 0): unknown[] {
  return [FRAME_CODE, n, lag, at, [0, 0], [], [[], []]];
}

function bytes(...messages: unknown[]): Uint8Array {
  const parts = messages.map((message) => encode(message));
  const all = new Uint8Array(parts.reduce((size, part) => size + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.byteLength;
  }
  return all;
}

function sent(messages: Uint8Array[]): Record<string, unknown>[] {
  return messages.map((message) => decode(message) as Record<string, unknown>);
}

/** A player's session that has been welcomed, joined, and has seen frame `at` at time 0. */
function playing(at = 100, welcomeFields: Record<string, unknown> = {}, role: Role = "player"): Session {
  const session = new Session("token", "m1", role);
  session.opened(0);
  session.receive(bytes(welcome(welcomeFields), joined(), frame(1, at)), 0);
  return session;
}

describe("the session's first connection", () => {
  it("says hello with the protocol version and the token, joins the match, and sends a first ping", () => {
    const session = new Session("token", "m1", "player");
    expect(sent(session.opened(1234.5))).toEqual([
      { kind: "hello", version: PROTOCOL_VERSION, token: "token", client: CLIENT_NAME },
      { kind: "join", match: "m1", since: null, replica: false },
      { kind: "ping", id: 1, t: 1234 },
    ]);
  });

  it("watches instead of joining as a spectator", () => {
    const session = new Session(null, "m1", "spectator");
    expect(sent(session.opened(0))[1]).toEqual({ kind: "watch", match: "m1", since: null });
  });

  it("numbers its pings", () => {
    const session = new Session(null, "m1", "spectator");
    session.opened(0);
    expect(sent([session.ping(250), session.ping(500)])).toEqual([
      { kind: "ping", id: 2, t: 250 }, { kind: "ping", id: 3, t: 500 },
    ]);
  });
});

describe("what the session receives", () => {
  it("passes on the first joined, the stream messages in order, status, rated and errors", () => {
    const session = new Session("token", "m1", "player");
    session.opened(0);
    const data = bytes(welcome(), joined(), frame(1, 0), { kind: "rewind", n: 2, frame: 0 },
      { kind: "status", match: "m1", state: "playing", connected: [true, false] },
      { kind: "error", code: "rate", message: "slow down", ref: null, fatal: false });
    const events = session.receive(data, 0);
    expect(events.map((event) => event.kind)).toEqual(["joined", "stream", "stream", "status", "error"]);
    expect(session.welcome?.input_delay).toBe(2);
    expect(session.joined?.match).toBe("m1");
    expect(session.lastN).toBe(2);
    expect(session.bytesReceived).toBe(data.byteLength);
    const rated = session.receive(bytes({ kind: "rated", match: "m1", change: 12.5, rating: 1512.5, rd: 80,
      provisional: false, games: 3 }), 0);
    expect(rated).toEqual([expect.objectContaining({ kind: "rated" })]);
  });

  it("estimates the server's frame from its pongs once welcomed, and not before", () => {
    const session = new Session(null, "m1", "spectator");
    session.opened(0); // ping 1 at 0
    session.receive(bytes({ kind: "pong", id: 1, t: 0, frame: 40 }), 20);
    expect(session.serverFrame(20)).toBeNull();
    session.receive(bytes(welcome()), 20);
    session.receive(bytes({ kind: "pong", id: 2, t: 100, frame: 50 }), 120);
    expect(session.serverFrame(120)).toBeNull(); // ping 2 was never sent
    session.ping(200);
    session.receive(bytes({ kind: "pong", id: 2, t: 200, frame: 50 }), 220);
    expect(session.serverFrame(220)).toBeCloseTo(50 + 10 / FRAME_MS);
  });

  it("turns a frame record's array into a frame message whose confirmed frame is frame + 1 − lag", () => {
    const session = playing();
    const [event] = session.receive(bytes(frame(2, 101, 3)), 0);
    expect(event).toEqual({ kind: "stream", message: expect.objectContaining({ kind: "frame", n: 2, frame: 101, confirmed: 99 }) });
  });

  it("is over after `over` and then neither reconnects nor stamps inputs", () => {
    const session = playing();
    session.receive(bytes({ kind: "over", n: 2, result: null, replay: null }), 0);
    expect(session.over).toBe(true);
    expect(session.closed(10, false)).toEqual({ reconnectInMs: null, events: [] });
    expect(session.input(1, 0, HELD)).toEqual({ stamped: false, send: [] });
  });
});

describe("the session's reconnects", () => {
  it("waits 0.5, 1, 2, 4 s and then 4 s again while the grace period lasts, then gives up", () => {
    const session = playing();
    const first = session.closed(1000, false);
    expect(first).toEqual({ reconnectInMs: RECONNECT_WAITS_MS[0], events: [{ kind: "connection", dropped: true }] });
    const waits = [first.reconnectInMs];
    for (let attempt = 1; attempt < 6; attempt += 1) {
      const decision = session.closed(1000 + attempt, false);
      expect(decision.events).toEqual([]);
      waits.push(decision.reconnectInMs);
    }
    expect(waits).toEqual([500, 1000, 2000, 4000, 4000, 4000]);
    expect(session.closed(1000 + RECONNECT_FOR_MS, false).reconnectInMs).toBe(4000);
    expect(session.closed(1001 + RECONNECT_FOR_MS, false)).toEqual({
      reconnectInMs: null,
      events: [{ kind: "error", code: "disconnected", message: "the connection could not be restored", fatal: true }],
    });
  });

  it("resumes after the last stream number, says the connection is back once rejoined, and starts the waits over", () => {
    const session = playing();
    session.receive(bytes(frame(2, 101), frame(3, 102)), 0);
    session.closed(0, false);
    session.closed(500, false);
    session.replica = true; // the engine's replica runs: the rejoin asks for the match's state in a resync
    expect(sent(session.opened(1500)).slice(0, 2)).toEqual([
      { kind: "hello", version: PROTOCOL_VERSION, token: "token", client: CLIENT_NAME },
      { kind: "join", match: "m1", since: 3, replica: true },
    ]);
    expect(session.receive(bytes(welcome(), joined()), 1600)).toEqual([{ kind: "connection", dropped: false }]);
    expect(session.closed(2000, false).reconnectInMs).toBe(RECONNECT_WAITS_MS[0]);
  });

  it("does not reconnect a connection the page closed", () => {
    expect(playing().closed(0, true)).toEqual({ reconnectInMs: null, events: [] });
  });
});

describe("the session's inputs", () => {
  it("stamps nothing before the welcome and a clock estimate, nor as a spectator", () => {
    const session = new Session("token", "m1", "player");
    session.opened(0);
    expect(session.input(1, 0, HELD).stamped).toBe(false);
    session.receive(bytes(welcome(), joined()), 0);
    expect(session.input(1, 0, HELD).stamped).toBe(false);
    expect(playing(100, {}, "spectator").input(1, 0, HELD).stamped).toBe(false);
  });

  it("stamps the first input `input_delay` frames ahead of the estimate and sends it at once", () => {
    const session = playing(100);
    expect(session.serverFrame(0)).toBeCloseTo(101);
    const outcome = session.input(0, 0, HELD);
    expect(outcome.stamped).toBe(true);
    expect(sent(outcome.send)).toEqual([{ kind: "input", frame: 103, inputs: [0] }]);
  });

  it("holds an unchanged byte until `input_batch` frames are gathered, and stamps each frame once", () => {
    const session = playing(100);
    session.input(0, 0, HELD);
    expect(session.input(0, 0, HELD)).toEqual({ stamped: false, send: [] });
    expect(session.input(0, FRAME_MS, HELD)).toEqual({ stamped: true, send: [] });
    expect(sent(session.input(0, 2 * FRAME_MS, HELD).send)).toEqual([{ kind: "input", frame: 104, inputs: [0, 0] }]);
  });

  it("sends a change at once, with the frames held before it", () => {
    const session = playing(100);
    session.input(0, 0, HELD);
    session.input(0, FRAME_MS, HELD);
    expect(sent(session.input(4, 2 * FRAME_MS, HELD).send)).toEqual([{ kind: "input", frame: 104, inputs: [0, 4] }]);
  });

  it("puts a one-press bit on one frame only and fills the frames up to the stamp with the held bits", () => {
    const session = playing(100);
    session.input(3, 0, HELD);
    // Two frames later the stamp is 105: 104 carries the kick, 105 the direction alone.
    expect(sent(session.input(3 | 0x08, 2 * FRAME_MS, HELD).send)).toEqual([{ kind: "input", frame: 104, inputs: [11, 3] }]);
  });

  it("repeats every bit the game says holds, and batches it like any unchanged byte", () => {
    const session = playing(100);
    session.input(0x0b, 0, 0x0f); // 103, the first: sent
    expect(session.input(0x0b, FRAME_MS, 0x0f).send).toEqual([]);
    expect(sent(session.input(0x0b, 3 * FRAME_MS, 0x0f).send)).toEqual([{ kind: "input", frame: 104, inputs: [11, 11, 11] }]);
  });

  it("skips the frames the estimate has passed (the server predicts them) when calls come late", () => {
    const session = playing(100);
    session.input(3, 0, HELD); // 103
    // Three frames later the server is on 104: the run starts at 105 and ends at the stamp, 106.
    expect(sent(session.input(4, 3 * FRAME_MS, HELD).send)).toEqual([{ kind: "input", frame: 105, inputs: [4, 4] }]);
  });

  it(`splits a long run into messages of at most ${MAX_INPUT_RUN} frames`, () => {
    const session = playing(100, { input_delay: 40, input_batch: 60 });
    session.input(0, 0, HELD); // frame 141
    const run = sent(session.input(1, 30 * FRAME_MS, HELD).send);
    // The change at frame 142 fills to 171: 30 frames in runs of 16 and 14.
    expect(run.map((message) => [message.frame, (message.inputs as number[]).length])).toEqual([[142, 16], [158, 14]]);
  });

  it("sends a held run before a run that does not follow it (the estimate jumped)", () => {
    const session = playing(100, { input_batch: 8 });
    session.input(0, 0, HELD); // 103, sent
    session.input(0, FRAME_MS, HELD); // 104, held
    session.receive(bytes(frame(2, 150)), 2 * FRAME_MS);
    const messages = sent(session.input(0, 2 * FRAME_MS, HELD).send);
    expect(messages).toEqual([{ kind: "input", frame: 104, inputs: [0] }]);
    expect(sent(session.input(1, 3 * FRAME_MS, HELD).send)).toEqual([{ kind: "input", frame: 152, inputs: [0, 0, 1] }]);
  });

  it("after input-late, stamps nothing at or before the frame the server applied", () => {
    const session = playing(100);
    session.input(0, 0, HELD); // 103
    session.receive(bytes({ kind: "input-late", frame: 103, applied: 110 }), 0);
    expect(session.input(0, 5 * FRAME_MS, HELD).stamped).toBe(false);
    const outcome = session.input(1, 9 * FRAME_MS, HELD);
    expect(outcome.stamped).toBe(true);
    expect(sent(outcome.send)).toEqual([{ kind: "input", frame: 111, inputs: [1, 1] }]);
  });

  it("after input-late, stamps past where the runs in flight land, once per shift", () => {
    const session = playing(100);
    session.input(0, 0, HELD); // 103
    session.input(1, 2 * FRAME_MS, HELD); // 104, 105
    const before = session.stampedUntil;
    // the server put 103 on 110, so every run sent after it lands 7 frames later than stamped
    session.receive(bytes({ kind: "input-late", frame: 103, applied: 110 }), 2 * FRAME_MS);
    expect(session.stampedUntil).toBe(before + 7);
    // the answer to the run sent before the jump says the same shift: no second jump
    session.receive(bytes({ kind: "input-late", frame: 104, applied: 111 }), 2 * FRAME_MS);
    expect(session.stampedUntil).toBe(before + 7);
    expect(session.late).toBe(2);
    // a run stamped after the jump answered late is a new shift
    const next = session.stampedUntil;
    session.input(2, 12 * FRAME_MS, HELD);
    const after = session.stampedUntil;
    session.receive(bytes({ kind: "input-late", frame: next, applied: next + 3 }), 12 * FRAME_MS);
    expect(session.stampedUntil).toBe(after + 3);
  });

  it("leaves the match on request", () => {
    expect(decode(playing().leave())).toEqual({ kind: "leave" });
  });

  it("keeps each stamped frame's own byte for the prediction, and the next frame to stamp", () => {
    const session = playing(100);
    session.input(3, 0, HELD);
    session.input(3 | 0x08, 2 * FRAME_MS, HELD);
    expect([...session.own]).toEqual([[103, 3], [104, 11], [105, 3]]);
    expect(session.stampedUntil).toBe(106);
  });

  it("reports a desync of the browser engine with a keyframe", () => {
    expect(decode(playing().desync(240))).toEqual({ kind: "desync", frame: 240 });
  });
});
