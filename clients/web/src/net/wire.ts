/**
 * The wire of the protocol (protocol/README.md): the messages a browser exchanges with floe and the
 * frame record's array form, for every ruleset (a ruleset's stream tables: net/vocabulary.ts).
 */

import type { StreamTables } from "./vocabulary";

/** The protocol version this client speaks, and the frame record's first value: the server's own. */
import { FRAME_CODE, PROTOCOL_VERSION } from "../generated/protocol";
export { FRAME_CODE, PROTOCOL_VERSION };

export interface Welcome {
  kind: "welcome";
  version: number;
  guest: string | null;
  name: string | null;
  frame_rate: number;
  input_delay: number;
  rollback_window: number;
  max_ahead: number;
  max_message_bytes: number;
  rate_per_second: number;
  rate_burst: number;
  input_batch: number;
  send_every: number;
  /** Seconds a dropped player has to come back before its seat forfeits (the rule to show). */
  reconnect_grace?: number;
  /** Seconds a rematch offer waits for its answer. */
  rematch_offer_seconds?: number;
}

export interface Joined {
  kind: "joined";
  match: string;
  role: "player" | "spectator";
  seat: number | null;
  seats: string[];
  bots: (string | null)[];
  seed: number;
  config: { rules?: { time_limit_frames?: number; lives?: number } } & Record<string, unknown>;
  ruleset: string;
  ruleset_version: number;
  state: string;
  head: number;
  keyframe_every: number;
  tables: StreamTables;
  /** Following the match now, the newcomer included (protocol 6). */
  spectators?: number;
  /** Seconds this stream runs behind the match (a ranked match's spectators; protocol 6). */
  delay?: number;
}

/** A keyframe's view of one seat. */
export interface SeatView {
  name: string;
  cols: number;
  rows: number;
  summary: unknown[];
  records: number[][];
  blocks: (number | string)[];
}

export interface View {
  frame: number;
  time_left: number;
  seats: SeatView[];
}

export interface FrameBody {
  frame: number;
  inputs: number[];
  events: unknown[][];
  actors: unknown[][];
}

export interface FrameMessage extends FrameBody {
  kind: "frame";
  n: number;
  confirmed: number;
}

export interface Keyframe {
  kind: "keyframe";
  n: number;
  frame: number;
  view: View;
  checksum: string;
}

export interface Resync {
  kind: "resync";
  n: number;
  frame: number;
  view: View;
  checksum: string;
  frames: FrameBody[];
  confirmed: number;
  /** Only when this player's `join` said `replica`: the match's state at `frame` (protocol/README.md). */
  state?: ReplicaState;
}

/** A resync's `state`: the rules' snapshot at `frame` (marshal bytes in base64, for the engine's Python
 * only) and each seat's input on the frame before (null: not known). */
export interface ReplicaState {
  frame: number;
  snapshot: string;
  held: number[] | null;
}

export interface Rewind {
  kind: "rewind";
  n: number;
  frame: number;
}

export interface MatchResult {
  winner: number | null;
  outcomes: string[];
  reason: string;
  frame: number;
  scores: number[];
}

export interface Over {
  kind: "over";
  n: number;
  result: MatchResult | null;
  replay: string | null;
}

export interface Status {
  kind: "status";
  match: string;
  state: string;
  connected: boolean[];
  /** Per seat: the player's round trip in ms as the server measures it (null: a bot, dropped, not yet). */
  lag?: (number | null)[];
  /** Per seat: whole seconds left before a dropped player's seat forfeits (null: not dropped). */
  grace?: (number | null)[];
  /** Following the match now (protocol 6). */
  spectators?: number;
}

export interface Pong {
  kind: "pong";
  id: number;
  t: number;
  frame: number;
}

export interface InputLate {
  kind: "input-late";
  frame: number;
  applied: number;
}

export interface ErrorMessage {
  kind: "error";
  code: string;
  message: string;
  ref: string | null;
  fatal: boolean;
}

/** After a ranked match, the rating change (once the store applied it). */
export interface Rated {
  kind: "rated";
  match: string;
  change: number;
  rating: number;
  rd: number;
  provisional: boolean;
  games: number;
}

/** A rematch of `match` offered by seat `seat` (to both players: the offerer's is its confirmation). */
export interface RematchOffer {
  kind: "rematch-offer";
  match: string;
  seat: number;
  name: string;
  expires: number;
}

/** No rematch: "declined", "expired" or "refused" (then `code` and `message` say why). */
export interface RematchRefused {
  kind: "rematch-refused";
  match: string;
  reason: string;
  code?: string | null;
  message?: string | null;
}

/** The rematch is made: join `rematch` in seat `seat`. */
export interface RematchReady {
  kind: "rematch-ready";
  match: string;
  rematch: string;
  seat: number;
  ranked: boolean;
}

export type RematchMessage = RematchOffer | RematchRefused | RematchReady;

export type StreamMessage = FrameMessage | Keyframe | Resync | Rewind | Over;
export type ServerMessage = Welcome | Joined | Status | StreamMessage | Pong | InputLate | ErrorMessage | Rated
  | RematchMessage;

function frameBody(values: unknown[]): FrameBody {
  const [frame, inputs, events, actors] = values as [number, number[], unknown[][], unknown[][]];
  return { frame, inputs, events, actors };
}

/** One decoded msgpack value from the server as a message (a frame array becomes a FrameMessage). */
export function toMessage(value: unknown): ServerMessage {
  if (Array.isArray(value)) {
    if (value[0] !== FRAME_CODE || value.length !== 7) throw new Error("not a frame record");
    const [, n, lag, frame, inputs, events, actors] = value as [
      number, number, number, number, number[], unknown[][], unknown[][],
    ];
    return { kind: "frame", n, frame, confirmed: frame + 1 - lag, inputs, events, actors };
  }
  if (value === null || typeof value !== "object" || typeof (value as { kind?: unknown }).kind !== "string") {
    throw new Error("not a floe message");
  }
  const message = value as ServerMessage;
  if (message.kind === "resync") {
    message.frames = (message.frames as unknown as unknown[][]).map(frameBody);
  }
  return message;
}
