// What the extension asks of the repolens command line and how it reads the answers.
// Pure functions (no vscode import), so they are unit-tested with node:test.

export interface SearchHit {
  file: string;
  line: number;
  endLine: number;
  symbol: string;
  score: number;
  preview: string;
}

export interface IndexStatus {
  files: number;
  symbols: number;
  edges: number;
  embedded: string; // "1200/4800 chunks (25%)", as repolens says it
  writer: string; // "" when nobody writes
  interrupted: boolean;
}

/** Arguments of `repolens serve` for one workspace folder: always its own project. */
export function serveArgs(root: string, extra: readonly string[] = []): string[] {
  return ["serve", "--project", root, ...extra];
}

/** Arguments of a JSON search; the query is one argument, never parsed by a shell. */
export function searchArgs(query: string, root: string, limit = 20): string[] {
  return ["search", query, "--limit", String(limit), "--json", "--project", root];
}

export function statusArgs(root: string): string[] {
  return ["status", "--json", "--project", root];
}

/** The hits of `repolens search --json`, or an Error carrying repolens's own message. */
export function parseSearch(stdout: string): SearchHit[] {
  const data = JSON.parse(stdout) as { error?: string; results?: Array<Record<string, unknown>> };
  if (data.error) {
    throw new Error(data.error);
  }
  return (data.results ?? []).map((r) => ({
    file: String(r.file),
    line: Number(r.start_line),
    endLine: Number(r.end_line),
    symbol: typeof r.symbol === "string" ? r.symbol : "",
    score: Number(r.score),
    preview: firstLine(String(r.snippet ?? "")),
  }));
}

function firstLine(snippet: string): string {
  const line = snippet.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.trim().slice(0, 120);
}

/** `repolens status --json`, reduced to what the status bar and sidebar show. */
export function parseStatus(stdout: string): IndexStatus {
  const data = JSON.parse(stdout) as Record<string, any>;
  if (data.error) {
    throw new Error(String(data.error));
  }
  const writer = data.writer ? `${data.writer.role} (pid ${data.writer.pid})` : "";
  return {
    files: Number(data.files?.indexed ?? 0),
    symbols: Number(data.graph?.symbols ?? 0),
    edges: Number(data.graph?.edges ?? 0),
    embedded: String(data.embedding?.embedded ?? "embeddings off"),
    writer,
    interrupted: Boolean(data.resume_needed),
  };
}

/** The status bar's short text: freshness first, then embedding progress. */
export function statusText(status: IndexStatus): string {
  if (status.interrupted) {
    return "$(warning) repolens: interrupted";
  }
  const share = /\((\d+)%\)/.exec(status.embedded);
  const semantic = share ? ` · ${share[1]}% embedded` : "";
  const busy = status.writer ? "$(sync~spin) " : "$(check) ";
  return `${busy}repolens ${status.files} files${semantic}`;
}

/** The error text of a failed command: repolens's JSON error when it printed one. */
export function errorText(stdout: string, stderr: string): string {
  try {
    const data = JSON.parse(stdout) as { error?: string };
    if (data.error) {
      return data.error;
    }
  } catch {
    // not JSON: fall through to stderr
  }
  return stderr.trim().split("\n").slice(-1)[0] || "repolens failed";
}
