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

  share(date: string, streak: Streak | null): Promise<Shared> {
    return this.call("share", { date, streak });
  }
}
