// One function per view: fetch its data, fill the side panel, draw the graph. Each view
// has its own URL (see main.js), so every state can be bookmarked and shared.
import { api, badge, clear, code, el, href, item } from "./dom.js";
import { FLOW_LAYOUT, MAP_LAYOUT, colourOf, draw } from "./graph.js";

const panel = () => document.getElementById("panel");
const go = (link) => { window.location.hash = link; };
const sizeOf = (count) => Math.min(24 + 9 * Math.sqrt(count), 140);
const where = (s) => `${s.file}:${s.line}`;
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function crumbs(folder, tail = []) {
  const nav = clear(document.getElementById("crumbs"));
  nav.append(el("a", { href: href("map"), text: "root" }));
  let path = "";
  for (const part of folder ? folder.split("/") : []) {
    path = path ? `${path}/${part}` : part;
    nav.append(el("a", { href: href("map", { folder: path }), text: part }));
  }
  for (const part of tail) nav.append(el("span", { text: part }));
}

const folderOf = (path) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");

// --- map ------------------------------------------------------------------------------

export async function showMap(params, state) {
  const folder = params.get("folder") || "";
  const data = await api("map", { folder });
  crumbs(folder);
  const nodes = data.entries.map((e) => ({
    data: {
      id: e.key, label: e.kind === "folder" ? `${e.name}/ (${e.files})` : e.name,
      colour: colourOf(e.language), size: sizeOf(e.kind === "folder" ? e.files : 1 + e.symbols / 8),
      kind: e.kind, key: e.key,
    },
    classes: [e.kind, e.cyclic ? "cycle" : "", e.dead ? "dead-some" : ""].join(" "),
  }));
  const edges = data.edges.map((x, i) => ({
    data: { id: `e${i}`, source: x.source, target: x.target, width: Math.min(1 + Math.log2(x.count), 6) },
    classes: x.cycle ? "cycle" : "",
  }));
  const body = clear(panel());
  body.append(el("h2", { text: folder ? `${folder}/` : state.root || "project" }));
  body.append(el("div", { class: "meta", text:
    `${plural(data.total_files, "file")} · ${plural(data.entries.length, "entry").replace("entrys", "entries")} · ${plural(data.edges.length, "import link")}` }));
  if (data.left_out) {
    body.append(el("p", { class: "note", text:
      `${data.left_out} smaller entries (${data.left_out_files} files) are not drawn; open a folder to see them.` }));
  }
  const languages = {};
  for (const e of data.entries) for (const [l, n] of Object.entries(e.languages)) languages[l] = (languages[l] || 0) + n;
  const legend = el("div", { class: "legend" });
  for (const [language, count] of Object.entries(languages).sort((a, b) => b[1] - a[1]).slice(0, 10)) {
    const swatch = el("span", { class: "swatch" });
    swatch.style.background = colourOf(language);
    legend.append(el("span", {}, swatch, ` ${language} ${count}`));
  }
  body.append(legend);
  const cyclic = data.entries.filter((e) => e.cyclic).length;
  if (cyclic) body.append(el("p", { class: "note", text: `${cyclic === 1 ? "1 entry holds" : `${cyclic} entries hold`} files on import cycles (red).` }));
  const list = el("ul", { class: "items" });
  for (const e of data.entries) {
    const link = e.kind === "folder" ? href("map", { folder: e.key }) : href("file", { path: e.key });
    list.append(item(e.kind === "folder" ? `${e.name}/` : e.name, link,
      badge(e.kind === "folder" ? plural(e.files, "file") : plural(e.symbols, "symbol")),
      e.cyclic ? badge("cycle", "cycle") : null, e.dead ? badge(`${e.dead} unused`, "dead") : null));
  }
  body.append(el("h3", { text: "Entries" }), list);
  await draw([...nodes, ...edges], MAP_LAYOUT, (d) =>
    go(d.kind === "folder" ? href("map", { folder: d.key }) : href("file", { path: d.key })));
  state.up = folder ? href("map", { folder: folderOf(folder) }) : null;
}

// --- file -----------------------------------------------------------------------------

export async function showFile(params, state) {
  const path = params.get("path") || "";
  const data = await api("file", { path });
  crumbs(folderOf(path), [path.split("/").pop()]);
  const body = clear(panel());
  body.append(el("h2", { text: path }), el("div", { class: "meta", text: `${data.language} · ${plural(data.symbols.length, "symbol")}` }));
  const list = el("ul", { class: "items" });
  const ids = new Set(data.symbols.map((s) => s.id));
  for (const s of data.symbols) {
    list.append(item(s.qualified_name, href("symbol", { id: s.id }), badge(s.kind), badge(`:${s.line}`),
      s.dead ? badge("unused", "dead") : null));
  }
  if (!data.symbols.length) list.append(el("li", { class: "note", text: "no symbols in this file" }));
  body.append(el("h3", { text: "Symbols" }), list);
  const parents = new Set(data.symbols.map((s) => s.parent).filter((p) => p && ids.has(p)));
  const nodes = data.symbols.map((s) => ({
    data: { id: s.id, label: `${s.name} (${s.kind})`, colour: colourOf(data.language), size: 22,
      parent: s.parent && ids.has(s.parent) ? s.parent : undefined },
    classes: ["symbol", s.dead ? "dead" : "", parents.has(s.id) ? "group" : ""].join(" "),
  }));
  const edges = data.edges.map((x, i) => ({ data: { id: `c${i}`, source: x.source, target: x.target, width: 1.5 } }));
  await draw([...nodes, ...edges], { ...FLOW_LAYOUT, rankDir: "TB" }, (d) => go(href("symbol", { id: d.id })));
  state.up = href("map", { folder: folderOf(path) });
}

// --- symbol ---------------------------------------------------------------------------

function neighbourList(hits, more, empty) {
  const list = el("ul", { class: "items" });
  for (const h of hits) {
    const sure = h.confidence >= 0.9 ? null : badge(`${h.provenance} ${h.confidence}`);
    list.append(item(h.full_name, href("symbol", { id: h.id }), badge(h.kind), badge(`${h.site_file}:${h.site_line}`), sure));
  }
  if (!hits.length) list.append(el("li", { class: "note", text: empty }));
  if (more) list.append(el("li", { class: "note", text: "… more not shown" }));
  return list;
}

export async function showSymbol(params, state) {
  const data = await api("symbol", { id: params.get("id") || params.get("q") || "" });
  const s = data.symbol;
  crumbs(folderOf(s.file), [s.file.split("/").pop(), s.qualified_name]);
  const body = clear(panel());
  body.append(el("h2", { text: s.full_name }),
    el("div", { class: "meta" }, `${s.kind} · `, el("a", { href: href("file", { path: s.file }), text: where(s) })));
  if (s.signature) body.append(el("div", { class: "meta", text: s.signature }));
  body.append(el("div", {}, el("a", { href: href("path", { from: s.id }), text: "call path from here →" })));
  body.append(code(data.code.lines, data.code.first_line));
  if (data.code.cut) body.append(el("p", { class: "note", text: "… the rest of the code is not shown" }));
  if (data.code.stale) body.append(el("p", { class: "note", text: "the file changed since it was indexed; lines may have moved" }));
  const unknown = data.possible_callers.length;
  body.append(el("h3", { text: `Callers (${data.callers.length}${data.callers_more ? "+" : ""})` }),
    neighbourList(data.callers, data.callers_more, unknown ? "no resolved callers" : "no callers"));
  if (unknown) {
    body.append(el("p", { class: "note", text:
      `callers unknown: ${unknown} unresolved references carry this name, e.g. ${data.possible_callers.slice(0, 3).map((u) => `${u.file}:${u.line}`).join(", ")}` }));
  }
  body.append(el("h3", { text: `Callees (${data.callees.length}${data.callees_more ? "+" : ""})` }),
    neighbourList(data.callees, data.callees_more, "calls nothing in the project"));
  if (data.unresolved_count) {
    body.append(el("p", { class: "note", text:
      `${data.unresolved_count} calls could not be resolved: ${data.unresolved_calls.slice(0, 5).map((u) => u.name).join(", ")}` }));
  }
  const depth = params.get("depth") || "2";
  const select = el("select", { "aria-label": "Impact depth", onchange: (event) =>
    go(href("symbol", { id: s.id, depth: event.target.value })) });
  for (const d of ["1", "2", "3", "4", "5"]) select.append(el("option", { value: d, text: `depth ${d}`, selected: d === depth }));
  const impactBox = el("div", {}, el("p", { class: "note", text: "loading impact…" }));
  body.append(el("h3", { text: "Impact" }), select, impactBox);
  drawNeighbourhood(s, data);
  state.up = href("file", { path: s.file });
  const impact = await api("impact", { id: s.id, depth });
  clear(impactBox);
  impactBox.append(el("div", { class: "meta", text: `${impact.hits.length} dependents within depth ${depth}${impact.truncated ? " (cut)" : ""}${impact.beyond ? `; ${impact.beyond} more one hop further` : ""}` }));
  for (const [title, hits] of [["Tests that reach it", impact.tests], ["Routes that reach it", impact.routes]]) {
    impactBox.append(el("h3", { text: `${title} (${hits.length})` }));
    const list = el("ul", { class: "items" });
    for (const h of hits) list.append(item(h.full_name, href("symbol", { id: h.id }), badge(`depth ${h.depth}`)));
    if (!hits.length) list.append(el("li", { class: "note", text: "none found" }));
    impactBox.append(list);
  }
  impactBox.append(el("h3", { text: "All dependents" }));
  const all = el("ul", { class: "items" });
  for (const h of impact.hits.slice(0, 200)) all.append(item(h.full_name, href("symbol", { id: h.id }), badge(`depth ${h.depth}`), badge(where(h))));
  impactBox.append(all);
}

function drawNeighbourhood(s, data) {
  const nodes = new Map([[s.id, { data: { id: s.id, label: s.qualified_name, colour: "#888", size: 22 }, classes: "symbol root" }]]);
  const edges = [];
  for (const [hits, incoming] of [[data.callers, true], [data.callees, false]]) {
    for (const h of hits) {
      if (!nodes.has(h.id)) nodes.set(h.id, { data: { id: h.id, label: h.qualified_name, colour: "#888", size: 22 }, classes: "symbol" });
      const [a, b] = incoming ? [h.id, s.id] : [s.id, h.id];
      edges.push({ data: { id: `${a}>${b}>${edges.length}`, source: a, target: b, width: 1.5 },
        classes: h.confidence >= 0.9 ? "" : "unsure" });
    }
  }
  return draw([...nodes.values(), ...edges], FLOW_LAYOUT, (d) => { if (d.id !== s.id) go(href("symbol", { id: d.id })); });
}

// --- path -----------------------------------------------------------------------------

export async function showPath(params, state) {
  const from = params.get("from") || "", to = params.get("to") || "";
  crumbs("", ["call path"]);
  const body = clear(panel());
  const fromBox = el("input", { name: "from", value: from, placeholder: "from: a symbol", "aria-label": "From symbol" });
  const toBox = el("input", { name: "to", value: to, placeholder: "to: a symbol", "aria-label": "To symbol" });
  const form = el("form", { class: "path", onsubmit: (event) => {
    event.preventDefault();
    go(href("path", { from: fromBox.value.trim(), to: toBox.value.trim() }));
  } }, fromBox, el("span", { class: "arrow", text: "→" }), toBox, el("button", { type: "submit", text: "find path" }));
  body.append(el("h2", { text: "Call path" }), form);
  state.up = href("map");
  if (!from || !to) {
    body.append(el("p", { class: "note", text: "Give two symbols (names, Class.method, path:Name or ids from a link)." }));
    (from ? toBox : fromBox).focus();
    return;
  }
  const data = await api("path", { from, to });
  if (data.hops === null) {
    body.append(el("p", { class: "note", text: `No call path from ${data.from.full_name} to ${data.to.full_name} within ${data.max_depth} hops (calls the resolver could not connect are not followed).` }));
    await draw([], FLOW_LAYOUT, () => {});
    return;
  }
  body.append(el("div", { class: "meta", text: `${data.hops.length} hops` }));
  const start = el("div", { class: "hop" }, el("a", { class: "item", href: href("symbol", { id: data.from.id }), text: data.from.full_name }), " ", badge(where(data.from)));
  body.append(start);
  for (const hop of data.hops) {
    body.append(el("div", { class: "hop" },
      el("div", { class: "meta", text: `calls at ${hop.site_file}:${hop.site_line}` }),
      code(hop.lines, hop.first_line, new Set([hop.site_line])),
      el("span", { class: "arrow", text: "→ " }), el("a", { class: "item", href: href("symbol", { id: hop.id }), text: hop.full_name }), " ", badge(where(hop))));
  }
  const chain = [data.from, ...data.hops];
  const nodes = chain.map((s, i) => ({ data: { id: s.id, label: s.qualified_name, colour: "#888", size: 22 }, classes: i === 0 || i === chain.length - 1 ? "symbol root" : "symbol" }));
  const edges = data.hops.map((h, i) => ({ data: { id: `p${i}`, source: chain[i].id, target: h.id, width: 2, label: `${h.site_file.split("/").pop()}:${h.site_line}` } }));
  await draw([...nodes, ...edges], FLOW_LAYOUT, (d) => go(href("symbol", { id: d.id })));
}

// --- search ---------------------------------------------------------------------------

export async function showSearch(params, state) {
  const q = params.get("q") || "", mode = params.get("mode") || "hybrid";
  crumbs("", [`search: ${q}`]);
  const data = await api("search", { q, mode });
  const body = clear(panel());
  body.append(el("h2", { text: `Search: ${q}` }));
  if (data.note) body.append(el("p", { class: "note", text: data.note }));
  body.append(el("h3", { text: `Symbols (${data.symbols.length})` }));
  const symbols = el("ul", { class: "items" });
  for (const s of data.symbols) symbols.append(item(s.full_name, href("symbol", { id: s.id }), badge(s.kind), badge(where(s))));
  if (!data.symbols.length) symbols.append(el("li", { class: "note", text: "no symbol by that name" }));
  body.append(symbols);
  if (mode === "hybrid") {
    body.append(el("h3", { text: `Code (${data.hits.length})` }));
    for (const hit of data.hits) {
      const link = href("symbol", { id: `${hit.file}:${hit.start_line}` });
      body.append(el("div", { class: "hop" },
        el("a", { class: "item", href: link, text: `${hit.file}:${hit.start_line}` }), " ",
        hit.symbol ? badge(hit.symbol) : null, badge(`score ${hit.score}`),
        code(hit.snippet, hit.start_line)));
    }
  }
  state.up = href("map");
}

// --- routes ---------------------------------------------------------------------------

export async function showRoutes(params, state) {
  crumbs("", ["routes"]);
  const data = await api("routes");
  const body = clear(panel());
  body.append(el("h2", { text: `Routes (${data.routes.length})` }));
  if (!data.routes.length) body.append(el("p", { class: "note", text: "No framework routes were found in this project." }));
  const list = el("ul", { class: "items" });
  for (const r of data.routes) {
    const target = r.handler ? href("symbol", { id: r.handler.id }) : href("symbol", { id: r.route.id });
    list.append(item(`${r.method} ${r.path}`, target, badge(r.framework),
      badge(r.handler ? r.handler.full_name : r.handler_text || "inline"), badge(where(r.route))));
  }
  body.append(list);
  const nodes = [], edges = [];
  for (const r of data.routes.slice(0, 300)) {
    nodes.push({ data: { id: r.route.id, label: `${r.method} ${r.path}`, colour: "#888", size: 22 }, classes: "symbol root" });
    if (r.handler) {
      if (!nodes.some((n) => n.data.id === r.handler.id)) {
        nodes.push({ data: { id: r.handler.id, label: r.handler.qualified_name, colour: "#888", size: 22 }, classes: "symbol" });
      }
      edges.push({ data: { id: `r${edges.length}`, source: r.route.id, target: r.handler.id, width: 1.5 } });
    }
  }
  await draw([...nodes, ...edges], FLOW_LAYOUT, (d) => go(href("symbol", { id: d.id })));
  state.up = href("map");
}
