// Bundle the explorer into the Python package: src/repolens/ui/static/build/ holds the
// page, its stylesheet and one script with Cytoscape.js and its layouts inside (no CDN).
import { build } from "esbuild";
import { copyFile, mkdir, rm } from "node:fs/promises";

const out = new URL("../src/repolens/ui/static/build/", import.meta.url);
await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await build({
  entryPoints: ["src/main.js"],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  outfile: new URL("app.js", out).pathname,
  legalComments: "linked",
  logLevel: "warning",
});
await copyFile(new URL("src/index.html", import.meta.url), new URL("index.html", out));
await copyFile(new URL("src/style.css", import.meta.url), new URL("style.css", out));
console.log("built", out.pathname);
