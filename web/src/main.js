// The explorer's shell: routes (a URL per view), keyboard, theme, and following the index.
import { api, clear, el, href } from "./dom.js";
import { fit, restyle, zoomBy } from "./graph.js";
import { showFile, showMap, showPath, showRoutes, showSearch, showSymbol } from "./views.js";

window.__repolens = { firstRender: null, deadReady: null, renders: 0, cy: null, stamp: null };
const VIEWS = {
  map: showMap, file: showFile, symbol: showSymbol, path: showPath, search: showSearch, routes: showRoutes,
};
const POLL_MS = 2000;
const state = { root: "", up: null, stamp: null, rendering: null };

function route() {
  const text = window.location.hash.replace(/^#\/?/, "");
  const [name, query = ""] = text.split("?", 2);
  return { name: VIEWS[name] ? name : "map", params: new URLSearchParams(query) };
}

async function render() {
  const { name, params } = route();
  if (name === "search") {
    document.getElementById("search").value = params.get("q") || "";
    document.getElementById("mode").value = params.get("mode") || "hybrid";
  }
  const started = performance.now();
  const job = (state.rendering = VIEWS[name](params, state).then(
    () => {
      if (window.__repolens.firstRender === null) window.__repolens.firstRender = performance.now();
      window.__repolens.renders += 1;
      window.__repolens.lastRenderMs = performance.now() - started;
      document.body.dataset.view = name;
    },
    (error) => {
      const panel = clear(document.getElementById("panel"));
      panel.append(el("h2", { class: "error", text: error.message }));
      if (error.candidates && error.candidates.length) {
        panel.append(el("p", { text: "Did you mean:" }));
        const list = el("ul", { class: "items" });
        for (const c of error.candidates) {
          const link = typeof c === "string" ? href("file", { path: c }) : href("symbol", { id: c.id });
          list.append(el("li", {}, el("a", { class: "item", href: link, text: typeof c === "string" ? c : `${c.full_name} (${c.kind}) ${c.file}:${c.line}` })));
        }
        panel.append(list);
      }
      document.body.dataset.view = "error";
    },
  ));
  await job;
}

// --- live: poll the index version; redraw the view when it moves ----------------------

async function poll() {
  try {
    const data = await api("stamp");
    state.root = data.root;
    document.getElementById("project").textContent = data.root;
    const live = document.getElementById("live");
    const busy = data.error || (data.state === "running" ? `indexing ${data.stage} ${data.done}/${data.total}` : "");
    if (state.stamp !== null && data.stamp !== state.stamp) {  // also: the first index landed
      live.textContent = `index updated ${new Date().toLocaleTimeString()}`;
      window.__repolens.stamp = data.stamp;
      state.stamp = data.stamp;
      await render();
      await loadDead();
    } else {
      state.stamp = data.stamp;
      window.__repolens.stamp = data.stamp;
      if (busy) live.textContent = busy;
    }
  } catch (error) {
    document.getElementById("live").textContent = "explorer stopped?";
  }
  setTimeout(poll, POLL_MS);
}

// Dead code takes a while on big projects: ask once, after the first picture.
async function loadDead() {
  try {
    await api("dead");
    if (route().name === "map" || route().name === "file") await render();
  } finally {  // done either way: the page is still (tests and the bench wait for this)
    if (window.__repolens.deadReady === null) window.__repolens.deadReady = performance.now();
  }
}

// --- theme ----------------------------------------------------------------------------

function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  localStorage.setItem("repolens-theme", theme);
  restyle();
}

function toggleTheme() {
  applyTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark");
}

// --- keyboard -------------------------------------------------------------------------

function moveFocus(step) {
  const items = [...document.querySelectorAll("#panel a.item")];
  if (!items.length) return;
  const at = items.indexOf(document.activeElement);
  const next = items[Math.max(0, Math.min(items.length - 1, at < 0 ? 0 : at + step))];
  next.focus();
  next.scrollIntoView({ block: "nearest" });
}

function onKey(event) {
  const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName);
  if (event.key === "Escape") {
    event.target.blur();
    return;
  }
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  const actions = {
    "/": () => document.getElementById("search").focus(),
    j: () => moveFocus(1), ArrowDown: () => moveFocus(1),
    k: () => moveFocus(-1), ArrowUp: () => moveFocus(-1),
    u: () => { if (state.up) window.location.hash = state.up; },
    Backspace: () => { if (state.up) window.location.hash = state.up; },
    m: () => { window.location.hash = href("map"); },
    p: () => { window.location.hash = href("path"); },
    r: () => { window.location.hash = href("routes"); },
    t: toggleTheme,
    "+": () => zoomBy(1.25), "=": () => zoomBy(1.25), "-": () => zoomBy(0.8), "0": fit,
  };
  const action = actions[event.key];
  if (action) {
    event.preventDefault();
    action();
  }
}

function start() {
  const saved = localStorage.getItem("repolens-theme");
  const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.dataset.theme = saved || (dark ? "dark" : "light");
  document.getElementById("theme").addEventListener("click", toggleTheme);
  document.getElementById("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const q = document.getElementById("search").value.trim();
    if (q) window.location.hash = href("search", { q, mode: document.getElementById("mode").value });
  });
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", render);
  render().then(loadDead).catch(() => {});
  poll();
}

start();
