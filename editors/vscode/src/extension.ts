// The repolens extension: registers the MCP server for each workspace folder, shows the
// index's freshness, and runs the CLI (always with an argument list, never a shell string).

import { execFile } from "node:child_process";
import * as vscode from "vscode";
import { errorText, IndexStatus, parseSearch, parseStatus, searchArgs, serveArgs, statusArgs, statusText } from "./cli";

function settings(): { command: string; serveArgs: string[]; interval: number } {
  const config = vscode.workspace.getConfiguration("repolens");
  return {
    command: config.get<string>("command", "repolens"),
    serveArgs: config.get<string[]>("serveArgs", []),
    interval: Math.max(2, config.get<number>("statusInterval", 15)),
  };
}

function run(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(settings().command, args, { cwd, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && !stdout) {
        reject(new Error(errorText(stdout, stderr) || error.message));
      } else if (error) {
        reject(new Error(errorText(stdout, stderr)));
      } else {
        resolve(stdout);
      }
    });
  });
}

function root(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

class StatusTree implements vscode.TreeDataProvider<vscode.TreeItem> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  status: IndexStatus | undefined;
  problem = "";

  update(status: IndexStatus | undefined, problem = ""): void {
    this.status = status;
    this.problem = problem;
    this.changed.fire();
  }

  getTreeItem(item: vscode.TreeItem): vscode.TreeItem {
    return item;
  }

  getChildren(): vscode.TreeItem[] {
    if (this.problem) {
      return [new vscode.TreeItem(this.problem)];
    }
    const s = this.status;
    if (!s) {
      return [new vscode.TreeItem("Not indexed yet: run “repolens: Index the workspace”")];
    }
    const rows = [
      `Files: ${s.files}`,
      `Graph: ${s.symbols} symbols, ${s.edges} edges`,
      `Embedded: ${s.embedded}`,
      `Writer: ${s.writer || "none"}`,
    ];
    if (s.interrupted) {
      rows.unshift("Interrupted: run “repolens: Update the index” to resume");
    }
    return rows.map((label) => new vscode.TreeItem(label));
  }
}

export function activate(context: vscode.ExtensionContext): void {
  const changedServers = new vscode.EventEmitter<void>();
  context.subscriptions.push(
    vscode.lm.registerMcpServerDefinitionProvider("repolens.mcp", {
      onDidChangeMcpServerDefinitions: changedServers.event,
      provideMcpServerDefinitions: () =>
        (vscode.workspace.workspaceFolders ?? []).map(
          (folder) =>
            new vscode.McpStdioServerDefinition(
              `repolens: ${folder.name}`,
              settings().command,
              serveArgs(folder.uri.fsPath, settings().serveArgs),
            ),
        ),
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => changedServers.fire()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("repolens")) {
        changedServers.fire();
      }
    }),
  );

  const tree = new StatusTree();
  const bar = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  bar.command = "repolens.search";
  bar.tooltip = "repolens: search code";
  context.subscriptions.push(vscode.window.registerTreeDataProvider("repolens.status", tree), bar);

  const refresh = async (): Promise<void> => {
    const folder = root();
    if (!folder) {
      return;
    }
    try {
      const status = parseStatus(await run(statusArgs(folder), folder));
      tree.update(status);
      bar.text = statusText(status);
    } catch (error) {
      tree.update(undefined, String((error as Error).message));
      bar.text = "$(circle-slash) repolens";
    }
    bar.show();
  };

  const cli = (args: (folder: string) => string[], done: string) => async (): Promise<void> => {
    const folder = root();
    if (!folder) {
      void vscode.window.showWarningMessage("repolens: open a folder first");
      return;
    }
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `repolens ${args(folder)[0]}` },
        () => run(args(folder), folder),
      );
      void vscode.window.showInformationMessage(done);
    } catch (error) {
      void vscode.window.showErrorMessage(`repolens: ${(error as Error).message}`);
    }
    await refresh();
  };

  context.subscriptions.push(
    vscode.commands.registerCommand("repolens.index", cli((f) => ["index", f], "repolens: indexed")),
    vscode.commands.registerCommand("repolens.update", cli((f) => ["update", f], "repolens: up to date")),
    vscode.commands.registerCommand("repolens.stop", cli((f) => ["stop", "--project", f], "repolens: stopped")),
    vscode.commands.registerCommand("repolens.refresh", refresh),
    vscode.commands.registerCommand("repolens.search", () => search()),
    vscode.commands.registerCommand("repolens.explorer", () => explorer(context)),
  );
  const timer = setInterval(() => void refresh(), settings().interval * 1000);
  context.subscriptions.push({ dispose: () => clearInterval(timer) });
  void refresh();
}

async function search(): Promise<void> {
  const folder = root();
  const query = folder && (await vscode.window.showInputBox({ prompt: "repolens: search code by meaning or name" }));
  if (!folder || !query) {
    return;
  }
  let hits;
  try {
    hits = parseSearch(await run(searchArgs(query, folder), folder));
  } catch (error) {
    void vscode.window.showErrorMessage(`repolens: ${(error as Error).message}`);
    return;
  }
  const picked = await vscode.window.showQuickPick(
    hits.map((hit) => ({
      label: hit.symbol || hit.file,
      description: `${hit.file}:${hit.line}`,
      detail: hit.preview,
      hit,
    })),
    { placeHolder: hits.length ? `${hits.length} results for “${query}”` : "no results", matchOnDescription: true },
  );
  if (picked) {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(`${folder}/${picked.hit.file}`));
    const line = new vscode.Position(Math.max(0, picked.hit.line - 1), 0);
    await vscode.window.showTextDocument(document, { selection: new vscode.Range(line, line) });
  }
}

async function explorer(context: vscode.ExtensionContext): Promise<void> {
  const folder = root();
  if (!folder) {
    return;
  }
  const port = 8700 + Math.floor(Math.random() * 200);
  const server = execFile(settings().command, ["ui", "--port", String(port), "--no-open", "--project", folder], { cwd: folder });
  context.subscriptions.push({ dispose: () => server.kill() });
  const panel = vscode.window.createWebviewPanel("repolens.explorer", "repolens explorer", vscode.ViewColumn.Active, {
    enableScripts: true,
  });
  panel.onDidDispose(() => server.kill());
  const url = `http://127.0.0.1:${port}/`;
  panel.webview.html = `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; frame-src http://127.0.0.1:${port}; style-src 'unsafe-inline';">
<style>html,body,iframe{margin:0;padding:0;border:0;width:100%;height:100vh}</style></head>
<body><iframe src="${url}" title="repolens explorer"></iframe></body></html>`;
}

export function deactivate(): void {}
