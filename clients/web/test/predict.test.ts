/**
 * The prediction's rebuild (net/predict.ts): a `resync` that carries the match's state restores the
 * replica there and prediction runs again — after a reconnect past the replica's frames, and after a
 * desync — with an engine double that records what the page asks of the worker (the worker's Python
 * side is tests/web/test_floe_engine_module.py's).
 */

import { describe, expect, it, vi } from "vitest";
import type { Engine } from "../src/engine/engine";
import type { Advanced, EngineRequest } from "../src/engine/protocol";
import { Prediction, type OwnInputs } from "../src/net/predict";
import type { MatchStream } from "../src/net/stream";
import type { FrameBody, Joined, ReplicaState, Resync } from "../src/net/wire";

const JOINED: Joined = {
  kind: "joined", match: "m1", role: "player", seat: 0, seats: ["ann", "bot"], bots: [null, "lazy"], seed: 7,
  config: {}, ruleset: "pengo-versus", ruleset_version: 3, state: "running", head: 0, keyframe_every: 120,
  tables: { words: [], events: [], word_fields: [], summary: [], notes: [] },
} as unknown as Joined;

/** The worker's double: every request recorded; an advance confirms the rows given and reports the
 * desyncs set in `desyncs` (nothing to draw: `from` −1). */
class EngineDouble {
  readonly requests: EngineRequest[] = [];
  desyncs: number[] = [];
  readonly ready = Promise.resolve({ ms: 0, importMs: 0, python: "3" });

  request(request: EngineRequest): Promise<unknown> {
    this.requests.push(request);
    if (request.op !== "advance") return Promise.resolve(null);
    const last = request.rows.at(-1);
    const answer: Advanced = {
      base: last === undefined ? this.base(request) : last[0] + 1, present: request.target, from: -1, restart: false,
      bodies: [], corrections: [0, 0], desyncs: [...this.desyncs], advances: 0, rollbacks: 0, stepped: 0,
      resimulated: 0, ms: 0,
    };
    return Promise.resolve(answer);
  }

  private base(request: EngineRequest & { op: "advance" }): number {
    const own = Object.keys(request.own).map(Number);
    return own.length > 0 ? Math.min(...own) : 0;
  }

  ops(): string[] {
    return this.requests.map((request) => request.op);
  }

  advances(): (EngineRequest & { op: "advance" })[] {
    return this.requests.filter((request): request is EngineRequest & { op: "advance" } => request.op === "advance");
  }
}

function body(frame: number): FrameBody {
  return { frame, inputs: [0, 0], events: [], actors: [] } as unknown as FrameBody;
}

function resync(frame: number, count: number, state?: ReplicaState): Resync {
  const frames = Array.from({ length: count }, (_, k) => body(frame + k));
  return {
    kind: "resync", n: 500, frame, view: {} as Resync["view"], checksum: "c", frames, confirmed: frame + count,
    ...(state === undefined ? {} : { state }),
  };
}

function setUp(): { engine: EngineDouble; prediction: Prediction<never>; session: OwnInputs } {
  const engine = new EngineDouble();
  const session: OwnInputs = { own: new Map(), stampedUntil: 0, replica: false };
  const prediction = new Prediction(engine as unknown as Engine, JOINED, 0, {} as MatchStream<never>, session);
  return { engine, prediction, session };
}

describe("the prediction rebuilt from a resync's state", () => {
  it("asks for the state once the engine is ready, and without it stops at a resync past its frames", async () => {
    const { engine, prediction, session } = setUp();
    expect(session.replica).toBe(false);
    prediction.start();
    await vi.waitFor(() => expect(session.replica).toBe(true));
    prediction.onStream(resync(0, 3));
    await vi.waitFor(() => expect(engine.advances().at(-1)?.rows.map((row) => row[0])).toEqual([0, 1, 2]));
    prediction.onStream(resync(900, 4));
    expect(prediction.stopped).toBe("a resync past the replica's frames");
  });

  it("restores the replica at the resync's frame and goes on from there with its frames", async () => {
    const { engine, prediction } = setUp();
    prediction.start();
    prediction.onStream(resync(0, 3));
    await vi.waitFor(() => expect(engine.advances().length).toBeGreaterThan(0));
    const state: ReplicaState = { frame: 900, snapshot: "AAEC", held: [1, 2] };
    prediction.onStream(resync(900, 4, state));
    await vi.waitFor(() => expect(engine.advances().at(-1)?.rows.map((row) => row[0])).toEqual([900, 901, 902, 903]));
    const restoreAt = engine.ops().lastIndexOf("restore");
    expect(engine.requests[restoreAt]).toEqual({ op: "restore", state });
    const after = engine.advances().filter((request) => engine.requests.indexOf(request) > restoreAt);
    expect(after[0]?.fresh).toBe(true);
    expect(after[0]?.rows[0]?.[0]).toBe(900);
    expect(prediction.stopped).toBeNull();
    expect(prediction.restores).toBe(1);
  });

  it("a state that comes while the engine loads is restored once the replica exists", async () => {
    const { engine, prediction } = setUp();
    const state: ReplicaState = { frame: 300, snapshot: "AAEC", held: null };
    prediction.onStream(resync(300, 2, state));
    prediction.start();
    await vi.waitFor(() => expect(engine.advances().at(-1)?.rows.map((row) => row[0])).toEqual([300, 301]));
    expect(engine.ops().slice(0, 2)).toEqual(["create", "restore"]);
    expect(prediction.restores).toBe(1);
  });

  it("a desync stops the prediction until a resync's state rebuilds the replica", async () => {
    const { engine, prediction } = setUp();
    const desynced: number[] = [];
    prediction.onDesync = (frame) => desynced.push(frame);
    prediction.start();
    engine.desyncs = [120];
    prediction.onStream(resync(0, 3));
    await vi.waitFor(() => expect(prediction.stopped).toBe("the replica disagreed with the keyframe of frame 120"));
    expect(desynced).toEqual([120]);
    const asked = engine.advances().length;
    prediction.onStream(resync(0, 5)); // no state: the prediction stays stopped
    expect(engine.advances().length).toBe(asked);
    prediction.onStream(resync(600, 2, { frame: 600, snapshot: "AAEC", held: [0, 0] }));
    await vi.waitFor(() => expect(engine.advances().at(-1)?.rows.map((row) => row[0])).toEqual([600, 601]));
    // the worker's desyncs list keeps the old one: it is not reported again, nor does it stop this chain
    expect(prediction.stopped).toBeNull();
    expect(desynced).toEqual([120]);
  });
});
