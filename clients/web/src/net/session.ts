/**
 * One connection's protocol, in the browser: hello, join or watch, the clock, inputs, reconnects.
 *
 * It follows protocol/client.py: pings every quarter second estimate the server's frame (the sample
 * with the smallest round trip wins; frame records bound it from below); inputs are stamped
 * `input_delay` frames ahead of that estimate and sent in runs of `input_batch` frames, a change at
 * once. A socket that drops without the match being over is reopened (waits of 0.5, 1, 2, 4 s, then
 * every 4 s, for as long as the server's grace period, 30 s) and the stream resumes with `since`.
 */

import { decodeMulti, encode } from "@msgpack/msgpack";
import {
  type Joined, PROTOCOL_VERSION, type Rated, type ServerMessage, type StreamMessage, type Welcome, toMessage,
} from "./wire";

/** Seconds between clock-sync pings. */
export const PING_EVERY_MS = 250;
/** Clock samples kept. */
const CLOCK_SAMPLES = 8;
/** The longest run an `input` message carries. */
const MAX_INPUT_RUN = 16;
/** Reconnect waits, milliseconds (the last repeats), and how long to keep trying. */
const RECONNECT_WAITS_MS = [500, 1000, 2000, 4000];
const RECONNECT_FOR_MS = 30_000;

export interface SessionHandlers {
  onJoined(joined: Joined): void;
  onStream(message: StreamMessage): void;
  onStatus?(message: ServerMessage): void;
  onRated?(message: Rated): void;
  onError?(code: string, message: string, fatal: boolean): void;
  /** The socket dropped (true) or is back (false). */
  onConnection?(dropped: boolean): void;
}

export type Role = "player" | "spectator";

export class Session {
  welcome: Welcome | null = null;
  joined: Joined | null = null;
  lastN = 0;
  over = false;
  private socket: WebSocket | null = null;
  private pingTimer: number | undefined;
  private pings = new Map<number, number>();
  private nextPing = 1;
  private samples: [number, number][] = [];
  private latest: [number, number] | null = null;
  private nextStamp = 0;
  private runStart = 0;
  private run: number[] = [];
  private lastByte: number | null = null;
  private droppedAt: number | null = null;
  private attempts = 0;
  private closedByUs = false;
  bytesReceived = 0;

  constructor(
    private readonly url: string,
    private readonly token: string | null,
    readonly match: string,
    readonly role: Role,
    private readonly handlers: SessionHandlers,
  ) {}

  open(): void {
    this.closedByUs = false;
    const socket = new WebSocket(this.url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => {
      this.send({ kind: "hello", version: PROTOCOL_VERSION, token: this.token, client: "web-0.3" });
      const since = this.joined === null ? null : this.lastN;
      this.send({ kind: this.role === "player" ? "join" : "watch", match: this.match, since });
      this.pingTimer = window.setInterval(() => this.ping(), PING_EVERY_MS);
      this.ping();
    };
    socket.onmessage = (event) => this.receive(new Uint8Array(event.data as ArrayBuffer));
    socket.onclose = () => this.closed();
  }

  close(): void {
    this.closedByUs = true;
    window.clearInterval(this.pingTimer);
    this.socket?.close();
  }

  /** Drop the socket as a network failure would (the session reconnects and resumes; tests use it). */
  drop(): void {
    this.socket?.close();
  }

  leave(): void {
    this.send({ kind: "leave" });
  }

  private closed(): void {
    window.clearInterval(this.pingTimer);
    this.socket = null;
    if (this.closedByUs || this.over) return;
    const now = performance.now();
    if (this.droppedAt === null) {
      this.droppedAt = now;
      this.handlers.onConnection?.(true);
    }
    if (now - this.droppedAt > RECONNECT_FOR_MS) {
      this.handlers.onError?.("disconnected", "the connection could not be restored", true);
      return;
    }
    const wait = RECONNECT_WAITS_MS[Math.min(this.attempts, RECONNECT_WAITS_MS.length - 1)]!;
    this.attempts += 1;
    window.setTimeout(() => this.open(), wait);
  }

  private send(message: Record<string, unknown>): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(encode(message));
  }

  private ping(): void {
    const id = this.nextPing++;
    const now = performance.now();
    this.pings.set(id, now);
    if (this.pings.size > 4 * CLOCK_SAMPLES) this.pings.delete(Math.min(...this.pings.keys()));
    this.send({ kind: "ping", id, t: Math.floor(now) & 0x7fffffff });
  }

  private receive(data: Uint8Array): void {
    this.bytesReceived += data.byteLength;
    const now = performance.now();
    for (const value of decodeMulti(data)) {
      const message = toMessage(value);
      switch (message.kind) {
        case "welcome":
          this.welcome = message;
          break;
        case "joined":
          if (this.droppedAt !== null) {
            this.droppedAt = null;
            this.attempts = 0;
            this.handlers.onConnection?.(false);
          }
          if (this.joined === null) {
            this.joined = message;
            this.handlers.onJoined(message);
          }
          break;
        case "frame":
          this.lastN = message.n;
          if (this.latest === null || message.frame >= this.latest[0]) this.latest = [message.frame, now];
          this.handlers.onStream(message);
          break;
        case "resync":
          this.lastN = message.n;
          {
            const last = message.frames[message.frames.length - 1];
            if (last !== undefined) this.latest = [last.frame, now];
          }
          this.handlers.onStream(message);
          break;
        case "keyframe":
        case "rewind":
          this.lastN = message.n;
          this.handlers.onStream(message);
          break;
        case "over":
          this.lastN = message.n;
          this.over = true;
          this.handlers.onStream(message);
          break;
        case "pong": {
          const sent = this.pings.get(message.id);
          this.pings.delete(message.id);
          if (sent !== undefined && message.frame >= 0 && this.welcome !== null) {
            const rtt = Math.max(0, now - sent);
            const rate = this.welcome.frame_rate / 1000;
            this.samples.push([rtt, message.frame + (rtt / 2) * rate - now * rate]);
            if (this.samples.length > CLOCK_SAMPLES) this.samples.shift();
          }
          break;
        }
        case "status":
          this.handlers.onStatus?.(message);
          break;
        case "input-late":
          this.nextStamp = Math.max(this.nextStamp, message.applied + 1);
          break;
        case "error":
          this.handlers.onError?.(message.code, message.message, message.fatal);
          break;
        case "rated":
          this.handlers.onRated?.(message);
          break;
      }
    }
  }

  /** The estimated frame the server is on now (null until a pong or a frame arrived). */
  serverFrame(now: number = performance.now()): number | null {
    if (this.welcome === null) return null;
    const rate = this.welcome.frame_rate / 1000;
    let best: number | null = null;
    if (this.samples.length > 0) {
      const [, offset] = this.samples.reduce((a, b) => (b[0] < a[0] ? b : a));
      best = offset + now * rate;
    }
    if (this.latest !== null) {
      const floor = this.latest[0] + 1 + (now - this.latest[1]) * rate;
      best = best === null ? floor : Math.max(best, floor);
    }
    return best;
  }

  /** Hold `value` (the seat's input byte) from the next frame to stamp on; sends what is due. False when
   * no frame was due yet (the caller keeps a kick for the next call). */
  input(value: number, now: number = performance.now()): boolean {
    const welcome = this.welcome;
    const estimate = this.serverFrame(now);
    if (welcome === null || estimate === null || this.role !== "player" || this.over) return false;
    const target = Math.floor(estimate) + welcome.input_delay;
    if (target < this.nextStamp) return false;
    const first = this.lastByte === null ? target : Math.max(this.nextStamp, Math.floor(estimate) + 1);
    if (first > target) return false;
    if (this.run.length > 0 && first !== this.runStart + this.run.length) this.flush();
    const kept = value & 0x07;
    const changed = this.lastByte === null || value !== kept || kept !== (this.lastByte & 0x07);
    if (this.run.length === 0) this.runStart = first;
    this.run.push(value);
    for (let frame = first; frame < target; frame += 1) this.run.push(kept);
    this.lastByte = this.run[this.run.length - 1]!;
    this.nextStamp = target + 1;
    if (changed || this.run.length >= welcome.input_batch) this.flush();
    return true;
  }

  private flush(): void {
    while (this.run.length > 0) {
      const run = this.run.splice(0, MAX_INPUT_RUN);
      this.send({ kind: "input", frame: this.runStart, inputs: run });
      this.runStart += run.length;
    }
  }
}
