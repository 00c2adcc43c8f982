/**
 * The engine on the page's side: the worker (src/engine/worker.ts) started lazily, its requests as
 * promises. `Engine.supported()` is false without WebAssembly or workers: the client then plays from
 * the stream alone, as a thin client.
 */

import { decode } from "@msgpack/msgpack";
import type { EngineAnswers, EngineRequest, Envelope, Reply } from "./protocol";

type Op = EngineRequest["op"];
type Waiting = { resolve: (value: unknown) => void; reject: (error: Error) => void };

export class Engine {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  /** Resolved once Pyodide and the rules are loaded (its load time in ms and Python's version). */
  readonly ready: Promise<EngineAnswers["load"]>;
  loaded = false;
  failed: string | null = null;

  static supported(): boolean {
    return typeof WebAssembly === "object" && typeof Worker === "function";
  }

  constructor() {
    this.worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module", name: "floe-engine" });
    this.worker.onmessage = (event: MessageEvent<Reply>) => {
      const reply = event.data;
      const waiting = this.waiting.get(reply.id);
      if (waiting === undefined) return;
      this.waiting.delete(reply.id);
      if ("error" in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply.value);
    };
    this.worker.onerror = (event) => {
      this.failed = event.message || "the engine's worker failed";
      for (const waiting of this.waiting.values()) waiting.reject(new Error(this.failed));
      this.waiting.clear();
    };
    this.ready = this.request({ op: "load" });
    this.ready.then(
      () => { this.loaded = true; },
      (error: unknown) => { this.failed = String(error instanceof Error ? error.message : error); },
    );
  }

  /** One request, answered in order. */
  request<R extends EngineRequest>(request: R): Promise<EngineAnswers[R["op"] & Op]> {
    if (this.failed !== null) return Promise.reject(new Error(this.failed));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, ...request } as Envelope);
    });
  }

  stop(): void {
    this.worker.terminate();
    for (const waiting of this.waiting.values()) waiting.reject(new Error("the engine was stopped"));
    this.waiting.clear();
  }
}

let shared: Engine | null = null;

/** The page's one engine, started on first use (null where the browser cannot run it). */
export function browserEngine(): Engine | null {
  if (!Engine.supported()) return null;
  shared ??= new Engine();
  return shared;
}

/** What the browser tests and the bench reach of the engine (`window.__floeEngine`). */
export interface EngineHooks {
  /** Start the engine (if not yet) and wait for it: its load time and Python's version. */
  load(): Promise<EngineAnswers["load"]>;
  /** Verify a replay file's bytes in the browser engine (decoded here, as the page would). */
  verify(bytes: number[]): Promise<EngineAnswers["verify"]>;
}

declare global {
  interface Window {
    __floeEngine?: EngineHooks;
  }
}

/** Expose the engine's hooks (they start nothing until called). */
export function exposeEngine(): void {
  const need = (): Engine => {
    const engine = browserEngine();
    if (engine === null) throw new Error("this browser cannot run the engine (no WebAssembly or workers)");
    return engine;
  };
  window.__floeEngine = {
    load: () => need().ready,
    verify: async (bytes) => need().request({ op: "verify", replay: decode(new Uint8Array(bytes)) }),
  };
}
