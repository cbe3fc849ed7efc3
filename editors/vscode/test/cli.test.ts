// Unit tests of the pure modules, with node:test (run on the compiled JavaScript).

import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { errorText, parseSearch, parseStatus, searchArgs, serveArgs, statusText } from "../src/cli";

test("serve and search arguments keep the query one argument", () => {
  assert.deepEqual(serveArgs("/work/app", ["--link", "../lib"]), ["serve", "--project", "/work/app", "--link", "../lib"]);
  const args = searchArgs("pay; rm -rf / $(x)", "/work/app", 5);
  assert.equal(args[1], "pay; rm -rf / $(x)");
  assert.deepEqual(args.slice(2), ["--limit", "5", "--json", "--project", "/work/app"]);
});

test("search JSON becomes hits, and an error reply becomes an Error", () => {
  const out = JSON.stringify({
    mode: "hybrid",
    results: [{ file: "shop/db.py", start_line: 11, end_line: 15, score: 0.9, symbol: "fetch_user", snippet: "\n  def fetch_user(uid):\n" }],
  });
  const [hit] = parseSearch(out);
  assert.deepEqual(hit, { file: "shop/db.py", line: 11, endLine: 15, symbol: "fetch_user", score: 0.9, preview: "def fetch_user(uid):" });
  assert.throws(() => parseSearch(JSON.stringify({ error: "not indexed yet" })), /not indexed yet/);
});

test("status JSON becomes the status bar text", () => {
  const status = parseStatus(
    JSON.stringify({
      files: { indexed: 463 },
      graph: { symbols: 9000, edges: 21000 },
      embedding: { embedded: "1200/4800 chunks (25%)" },
      writer: { role: "server", pid: 42 },
      resume_needed: false,
    }),
  );
  assert.equal(status.writer, "server (pid 42)");
  assert.equal(statusText(status), "$(sync~spin) repolens 463 files · 25% embedded");
  assert.equal(statusText({ ...status, interrupted: true }), "$(warning) repolens: interrupted");
  assert.equal(statusText({ ...status, writer: "" }), "$(check) repolens 463 files · 25% embedded");
});

test("error text prefers repolens's JSON message, else stderr's last line", () => {
  assert.equal(errorText('{"error": "no symbol named x"}', ""), "no symbol named x");
  assert.equal(errorText("", "Traceback\nOSError: boom\n"), "OSError: boom");
});

test("the manifest contributes the MCP provider, commands and settings it uses", () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8"));
  assert.deepEqual(manifest.contributes.mcpServerDefinitionProviders.map((p: { id: string }) => p.id), ["repolens.mcp"]);
  const commands = manifest.contributes.commands.map((c: { command: string }) => c.command);
  for (const id of ["repolens.index", "repolens.update", "repolens.stop", "repolens.search", "repolens.explorer"]) {
    assert.ok(commands.includes(id), id);
  }
  assert.ok(manifest.contributes.configuration.properties["repolens.command"]);
  const source = readFileSync(join(__dirname, "..", "..", "src", "extension.ts"), "utf8");
  assert.ok(source.includes('registerMcpServerDefinitionProvider("repolens.mcp"'));
  assert.ok(!/exec\(|shell:\s*true/.test(source), "commands run with an argument list, not a shell");
});
