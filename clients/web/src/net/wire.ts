/**
 * The wire of protocol 5 (protocol/README.md): the messages a browser exchanges with floe, the frame
 * record's array form, and the ruleset's stream tables that turn numbers back into words.
 */

/** The protocol version this client speaks (protocol/version.py). */
export const PROTOCOL_VERSION = 5;
/** A `frame` record is an array whose first value is this code. */
export const FRAME_CODE = 0;

/** The ruleset's stream tables, as `joined.tables` carries them. */
export interface Tables {
  words: string[];
  events: [string, string[]][];
  word_fields: string[];
  enemy_fields: string[];
  summary: string[];
  records: Record<string, string[]>;
  keys: { player: number; enemy: number; block: number };
  notes: [string, string[]][];
  block_fields: string[];
  out: string[];
  pending: string[];
  gems: string[];
  cell_px: number;
}

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
  tables: Tables;
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

export type StreamMessage = FrameMessage | Keyframe | Resync | Rewind | Over;
export type ServerMessage = Welcome | Joined | Status | StreamMessage | Pong | InputLate | ErrorMessage | Rated;

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

/** A decoded event: its kind and its fields by name (words resolved, enemy numbers as numbers). */
export interface GameEvent {
  kind: string;
  seat?: number;
  [field: string]: unknown;
}

/** Reads a stream's numbers with its ruleset's tables. */
export class Vocabulary {
  readonly tables: Tables;
  private readonly wordFields: Set<string>;
  readonly summaryIndex: Record<string, number>;

  constructor(tables: Tables) {
    this.tables = tables;
    this.wordFields = new Set(tables.word_fields);
    this.summaryIndex = Object.fromEntries(tables.summary.map((name, index) => [name, index]));
  }

  /** The word a code stands for (a string that is not a word stays itself). */
  word(value: unknown): string {
    if (typeof value === "number") return this.tables.words[value] ?? `#${value}`;
    return String(value);
  }

  /** A word's code. */
  code(word: string): number {
    const index = this.tables.words.indexOf(word);
    if (index < 0) throw new Error(`no word ${word}`);
    return index;
  }

  /** An event array as a GameEvent. */
  event(values: unknown[]): GameEvent {
    const [kindCode, ...rest] = values as [number, ...unknown[]];
    const [kind, fields] = this.tables.events[kindCode] ?? [`#${kindCode}`, []];
    const event: GameEvent = { kind };
    fields.forEach((name, index) => {
      const value = rest[index];
      if (this.wordFields.has(name)) {
        event[name] = Array.isArray(value) ? value.map((item) => this.word(item)) : value === null ? null : this.word(value);
      } else {
        event[name] = value;
      }
    });
    return event;
  }
}
