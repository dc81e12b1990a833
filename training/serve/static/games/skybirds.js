// The Skybirds table: the Campaign and what is being decided, the Squadron to
// beat (its Aces, size, value, Medallions, tokens and who played it) and the
// last Dogfight's winner, every seat's Aces left, place, VP, +1VP and
// fractional tokens and its Aerodrome as a track (columns left to right: a
// token held face up, held flipped, or still on the mat), the move being built,
// and the hand: click an Ace to see the moves made with it. Drawn from the
// seat's view alone.

import { h } from "../dom.js";

const PHASES = { pre_campaign: "Pre-Campaign tokens", dogfight: "Dogfight", take: "taking tokens", trade: "trading +1VP tokens", over: "the Great War is over" };
const MEDALLION_ACES = new Set(["9", "10"]);

const picked = { move: -1, ace: null };

function ace(text, opts = {}) {
  const medal = MEDALLION_ACES.has(text);
  const attrs = { class: `card${opts.small ? " small" : ""}${opts.playable ? " playable" : ""}${opts.picked ? " picked" : ""}`, title: text === "G" ? "Roland Garros" : `Ace ${text}${medal ? " (Medallion)" : ""}`, dataset: { card: text } };
  const body = [text, h("small", { text: text === "G" ? "Garros" : medal ? "★ medal" : "" })];
  return opts.onclick ? h("button", { ...attrs, type: "button", onclick: opts.onclick }, ...body) : h("span", attrs, ...body);
}

// The Aces a move names: "5 5" and "G 4" (a Squadron), "add 5", "wild 7", "give 5".
function acesOf(text) {
  const words = text.split(" ");
  if (["add", "wild", "give"].includes(words[0])) return [words[1]];
  return words.every((w) => w === "G" || /^\d+$/.test(w)) ? words : [];
}

function handZone(state, ui) {
  const v = state.view;
  const mine = state.legal.length > 0;
  if (picked.move !== state.move_number) Object.assign(picked, { move: state.move_number, ace: null });
  const cards = v.hand.map((t) => {
    const moves = mine ? state.legal.filter((m) => acesOf(m.text).includes(t)) : [];
    return ace(t, {
      playable: moves.length > 0,
      picked: picked.ace === t,
      onclick: moves.length
        ? () => {
            if (moves.length === 1) return ui.pick(moves[0]);
            picked.ace = t;
            ui.select((m) => moves.includes(m));
          }
        : () => {},
    });
  });
  return h("div", { class: "zone" }, h("h4", { text: `Your hand (${v.hand.length})` }), v.hand.length ? h("div", { class: "cards hand" }, cards) : h("p", { class: "muted", text: "no Aces left: you are out" }));
}

function squadronZone(title, squadron, ui, extra = "") {
  const words = [`size ${squadron.size}`, squadron.value ? `value ${squadron.value}` : "Garros alone", `${squadron.medallions} Medallion${squadron.medallions === 1 ? "" : "s"}`];
  if (squadron.wild) words.push(`wild ${squadron.wild.printed} as ${squadron.wild.declared}`);
  if (squadron.tokens.length) words.push(`tokens ${squadron.tokens.join(", ")}`);
  return h("div", { class: "zone" }, h("h4", { text: title }), h("div", { class: "cards" }, squadron.cards.map((t) => ace(t, { small: true }))), h("div", { class: "muted", text: `${ui.label(squadron.player)} · ${words.join(" · ")}${extra}` }));
}

// One Aerodrome as a track: tokens grouped by column, left to right.
function track(v, agent) {
  const held = v.tokens[agent] || {};
  const used = new Set(v.pre_used[agent] || []);
  const columns = [];
  for (const row of v.aerodrome) {
    if (!columns.length || columns[columns.length - 1].name !== row.column) columns.push({ name: row.column, rows: [] });
    columns[columns.length - 1].rows.push(row);
  }
  return h(
    "div",
    { class: "cards", title: "Aerodrome: held face up (bold), flipped (italic), on the mat (dim)" },
    columns.flatMap((column, i) => [
      i ? h("span", { class: "muted", text: "→" }) : null,
      h(
        "span",
        {},
        column.rows.map((row) => {
          const side = held[row.token];
          const tip = `${row.token}: ${row.bonus}, ribbon ${row.ribbon}, ${row.vp_front}/${row.vp_back} VP${row.prerequisites ? `, needs ${row.prerequisites}` : ""}${used.has(row.token) ? ", used before this Campaign" : ""}`;
          const style = side === "front" ? "font-weight:700" : side === "back" ? "font-style:italic" : "opacity:0.45";
          return h("span", { class: "pill", style, title: tip, dataset: { token: row.token, side: side || "mat" }, text: side === "back" ? `${row.token}↺` : row.token });
        }),
      ),
    ]),
  );
}

function seatBox(state, agent, ui) {
  const v = state.view;
  const place = v.finish.indexOf(agent);
  const marks = [];
  if (place >= 0) marks.push(`out #${place + 1}`);
  else marks.push(`${v.cards_left[agent]} Aces`);
  if (v.passed.includes(agent)) marks.push("passed");
  if (v.table && v.table.player === agent) marks.push("played the table");
  if (v.armistice === agent) marks.push("took the Armistice");
  return h(
    "div",
    { class: `seat-box${agent === v.to_act ? " to-act" : ""}${agent === state.agent ? " me" : ""}`, dataset: { agent } },
    h("h4", { text: ui.label(agent) }),
    h("div", {}, h("span", { class: "pill", text: `${v.vp[agent]} VP` }), h("span", { class: "pill", text: `+1VP ×${v.plus_one[agent]}` }), v.fractional[agent] ? h("span", { class: "pill", text: `${v.fractional[agent]} VP token` }) : null),
    h("div", { class: "muted", text: marks.join(" · ") }),
    track(v, agent),
  );
}

function pendingZone(v) {
  const p = v.pending;
  if (!p || !(p.tokens.length || p.cards.length || p.wild || p.swap_token)) return null;
  const words = [];
  if (p.tokens.length) words.push(`tokens ${p.tokens.join(", ")}`);
  if (p.swap_token) words.push(`swap with ${p.swap_token}${p.target ? ` → ${p.target}` : ""}`);
  if (p.wild) words.push(`wild ${p.wild}`);
  return h("div", { class: "zone" }, h("h4", { text: "Your move so far" }), h("div", { class: "cards" }, p.cards.map((t) => ace(t, { small: true }))), h("div", { class: "muted", text: words.join(" · ") }));
}

export function draw(root, state, ui) {
  const v = state.view;
  const header = [`Campaign ${v.campaign} of at most ${v.max_campaigns}`, PHASES[v.phase] || v.phase];
  if (v.garros_due) header.push("Roland Garros must start this Campaign");
  if (v.armistice) header.push(`${ui.label(v.armistice)} took the Armistice: the Great War ends after this Dogfight`);
  root.append(h("div", { class: "zone" }, h("strong", { text: header[0] }), h("span", { text: ` · ${header.slice(1).join(" · ")}` })));
  if (v.table) root.append(squadronZone("Squadron to beat", v.table, ui, v.squadron_size && v.squadron_size !== v.table.size ? ` · Squadron Size ${v.squadron_size}` : ""));
  else if (v.phase === "dogfight") root.append(h("div", { class: "zone" }, h("h4", { text: "Squadron to beat" }), h("p", { class: "muted", text: `${ui.label(v.to_act)} leads a new Dogfight` })));
  if (v.last_dogfight) root.append(squadronZone(`Last Dogfight: won by ${ui.label(v.last_dogfight.winner)}`, v.last_dogfight.squadron, ui));
  root.append(h("div", { class: "seats-row" }, state.seats.map((s) => seatBox(state, s.agent, ui))));
  const pending = pendingZone(v);
  if (pending) root.append(pending);
  root.append(handZone(state, ui));
  if (v.played.length) root.append(h("div", { class: "zone" }, h("h4", { text: `Played this Campaign (${v.played.length})` }), h("div", { class: "cards" }, v.played.map((t) => ace(t, { small: true })))));
  if (v.over) root.append(h("p", { class: "zone", text: v.winners.length ? `The Great War is over: ${v.winners.map(ui.label).join(", ")} won.` : "The Great War was cut short: nobody won." }));
}

export function describeHidden() {
  return "chose the Aces to give (hidden)";
}
