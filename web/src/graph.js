// The canvas: one Cytoscape.js instance redrawn per view. The map is laid out by fcose
// (force-directed, fast on a few hundred boxes: a folder's entries, never all files at
// once); call graphs and paths by dagre, left to right. Labels are drawn on the canvas
// as text.
import cytoscape from "cytoscape";
import dagre from "cytoscape-dagre";
import fcose from "cytoscape-fcose";

cytoscape.use(fcose);
cytoscape.use(dagre);

export const LANGUAGE_COLOURS = {
  python: "#3572a5", javascript: "#e5c92b", typescript: "#3178c6", tsx: "#3178c6",
  jsx: "#e5c92b", go: "#00add8", java: "#b07219", rust: "#dea584", c: "#6e6e6e",
  cpp: "#f34b7d", csharp: "#178600", php: "#4f5d95", ruby: "#cc342d", kotlin: "#a97bff",
  scala: "#c22d40", swift: "#f05138", dart: "#00b4ab", bash: "#89e051", lua: "#000080",
  elixir: "#6e4a7e", vue: "#41b883", svelte: "#ff3e00", css: "#563d7c", scss: "#c6538c",
  less: "#1d365d", markdown: "#083fa1", json: "#8a8a8a", yaml: "#cb171e", toml: "#9c4221",
};
export const colourOf = (language) => LANGUAGE_COLOURS[language] || "#9aa0a6";

function css(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

function styles() {
  const fg = css("--fg"), muted = css("--muted"), cycle = css("--cycle"), bg = css("--bg");
  return [
    { selector: "node", style: {
      label: "data(label)", color: fg, "font-size": 11, "text-valign": "bottom",
      "text-margin-y": 3, "text-wrap": "ellipsis", "text-max-width": 160,
      "background-color": "data(colour)", width: "data(size)", height: "data(size)",
      "border-width": 1, "border-color": muted, "min-zoomed-font-size": 7 } },
    { selector: "node.folder", style: { shape: "round-rectangle" } },
    { selector: "node.symbol", style: { shape: "round-rectangle", width: "data(width)",
      height: 22, "text-valign": "center", "text-margin-y": 0,
      "background-color": bg, "border-color": "data(colour)", "border-width": 2 } },
    { selector: "node.root", style: { "border-width": 4, "font-weight": "bold" } },
    { selector: "node.cycle", style: { "border-color": cycle, "border-width": 3 } },
    { selector: "node.dead", style: { "border-style": "dashed", opacity: 0.6 } },
    { selector: "node.dead-some", style: { "border-style": "dashed", "border-width": 3 } },
    { selector: "node.more", style: { shape: "ellipse", "background-color": bg } },
    { selector: ":parent", style: { "background-opacity": 0.06, "text-valign": "top",
      "border-color": muted, shape: "round-rectangle" } },
    { selector: "node:selected", style: { "border-color": css("--accent"), "border-width": 4 } },
    { selector: "edge", style: {
      width: "data(width)", "line-color": muted, "target-arrow-color": muted,
      "target-arrow-shape": "triangle", "curve-style": "bezier", opacity: 0.55,
      "arrow-scale": 0.8 } },
    { selector: "edge.cycle", style: { "line-color": cycle, "target-arrow-color": cycle,
      opacity: 0.9 } },
    { selector: "edge.unsure", style: { "line-style": "dashed" } },
    { selector: "edge[label]", style: { label: "data(label)", "font-size": 9, color: muted,
      "text-background-color": bg, "text-background-opacity": 0.8 } },
  ];
}

let cy = null;

export function graph() {
  if (cy === null) {
    cy = cytoscape({
      container: document.getElementById("graph"),
      style: styles(),
      minZoom: 0.05,
      maxZoom: 4,
      textureOnViewport: false,
      hideEdgesOnViewport: false,
    });
    window.__repolens.cy = cy;
  }
  return cy;
}

export function restyle() {
  if (cy !== null) cy.style(styles());
}

// Replace what is drawn; `onTap(node data)` is called when a box is clicked.
export function draw(elements, layout, onTap) {
  const g = graph();
  for (const element of elements) {
    const label = element.data.label;
    if (element.data.source === undefined && label !== undefined) {
      element.data.width = Math.min(12 + 6.5 * String(label).length, 320);
    }
  }
  g.off("tap");
  g.elements().remove();
  g.add(elements);
  g.on("tap", "node", (event) => onTap(event.target.data()));
  return new Promise((resolve) => {
    const run = g.layout(layout);
    run.one("layoutstop", () => {
      g.fit(undefined, 30);
      resolve();
    });
    run.run();
  });
}

export const MAP_LAYOUT = { name: "fcose", animate: false, randomize: true, quality: "default",
  nodeSeparation: 60, idealEdgeLength: 90, nodeRepulsion: 8000, packComponents: true };
export const FLOW_LAYOUT = { name: "dagre", rankDir: "LR", nodeSep: 18, rankSep: 70,
  animate: false };

export function zoomBy(factor) {
  const g = graph();
  g.zoom({ level: g.zoom() * factor, renderedPosition: { x: g.width() / 2, y: g.height() / 2 } });
}

export function fit() {
  graph().fit(undefined, 30);
}
