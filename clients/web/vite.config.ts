/**
 * The build: the client into dist/ (the server serves it at `/`), and Swagger UI's two files from the
 * swagger-ui-dist package into dist/docs-assets/, so the API's /docs page needs no CDN.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { defineConfig, type Plugin } from "vite";

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

export default defineConfig({
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true },
  plugins: [docsAssets()],
  // A loaded machine may take seconds over a recorded stream: no test may fail on the machine's speed.
  test: { include: ["test/**/*.test.ts"], testTimeout: 120_000 },
});
