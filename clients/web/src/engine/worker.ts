/**
 * The engine's Web Worker: Pyodide (CPython on WebAssembly, the npm package's files served by floe at
 * /engine/, never a CDN) with floe's own pure `rules/` package and src/engine/floe_engine.py, loaded
 * on the first request. Each request is answered in order (see protocol.ts); only pure rules run here.
 */

import type { PyodideAPI } from "pyodide";
import { ENGINE_PATH, type Envelope, type Reply } from "./protocol";

type Replica = {
  keyframe(frame: number, checksum: string): void;
  restore(state: string): void;
  advance(seat: number, rows: string, own: string, target: number, fresh: boolean): string;
  destroy?(): void;
};

type Practice = {
  view(): string;
  step(inputs: string): string;
  finish(): string;
  destroy?(): void;
};

let practice: Practice | null = null;
let engine: Promise<PyodideAPI> | null = null;
let replica: Replica | null = null;
let loadMs = 0;
/** Of which: writing the rules' files and importing them. */
let importMs = 0;

async function load(): Promise<PyodideAPI> {
  const started = performance.now();
  const base = new URL(ENGINE_PATH, self.location.origin).href;
  const module = (await import(/* @vite-ignore */ `${base}pyodide.mjs`)) as { loadPyodide: typeof import("pyodide").loadPyodide };
  const [pyodide, files] = await Promise.all([
    module.loadPyodide({ indexURL: base, packages: [], stdout: () => undefined, stderr: () => undefined }),
    fetch(`${base}rules.json`).then(async (answer) => {
      if (!answer.ok) throw new Error(`${base}rules.json: HTTP ${answer.status}`);
      return (await answer.json()) as Record<string, string>;
    }),
  ]);
  const pythonReady = performance.now();
  for (const [path, source] of Object.entries(files)) {
    const folder = `/floe/${path}`.split("/").slice(0, -1).join("/");
    pyodide.FS.mkdirTree(folder);
    pyodide.FS.writeFile(`/floe/${path}`, source);
  }
  pyodide.runPython("import sys\nsys.path.insert(0, '/floe')\nimport floe_engine");
  loadMs = performance.now() - started;
  importMs = performance.now() - pythonReady;
  return pyodide;
}

function python(): Promise<PyodideAPI> {
  engine ??= load();
  return engine;
}

async function answer(request: Envelope): Promise<unknown> {
  const pyodide = await python();
  const floe = pyodide.pyimport("floe_engine");
  switch (request.op) {
    case "load":
      return { ms: loadMs, importMs, python: pyodide.runPython("import sys; sys.version") as string };
    case "verify": {
      const started = performance.now();
      const verdict = JSON.parse(floe.verify_replay(JSON.stringify(request.replay)) as string) as object;
      return { ...verdict, ms: performance.now() - started };
    }
    case "create":
      replica?.destroy?.();
      replica = floe.Replica(request.ruleset, request.version, JSON.stringify(request.config), request.seed,
        JSON.stringify(request.seats)) as Replica;
      return null;
    case "keyframe":
      needReplica().keyframe(request.frame, request.checksum);
      return null;
    case "restore":
      needReplica().restore(JSON.stringify(request.state));
      return null;
    case "advance": {
      const started = performance.now();
      const advanced = JSON.parse(needReplica().advance(request.seat, JSON.stringify(request.rows),
        JSON.stringify(request.own), request.target, request.fresh)) as object;
      return { ...advanced, ms: performance.now() - started };
    }
    case "payload": {
      // Payload's run (payload_engine.py, imported on its first call): one call of that module
      const payload = pyodide.pyimport("payload_engine");
      const call = payload[request.call] as (text?: string) => string;
      return JSON.parse(request.arg === undefined ? call() : call(JSON.stringify(request.arg)));
    }
    case "replay": {
      const started = performance.now();
      const played = JSON.parse(floe.replay_stream(JSON.stringify(request.replay)) as string) as object;
      return { ...played, ms: performance.now() - started };
    }
    case "practice":
      practice?.destroy?.();
      practice = null;
      practice = floe.Practice(request.ruleset, request.version, JSON.stringify(request.config), request.seed,
        JSON.stringify(request.seats), request.seat, request.bot, request.start === null ? "" : JSON.stringify(request.start), request.frame,
        request.player) as Practice;
      return JSON.parse(practice.view());
    case "step":
      return JSON.parse(needPractice().step(JSON.stringify(request.inputs)));
    case "finish":
      return JSON.parse(needPractice().finish());
  }
}

function needReplica(): Replica {
  if (replica === null) throw new Error("no replica: create one first");
  return replica;
}

function needPractice(): Practice {
  if (practice === null) throw new Error("no practice board: start one first");
  return practice;
}

let queue: Promise<void> = Promise.resolve();

self.onmessage = (event: MessageEvent<Envelope>) => {
  const request = event.data;
  queue = queue.then(async () => {
    let reply: Reply;
    try {
      reply = { id: request.id, value: await answer(request) };
    } catch (error) {
      reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
    self.postMessage(reply);
  });
};
