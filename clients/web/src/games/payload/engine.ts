/**
 * Payload's run in the browser engine (src/engine/payload_engine.py in the Pyodide worker): each call
 * typed. The previews, the drops and the share text are computed there by rules/payload itself.
 */

import type { Engine } from "../../engine/engine";
import type { PayloadCall } from "../../engine/protocol";
import type { PayloadContent, PayloadMove, PayloadView, RunEvent, Shared, Streak } from "./types";

export interface StartOptions {
  difficulty: string;
  seed?: number;
  variant?: string;
  /** A UTC date key: the day's seed and variant (rules/payload/daily.py). */
  daily?: string;
  /** A board of the server's daily (GET /api/daily?ruleset=payload), played for the player: recorded as
   * the `payload` ruleset's one-seat match, so the run's replay file is what the server verifies. */
  server?: ServerBoard;
}

/** One board of the server's Payload daily, and whose run it is. */
export interface ServerBoard {
  day: string;
  ruleset: string;
  ruleset_version: number;
  /** The board's config (the ruleset's plain form), as the server dealt it. */
  config: Record<string, unknown>;
  seed: number;
  /** The player's guest id (the replay names it) and name (its seat). */
  player: string;
  name: string;
}

export class PayloadRun {
  constructor(private readonly engine: Engine) {}

  private call<T>(call: PayloadCall, arg?: unknown): Promise<T> {
    return this.engine.request({ op: "payload", call, ...(arg === undefined ? {} : { arg }) }) as Promise<T>;
  }

  content(): Promise<PayloadContent> {
    return this.call("content");
  }

  start(options: StartOptions): Promise<PayloadView> {
    return this.call("start", options);
  }

  move(move: PayloadMove): Promise<{ view: PayloadView; events: RunEvent[] }> {
    return this.call("move", move);
  }

  /** Each column's total with the selected offer on `cell` (the placement preview). */
  placement(cell: number): Promise<number[]> {
    return this.call("preview", { cell });
  }

  /** `count`: whether the run counts for the streak (a server's daily run: once it is verified). */
  share(date: string, streak: Streak | null, count = true): Promise<Shared> {
    return this.call("share", { date, streak, count });
  }

  /** A server's daily run over: its replay file as plain data (to msgpack-encode and submit). */
  replay(): Promise<unknown> {
    return this.call("replay");
  }
}
