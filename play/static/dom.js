// Small DOM helpers shared by the page and the table modules. Elements are
// built node by node (never from HTML strings), so no text from a game can
// become markup. Children may be nested arrays to any depth (a list of
// [term, description] pairs, say): they are flattened, never drawn as text.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined) continue;
    if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) if (child) el.append(child);
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

// "player_2" -> the seat's name as the page shows it ("you", "heuristic", ...).
export function seatLabel(state, agent) {
  if (!agent) return "-";
  const seat = (state.seats || []).find((s) => s.agent === agent);
  if (!seat) return agent;
  const mine = agent === state.agent ? " (you)" : "";
  return seat.kind === "human" && seat.name === "you"
    ? `${agent}${mine}`
    : `${agent} ${seat.name}${mine}`;
}

export function humanise(key) {
  return String(key).replace(/_/g, " ");
}
