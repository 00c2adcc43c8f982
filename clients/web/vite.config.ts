/**
 * The build: the client into dist/ (the server serves it at `/`); Swagger UI's two files from the
 * swagger-ui-dist package into dist/docs-assets/, so the API's /docs page needs no CDN; and the
 * engine into dist/engine/ (the server serves it at /engine/): Pyodide's runtime from the pyodide
 * package in the lock (its loader, the wasm, the asm module, the standard library's zip, the lock
 * file), `rules.json` (floe's own pure `rules/` package, every .py file by path, and the engine's
 * Python side src/engine/floe_engine.py), and the worker itself.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { defineConfig, type Plugin } from "vite";

/** Pyodide's files the engine loads (nothing else of the package is served). */
export const PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"];

function docsAssets(): Plugin {
  return {
    name: "floe-docs-assets",
    apply: "build",
    closeBundle() {
      const from = join(__dirname, "node_modules", "swagger-ui-dist");
      const to = join(__dirname, "dist", "docs-assets");
      mkdirSync(to, { recursive: true });
      for (const file of ["swagger-ui-bundle.js", "swagger-ui.css"]) copyFileSync(join(from, file), join(to, file));
    },
  };
}

/** Every .py file under `root` (no caches), by its path relative to `base`. */
function pythonFiles(root: string, base: string, into: Record<string, string>): void {
  for (const name of readdirSync(root).sort()) {
    const path = join(root, name);
    if (statSync(path).isDirectory()) {
      if (name !== "__pycache__") pythonFiles(path, base, into);
    } else if (name.endsWith(".py")) {
      into[relative(base, path).split("\\").join("/")] = readFileSync(path, "utf8");
    }
  }
}

function engineFiles(): Plugin {
  return {
    name: "floe-engine",
    apply: "build",
    closeBundle() {
      const from = join(__dirname, "node_modules", "pyodide");
      const to = join(__dirname, "dist", "engine");
      mkdirSync(to, { recursive: true });
      for (const file of PYODIDE_FILES) copyFileSync(join(from, file), join(to, file));
      const repo = join(__dirname, "..", "..");
      const files: Record<string, string> = {};
      pythonFiles(join(repo, "rules"), repo, files);
      files["floe_engine.py"] = readFileSync(join(__dirname, "src", "engine", "floe_engine.py"), "utf8");
      // Payload's run in the engine (games/payload): beside floe_engine.py, imported on its first call
      files["payload_engine.py"] = readFileSync(join(__dirname, "src", "engine", "payload_engine.py"), "utf8");
      writeFileSync(join(to, "rules.json"), JSON.stringify(files));
    },
  };
}

export default defineConfig({
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true },
  worker: { format: "es", rollupOptions: { output: { entryFileNames: "engine/[name]-[hash].js" } } },
  plugins: [docsAssets(), engineFiles()],
  // A loaded machine may take seconds over a recorded stream: no test may fail on the machine's speed.
  test: { include: ["test/**/*.test.ts"], testTimeout: 120_000 },
});
