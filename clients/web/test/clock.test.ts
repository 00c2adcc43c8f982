/**
 * The server clock as the session has estimated it since protocol 3 (net/clock.ts), and the input
 * lead (issue 21).
 */

import { describe, expect, it } from "vitest";
import { CLOCK_SAMPLES, LEAD_MARGIN_FRAMES, LEAD_MAX_FRAMES, PINGS_KEPT, ServerClock } from "../src/net/clock";
import type { Pong } from "../src/net/wire";

const RATE = 60;
/** Milliseconds per frame at 60 frames a second. */
const FRAME_MS = 1000 / RATE;

function pong(id: number, frame: number): Pong {
  return { kind: "pong", id, t: 0, frame };
}

function clock(): ServerClock {
  const made = new ServerClock();
  made.setFrameRate(RATE);
  return made;
}

describe("the server clock", () => {
  it("has no estimate before the frame rate is known, nor before a pong or a frame record", () => {
    const bare = new ServerClock();
    bare.frameRecord(10, 0);
    expect(bare.serverFrame(0)).toBeNull();
    expect(clock().serverFrame(0)).toBeNull();
  });

  it("puts the server one frame past the newest frame record, advancing at the frame rate", () => {
    const made = clock();
    made.frameRecord(100, 1000);
    expect(made.serverFrame(1000)).toBeCloseTo(101);
    expect(made.serverFrame(1000 + 3 * FRAME_MS)).toBeCloseTo(104);
  });

  it("keeps the newest frame record when an older one arrives, but a resync's frame replaces it", () => {
    const made = clock();
    made.frameRecord(100, 0);
    made.frameRecord(90, 0);
    expect(made.serverFrame(0)).toBeCloseTo(101);
    made.resynced(90, 0);
    expect(made.serverFrame(0)).toBeCloseTo(91);
  });

  it("turns a pong into a sample corrected by half its round trip", () => {
    const made = clock();
    const { id } = made.ping(0);
    made.pong(pong(id, 50), 20);
    // 20 ms round trip: the server was at frame 50 10 ms ago, 50.6 now.
    expect(made.serverFrame(20)).toBeCloseTo(50 + 10 / FRAME_MS);
  });

  it("uses the sample with the smallest round trip among those kept", () => {
    const made = clock();
    const fast = made.ping(0).id;
    made.pong(pong(fast, 50), 20);
    const slow = made.ping(100).id;
    made.pong(pong(slow, 200), 300);
    expect(made.serverFrame(300)).toBeCloseTo(50 + (300 - 10) / FRAME_MS);
  });

  it(`forgets a sample after ${CLOCK_SAMPLES} newer ones`, () => {
    const made = clock();
    const best = made.ping(0).id;
    made.pong(pong(best, 1000), 2);
    for (let index = 0; index < CLOCK_SAMPLES; index += 1) {
      const id = made.ping(10).id;
      made.pong(pong(id, 10), 110);
    }
    // Every kept sample: 100 ms round trip, frame 10 50 ms before 110.
    expect(made.serverFrame(110)).toBeCloseTo(10 + 50 / FRAME_MS);
  });

  it("takes the larger of the ping estimate and the frame record's floor", () => {
    const made = clock();
    const { id } = made.ping(0);
    made.pong(pong(id, 50), 0);
    made.frameRecord(80, 0);
    expect(made.serverFrame(0)).toBeCloseTo(81);
    made.frameRecord(20, 0);
    expect(made.serverFrame(0)).toBeCloseTo(81);
  });

  it("ignores a pong outside a match, an unknown ping's, and one before the frame rate was known", () => {
    const made = clock();
    made.pong(pong(made.ping(0).id, -1), 10);
    made.pong(pong(999, 50), 10);
    expect(made.serverFrame(10)).toBeNull();
    const early = new ServerClock();
    const id = early.ping(0).id;
    early.pong(pong(id, 50), 10);
    early.setFrameRate(RATE);
    early.pong(pong(id, 50), 10); // the ping was spent by the first pong
    expect(early.serverFrame(10)).toBeNull();
  });

  it(`numbers pings from 1, stamps the low 31 bits of the time, and keeps at most ${PINGS_KEPT} unanswered`, () => {
    const made = clock();
    expect(made.ping(2 ** 31 + 5.7)).toEqual({ id: 1, t: 5 });
    for (let index = 0; index < PINGS_KEPT; index += 1) made.ping(0);
    made.pong(pong(1, 50), 10);
    expect(made.serverFrame(10)).toBeNull();
    made.pong(pong(2, 50), 10);
    expect(made.serverFrame(10)).not.toBeNull();
  });
});

describe("the input lead", () => {
  function sampled(rtts: number[]): ServerClock {
    const made = clock();
    let at = 0;
    for (const rtt of rtts) {
      const { id } = made.ping(at);
      made.pong(pong(id, 100), at + rtt);
      at += 250;
    }
    return made;
  }

  it("is unknown before a pong", () => {
    expect(clock().lead()).toBeNull();
  });

  it("covers the one-way delay and a frame of margin on a steady network", () => {
    // 200 ms round trips: 100 ms one way, 6 frames, and the margin.
    expect(sampled([200, 200, 200]).lead()).toBe(Math.ceil(100 / FRAME_MS + LEAD_MARGIN_FRAMES));
    expect(sampled([0]).lead()).toBe(LEAD_MARGIN_FRAMES);
  });

  it("adds half the spread of the round trips kept (jitter), and follows the network as samples age", () => {
    // 100 ± 10 ms one way: round trips 180 … 220; 90 ms plus 20 ms of jitter.
    const jittered = sampled([180, 220, 200, 190, 210]);
    expect(jittered.lead()).toBe(Math.ceil(110 / FRAME_MS + LEAD_MARGIN_FRAMES));
    // a stall's slow pong is forgotten after CLOCK_SAMPLES newer ones
    const stalled = sampled([20, 2000, ...Array.from({ length: CLOCK_SAMPLES }, () => 20)]);
    expect(stalled.lead()).toBe(Math.ceil(10 / FRAME_MS + LEAD_MARGIN_FRAMES));
  });

  it(`is at most ${LEAD_MAX_FRAMES} frames`, () => {
    expect(sampled([20, 5000]).lead()).toBe(LEAD_MAX_FRAMES);
  });
});
