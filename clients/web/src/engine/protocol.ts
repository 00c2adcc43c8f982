/**
 * The messages between the page and the engine's worker (src/engine/worker.ts): a request names an
 * operation and carries an id; its answer carries the same id and a value or an error.
 */

import type { FrameBody, Joined, MatchResult, ReplicaState, View } from "../net/wire";

/** Where the build puts Pyodide's files and floe's rules (vite.config.ts; the server serves /engine). */
export const ENGINE_PATH = "/engine/";

export type EngineRequest =
  | { op: "load" }
  | { op: "verify"; replay: unknown }
  | { op: "create"; ruleset: string; version: number; config: unknown; seed: number; seats: string[] }
  | { op: "keyframe"; frame: number; checksum: string }
  | { op: "restore"; state: ReplicaState }
  | { op: "advance"; seat: number; rows: [number, number[]][]; own: Record<number, number>; target: number; fresh: boolean }
  | PayloadRequest
  | { op: "replay"; replay: unknown }
  | {
    op: "practice"; ruleset: string; version: number; config: unknown; seed: number; seats: string[];
    seat: number; bot: string; start: unknown; frame: number; player: string;
  }
  | { op: "step"; inputs: number[] }
  | { op: "finish" };

/** Payload's run in the engine (src/engine/payload_engine.py): one call of that module, its argument
 * and answer as JSON (games/payload/engine.ts gives them their types). */
export type PayloadCall = "content" | "start" | "move" | "view" | "preview" | "share" | "shown_preview" | "replay";
export type PayloadRequest = { op: "payload"; call: PayloadCall; arg?: unknown };

/** A keyframe the engine made: the state at the start of `frame`. */
export interface EngineKeyframe {
  frame: number;
  view: View;
  checksum: string;
}

/** A replay file played in the engine: what the server's replay stream would carry (and the verdict). */
export interface PlayedReplay {
  joined: Joined;
  keyframes: EngineKeyframe[];
  bodies: FrameBody[];
  result: MatchResult | null;
  log_hash: string;
  ok: boolean;
  reason: string;
}

export interface Verdict {
  ok: boolean;
  reason: string;
  log_hash: string | null;
  frames: number;
}

/** The replica's answer to `advance` (floe_engine.py `Replica.advance`). */
export interface Advanced {
  /** Frames below `base` are confirmed; the chain's present frame. */
  base: number;
  present: number;
  /** The frame the bodies start at (−1: nothing new): onto the stream's state at `from` when `restart`,
   * else onto the page's own predicted state (at `from`). */
  from: number;
  restart: boolean;
  bodies: FrameBody[];
  corrections: number[];
  desyncs: number[];
  /** Advances answered, rollbacks, frames stepped and re-simulated (all so far). */
  advances: number;
  rollbacks: number;
  stepped: number;
  resimulated: number;
  /** Milliseconds the worker spent on this advance (Python's call and its JSON). */
  ms: number;
}

/** What each operation answers. */
export interface EngineAnswers {
  load: { ms: number; importMs: number; python: string };
  verify: Verdict & { ms: number };
  create: null;
  keyframe: null;
  restore: null;
  advance: Advanced;
  payload: unknown;
  replay: PlayedReplay & { ms: number };
  practice: EngineKeyframe & { tables: Joined["tables"] };
  step: FrameBody[];
  finish: { result: MatchResult | null; replay: unknown };
}

export type Envelope = { id: number } & EngineRequest;
export type Reply = { id: number; value: unknown } | { id: number; error: string };
