/**
 * One match's protocol, sans-I/O, as protocol/client.py: the bytes to send, and what arrives turned
 * into events; the caller owns the socket and passes the time (`now`, milliseconds on any monotonic
 * clock) to every call, so the session reads no clock and sets no timer (net/transport.ts does both).
 *
 * On each connection: `opened(now)` gives hello, join or watch (with `since` = the last stream number
 * on a reconnect, so the stream resumes) and the first ping; `ping(now)` every `PING_EVERY_MS`. The
 * clock (net/clock.ts) turns pongs and frame records into an estimate of the server's frame; inputs
 * are stamped ahead of it by the clock's lead (the measured one-way delay, its jitter and a frame of
 * margin; at least `input_delay` frames) and sent in runs of `input_batch` frames, a change at
 * once (the game says which bits of its input byte hold; the others, a kick, count on one frame); an `input-late` moves the next stamp past the frame the server applied. A connection that
 * closes before the match is over is reopened after 0.5, 1, 2, 4 s, then every 4 s, for as long as
 * the server's grace period (30 s); `closed(now)` says which.
 */

import { decodeMulti, encode } from "@msgpack/msgpack";
import { ServerClock } from "./clock";
import {
  type Joined, PROTOCOL_VERSION, type Rated, type RematchMessage, type Status, type StreamMessage, type Welcome, toMessage,
} from "./wire";

/** Milliseconds between clock-sync pings. */
export const PING_EVERY_MS = 250;
/** The longest run an `input` message carries: the server's bound. */
import { MAX_INPUT_RUN } from "../generated/protocol";
export { MAX_INPUT_RUN };
/** Reconnect waits, milliseconds (the last repeats), and how long to keep trying. */
export const RECONNECT_WAITS_MS = [500, 1000, 2000, 4000];
export const RECONNECT_FOR_MS = 30_000;
/** The `client` field of hello. */
export const CLIENT_NAME = "web-0.3";
/** Frames of the seat's own stamped bytes kept for the prediction. */
export const OWN_KEPT = 600;

export type Role = "player" | "spectator";

/** What a received message or a closed connection means to the page. */
export type SessionEvent =
  | { kind: "joined"; joined: Joined }
  | { kind: "stream"; message: StreamMessage }
  | { kind: "status"; status: Status }
  | { kind: "rated"; rated: Rated }
  /** A rematch offer of this match, its refusal, or the rematch made. */
  | { kind: "rematch"; message: RematchMessage }
  | { kind: "error"; code: string; message: string; fatal: boolean }
  /** The connection dropped (true) or the match was joined again after a drop (false). */
  | { kind: "connection"; dropped: boolean };

/** After a connection closed: reopen it after `reconnectInMs`, or not (null), and what to tell the page. */
export interface CloseDecision {
  reconnectInMs: number | null;
  events: SessionEvent[];
}

/** An input's outcome: whether a frame was due (false: the caller keeps a kick for the next call),
 * and the messages to send. */
export interface InputOutcome {
  stamped: boolean;
  send: Uint8Array[];
}

export class Session {
  welcome: Welcome | null = null;
  joined: Joined | null = null;
  lastN = 0;
  over = false;
  bytesReceived = 0;
  readonly clock = new ServerClock();
  private nextStamp = 0;
  /** `input-late` replies so far (inputs the server applied later than stamped). */
  late = 0;
  /** Runs stamped from this frame on were sent after the last shift learned from `input-late`. */
  private lateGuard = 0;
  /** The first frame the last `input` stamped (−1 before one): where a changed byte lands. */
  lastStamped = -1;
  /** The seat's own bytes by the frame they were stamped for (the newest `OWN_KEPT` frames): the
   * browser engine's prediction plays them (net/predict.ts). */
  readonly own = new Map<number, number>();
  private runStart = 0;
  private run: number[] = [];
  private lastByte: number | null = null;
  private droppedAt: number | null = null;
  private attempts = 0;
  /** The browser engine runs a replica of this match: each `join` asks that resyncs carry the match's
   * state, to rebuild the replica from (net/predict.ts sets it once the engine is ready). */
  replica = false;

  constructor(
    private readonly token: string | null,
    readonly match: string,
    readonly role: Role,
  ) {}

  /** A connection opened: hello, join or watch (resuming after the last stream number seen), a ping. */
  opened(now: number): Uint8Array[] {
    const since = this.joined === null ? null : this.lastN;
    return [
      encode({ kind: "hello", version: PROTOCOL_VERSION, token: this.token, client: CLIENT_NAME }),
      encode(this.role === "player"
        ? { kind: "join", match: this.match, since, replica: this.replica }
        : { kind: "watch", match: this.match, since }),
      this.ping(now),
    ];
  }

  /** A clock-sync ping. */
  ping(now: number): Uint8Array {
    return encode({ kind: "ping", ...this.clock.ping(now) });
  }

  leave(): Uint8Array {
    return encode({ kind: "leave" });
  }

  /** The browser engine's replica disagreed with the keyframe of `frame` (protocol/README.md `desync`). */
  desync(frame: number): Uint8Array {
    return encode({ kind: "desync", frame });
  }

  /** Offer a rematch of this (ended) match. */
  rematch(): Uint8Array {
    return encode({ kind: "rematch", match: this.match });
  }

  /** Accept or decline the other player's rematch offer. */
  rematchAnswer(accept: boolean): Uint8Array {
    return encode({ kind: "rematch-answer", match: this.match, accept });
  }

  /** The connection closed. `byUs`: the page closed it (leaving): nothing follows. */
  closed(now: number, byUs: boolean): CloseDecision {
    if (byUs || this.over) return { reconnectInMs: null, events: [] };
    const events: SessionEvent[] = [];
    if (this.droppedAt === null) {
      this.droppedAt = now;
      events.push({ kind: "connection", dropped: true });
    }
    if (now - this.droppedAt > RECONNECT_FOR_MS) {
      events.push({ kind: "error", code: "disconnected", message: "the connection could not be restored", fatal: true });
      return { reconnectInMs: null, events };
    }
    const wait = RECONNECT_WAITS_MS[Math.min(this.attempts, RECONNECT_WAITS_MS.length - 1)]!;
    this.attempts += 1;
    return { reconnectInMs: wait, events };
  }

  /** One binary websocket message from the server: its messages, applied, as events. */
  receive(data: Uint8Array, now: number): SessionEvent[] {
    this.bytesReceived += data.byteLength;
    const events: SessionEvent[] = [];
    for (const value of decodeMulti(data)) {
      const message = toMessage(value);
      switch (message.kind) {
        case "welcome":
          this.welcome = message;
          this.clock.setFrameRate(message.frame_rate);
          break;
        case "joined":
          if (this.droppedAt !== null) {
            this.droppedAt = null;
            this.attempts = 0;
            events.push({ kind: "connection", dropped: false });
          }
          if (this.joined === null) {
            this.joined = message;
            events.push({ kind: "joined", joined: message });
          }
          break;
        case "frame":
          this.lastN = message.n;
          this.clock.frameRecord(message.frame, now);
          events.push({ kind: "stream", message });
          break;
        case "resync": {
          this.lastN = message.n;
          const last = message.frames[message.frames.length - 1];
          if (last !== undefined) this.clock.resynced(last.frame, now);
          events.push({ kind: "stream", message });
          break;
        }
        case "keyframe":
        case "rewind":
          this.lastN = message.n;
          events.push({ kind: "stream", message });
          break;
        case "over":
          this.lastN = message.n;
          this.over = true;
          events.push({ kind: "stream", message });
          break;
        case "pong":
          this.clock.pong(message, now);
          break;
        case "status":
          events.push({ kind: "status", status: message });
          break;
        case "input-late": {
          this.late += 1;
          // Once a byte is late the server puts the rest of the seat's bytes on consecutive frames after
          // it (a seat's frames only move forward), so this run and every run sent after it land
          // `shift` frames later than stamped, each answered late. Stamping on from where they land
          // (once: the answers to runs sent before this jump say the same shift) ends the cascade; a
          // later run answered late again is a new shift.
          const shift = message.applied - message.frame;
          if (message.frame >= this.lateGuard && shift > 0) {
            this.nextStamp += shift;
            this.lateGuard = this.nextStamp;
          }
          this.nextStamp = Math.max(this.nextStamp, message.applied + 1);
          break;
        }
        case "error":
          events.push({ kind: "error", code: message.code, message: message.message, fatal: message.fatal });
          break;
        case "rated":
          events.push({ kind: "rated", rated: message });
          break;
        case "rematch-offer":
        case "rematch-refused":
        case "rematch-ready":
          events.push({ kind: "rematch", message });
          break;
      }
    }
    return events;
  }

  /** The next frame an input will be stamped for (every frame before it has the seat's byte). */
  get stampedUntil(): number {
    return this.nextStamp;
  }

  /** The estimated frame the server is on at `now` (null until a pong or a frame arrived). */
  serverFrame(now: number): number | null {
    return this.welcome === null ? null : this.clock.serverFrame(now);
  }

  /** Hold `value` (the seat's input byte) from the next frame to stamp on; what is due to send.
   * `heldMask`: the bits that hold on the frames after the first (the others are one press). */
  input(value: number, now: number, heldMask: number): InputOutcome {
    const welcome = this.welcome;
    const estimate = this.serverFrame(now);
    const none: InputOutcome = { stamped: false, send: [] };
    if (welcome === null || estimate === null || this.role !== "player" || this.over) return none;
    const target = Math.floor(estimate) + Math.max(welcome.input_delay, this.clock.lead() ?? 0);
    if (target < this.nextStamp) return none;
    const first = this.lastByte === null ? target : Math.max(this.nextStamp, Math.floor(estimate) + 1);
    if (first > target) return none;
    const send: Uint8Array[] = [];
    if (this.run.length > 0 && first !== this.runStart + this.run.length) send.push(...this.flush());
    const kept = value & heldMask;
    const changed = this.lastByte === null || value !== kept || kept !== (this.lastByte & heldMask);
    if (this.run.length === 0) this.runStart = first;
    this.run.push(value);
    this.own.set(first, value);
    this.lastStamped = first;
    for (let frame = first; frame < target; frame += 1) {
      this.run.push(kept);
      this.own.set(frame + 1, kept);
    }
    if (this.own.size > OWN_KEPT) for (const frame of [...this.own.keys()]) if (frame < target - OWN_KEPT) this.own.delete(frame);
    this.lastByte = this.run[this.run.length - 1]!;
    this.nextStamp = target + 1;
    if (changed || this.run.length >= welcome.input_batch) send.push(...this.flush());
    return { stamped: true, send };
  }

  /** The held run as `input` messages of at most `MAX_INPUT_RUN` frames. */
  private flush(): Uint8Array[] {
    const messages: Uint8Array[] = [];
    while (this.run.length > 0) {
      const run = this.run.splice(0, MAX_INPUT_RUN);
      messages.push(encode({ kind: "input", frame: this.runStart, inputs: run }));
      this.runStart += run.length;
    }
    return messages;
  }
}
