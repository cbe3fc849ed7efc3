// Building the page from data without ever parsing data as HTML: every name, path and
// line of code goes in through textContent or an attribute, so a symbol called
// `<img src=x onerror=alert(1)>` shows as those characters and runs nothing.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

// A link to a view of the explorer: `#/view?key=value`.
export function href(view, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(key, String(value));
  }
  const text = query.toString();
  return `#/${view}${text ? "?" + text : ""}`;
}

export function item(text, link, ...extra) {
  return el("li", {}, el("a", { class: "item", href: link, text }), ...extra);
}

export function badge(text, kind = "") {
  return el("span", { class: `badge ${kind}`.trim(), text });
}

// Code with its line numbers; lines in `marks` are highlighted (a call site).
export function code(lines, firstLine, marks = new Set()) {
  const pre = el("pre", { class: "code" });
  lines.forEach((line, index) => {
    const number = firstLine + index;
    pre.append(
      el("span", { class: marks.has(number) ? "row mark" : "row", "data-line": number },
        el("span", { class: "ln", text: number }), line),
    );
  });
  return pre;
}

export async function api(path, params = {}) {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(`/api/${path}${query ? "?" + query : ""}`, {
    headers: { Accept: "application/json" },
  });
  const data = await response.json();
  if (!response.ok) {
    const error = new Error(data.error || response.statusText);
    error.candidates = data.candidates || [];
    throw error;
  }
  return data;
}
