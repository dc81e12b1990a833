// The generic renderer: any registered env's view as a tidy table, and its legal
// moves as buttons. Every env gets it on the day it is registered; a drawn table
// (games/<game>.js) replaces the view table, never the move buttons.

import { h, humanise } from "./dom.js";

const MAX_DEPTH = 4;

function isPlain(value) {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function plainText(value) {
  if (value === null) return "-";
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

// One value of a view, drawn by its shape: text, chips for a list of plain
// values, a table for a list of objects, a key/value table for an object.
export function renderValue(value, depth = 0) {
  if (isPlain(value)) return h("span", { class: "plain", text: plainText(value) });
  if (depth >= MAX_DEPTH) return h("code", { text: JSON.stringify(value) });
  if (Array.isArray(value)) {
    if (value.length === 0) return h("span", { class: "empty", text: "none" });
    if (value.every(isPlain)) {
      return h("span", { class: "chips" }, value.map((v) => h("span", { class: "chip", text: plainText(v) })));
    }
    if (value.every((v) => v && typeof v === "object" && !Array.isArray(v))) {
      const columns = [...new Set(value.flatMap((v) => Object.keys(v)))];
      return h(
        "table",
        { class: "grid" },
        h("thead", {}, h("tr", {}, columns.map((c) => h("th", { text: humanise(c) })))),
        h("tbody", {}, value.map((row) => h("tr", {}, columns.map((c) => h("td", {}, renderValue(row[c], depth + 1)))))),
      );
    }
    return h("ol", { class: "list" }, value.map((v) => h("li", {}, renderValue(v, depth + 1))));
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return h("span", { class: "empty", text: "none" });
  return h(
    "table",
    { class: "kv" },
    h("tbody", {}, entries.map(([k, v]) => h("tr", {}, h("th", { text: humanise(k) }), h("td", {}, renderValue(v, depth + 1))))),
  );
}

// The whole view: one row per field, in the env's order.
export function drawView(root, view) {
  root.append(h("div", { class: "view-table" }, renderValue(view)));
}

const SHORTCUTS = "1234567890qwertyuiopasdfghjklzxcvbnm";

// The legal moves as buttons, each with a keyboard shortcut; ``filter`` (a
// move -> bool) dims the moves a drawn table did not select.
export function drawMoves(root, legal, pick, filter = null) {
  const keys = new Map();
  const buttons = legal.map((move, index) => {
    const key = SHORTCUTS[index] || null;
    const dim = filter && !filter(move);
    const button = h(
      "button",
      {
        class: dim ? "move dim" : "move",
        type: "button",
        title: key ? `key ${key}` : null,
        dataset: { move: move.text, id: String(move.id) },
        onclick: () => pick(move),
      },
      key ? h("kbd", { text: key }) : null,
      h("span", { text: move.text }),
    );
    if (key) keys.set(key, move);
    return button;
  });
  root.append(h("div", { class: "moves" }, buttons));
  return keys;
}

// A score sheet from the view when it has one ({agent: number} under a name
// like scores or points); null when it has none.
export function findScores(view) {
  for (const key of ["scores", "points", "score", "victory_points", "vp"]) {
    const value = view && view[key];
    if (value && typeof value === "object" && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "number")) {
      return value;
    }
  }
  return null;
}
