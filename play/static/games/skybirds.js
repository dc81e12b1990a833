// The Skybirds table: the Campaign and the Dogfight's Squadron in play (its
// Aces, size, value, Medallions, tokens and who played it) and the last
// Dogfight won; every seat's Aces left, passes, finishing place, VP, +1VP and
// fractional tokens and its Aerodrome as a track of tokens (held face up,
// flipped, open to take, out of reach); the human's hand as cards, clickable
// where the move is a card set, and its own track clickable where the move is
// a token. Drawn from the seat's view alone.

import { h } from "../dom.js";

const MEDALLION_KINDS = new Set(["9", "10"]);
const PHASES = { pre_campaign: "Pre-Campaign tokens", dogfight: "Dogfight", take: "taking a token", trade: "trading +1VP tokens", over: "the Great War is over" };
const STEPS = { start: "", tokens: "choosing tokens", cards: "adding Aces", declare: "declaring the wild Ace", target: "choosing a swap opponent", give: "choosing Aces to give" };
const BONUSES = {
  medallion: "one more Medallion on an Ace",
  follow_equal: "follow with an equal Squadron",
  swap_one: "Pre-Campaign: swap one Ace with an opponent",
  run: "consecutive values as a Squadron",
  tiebreaker: "the Tiebreaker: takes a fractional VP token",
  wild: "one Ace is wild",
  two_medallions: "two more Medallions on an Ace",
  unmatched: "2-3 unmatched Aces as a Squadron",
  swap_two: "Pre-Campaign: swap two Aces with an opponent",
  size_change: "one Ace more or fewer than the Squadron Size",
  armistice: "taking it ends the Great War",
  none: "no bonus",
};
const PLACES = ["1st", "2nd", "3rd", "4th"];

// One Ace: its value, and a star for the Medallion every 9 and the 10 carry.
function ace(text, opts = {}) {
  const garros = text === "G";
  const medal = MEDALLION_KINDS.has(text);
  const attrs = {
    class: `card ace${garros ? " garros" : ""}${medal ? " medallion" : ""}${opts.small ? " small" : ""}${opts.playable ? " playable" : ""}${opts.picked ? " picked" : ""}`,
    title: garros ? "Roland Garros" : `${text}${medal ? " (a Medallion)" : ""}`,
    dataset: { card: text },
  };
  const label = garros ? "Garros" : medal ? (opts.small ? "★" : "★ medallion") : "ace";
  const body = [text, h("small", { text: label })];
  return opts.onclick ? h("button", { ...attrs, type: "button", onclick: opts.onclick }, ...body) : h("span", attrs, ...body);
}

function squadronLine(sq, ui) {
  const parts = [`by ${ui.label(sq.player)}`, `size ${sq.size}`, `value ${sq.value}`, `${sq.medallions} Medallion${sq.medallions === 1 ? "" : "s"}`];
  if (sq.tokens.length) parts.push(`tokens ${sq.tokens.join(" ")}`);
  if (sq.wild) parts.push(`wild ${sq.wild.printed} as ${sq.wild.declared}`);
  return parts.join(" · ");
}

// ["1", "1", "4"] -> [["1", 2], ["4", 1]] (the view lists Aces in ascending order)
function counted(cards) {
  const out = [];
  for (const c of cards) {
    if (out.length && out[out.length - 1][0] === c) out[out.length - 1][1] += 1;
    else out.push([c, 1]);
  }
  return out;
}

function squadronZone(v, ui) {
  const zone = h("div", { class: "zone squadron" }, h("h4", { text: v.squadron_size ? `Squadron in play (to beat) · Squadron Size ${v.squadron_size}` : "Squadron in play (to beat)" }));
  if (v.table) {
    zone.append(h("div", { class: "cards" }, v.table.cards.map((c) => ace(c)), h("div", { class: "rule" }, h("strong", { text: squadronLine(v.table, ui) }), h("div", { text: v.passed.length ? `passed: ${v.passed.map(ui.label).join(", ")}` : "nobody has passed yet" }))));
  } else if (v.leader_to_play) {
    zone.append(h("p", { text: `${ui.label(v.to_act)} leads a new Dogfight${v.garros_due ? ": Roland Garros must start the Campaign" : ""}.` }));
  } else {
    zone.append(h("p", { class: "muted", text: "no Squadron on the table" }));
  }
  if (v.last_dogfight) {
    const last = v.last_dogfight;
    zone.append(h("div", { class: "inline-cards" }, h("span", { class: "muted", text: `last Dogfight won by ${ui.label(last.winner)}:` }), h("span", { class: "cards" }, last.squadron.cards.map((c) => ace(c, { small: true })))));
  }
  if (v.played.length) {
    zone.append(h("div", { class: "inline-cards" }, h("span", { class: "muted", text: `played this Campaign (${v.played.length}):` }), h("span", { class: "chips" }, counted(v.played).map(([c, n]) => h("span", { class: "chip", title: `${n} × ${c}`, text: n > 1 ? `${c}×${n}` : c })))));
  }
  return zone;
}

// ---- the Aerodrome --------------------------------------------------------------

function held(v, agent) {
  return v.tokens[agent] || {};
}

// A token is open when not held and its immediate prerequisites are ("A1|A2": any
// one, "D1&D2": all, "": none).
function isOpen(row, mine) {
  if (mine[row.token]) return false;
  if (!row.prerequisites) return true;
  if (row.prerequisites.includes("&")) return row.prerequisites.split("&").every((t) => mine[t]);
  return row.prerequisites.split("|").some((t) => mine[t]);
}

function tokenMove(state, token) {
  return state.legal.find((m) => m.text === `use ${token}` || m.text === `take ${token}` || /^trade \d+ for (.+)$/.test(m.text) && m.text.endsWith(` for ${token}`));
}

function track(state, agent, ui) {
  const v = state.view;
  const mine = held(v, agent);
  const used = new Set(v.pre_used[agent] || []);
  const columns = [];
  for (const row of v.aerodrome) {
    if (!columns.length || columns[columns.length - 1].name !== row.column) columns.push({ name: row.column, rows: [] });
    columns[columns.length - 1].rows.push(row);
  }
  const cell = (row) => {
    const side = mine[row.token];
    const status = side === "front" ? "front" : side === "back" ? "back" : isOpen(row, mine) ? "open" : "locked";
    const move = agent === state.agent ? tokenMove(state, row.token) : null;
    const words = { front: "held face up", back: "held flipped (used once)", open: "open to take", locked: "needs its prerequisites" }[status];
    const title = `${row.token}: ${BONUSES[row.bonus] || row.bonus}; ${row.vp_front}/${row.vp_back} VP; ribbon ${row.ribbon}${row.prerequisites ? `; after ${row.prerequisites.replace("|", " or ").replace("&", " and ")}` : ""}; ${words}${used.has(row.token) ? "; used before this Campaign" : ""}${move ? ` · click: ${move.text}` : ""}`;
    const vp = status === "back" ? row.vp_back : row.vp_front;
    const attrs = { class: `token ${status}${move ? " playable" : ""}`, title, dataset: { token: row.token, status } };
    const body = [h("strong", { text: row.token }), h("small", { text: `${vp} VP` })];
    return move ? h("button", { ...attrs, type: "button", onclick: () => ui.pick(move) }, ...body) : h("span", attrs, ...body);
  };
  return h("div", { class: "track", title: "the Aerodrome, column by column" }, columns.map((col) => h("div", { class: "track-column" }, col.rows.map(cell))));
}

function seatBox(state, agent, ui) {
  const v = state.view;
  const place = v.finish.indexOf(agent);
  const left = v.cards_left[agent];
  const marks = [];
  if (v.table && v.table.player === agent) marks.push("played the Squadron");
  if (v.passed.includes(agent)) marks.push("passed");
  if (v.armistice === agent) marks.push("took the Armistice");
  const target = state.legal.find((m) => m.text === `target ${agent}`); // a swap's opponent
  const plusOne = agent === state.agent ? state.legal.find((m) => m.text === "+1VP") : null;
  return h(
    "div",
    { class: `seat-box${agent === v.to_act ? " to-act" : ""}${agent === state.agent ? " me" : ""}`, dataset: { agent } },
    h("h4", {}, ui.label(agent), target ? h("button", { type: "button", class: "move name-player", onclick: () => ui.pick(target) }, "swap with") : null),
    h(
      "div",
      {},
      h("span", { class: "pill", text: `${fmt(v.vp[agent])} VP` }),
      place >= 0 ? h("span", { class: "pill winner", text: `out ${PLACES[place]}` }) : h("span", { class: "pill", text: `${left} Ace${left === 1 ? "" : "s"}` }),
      plusOne ? h("button", { type: "button", class: "move name-player", title: "take a +1VP token", onclick: () => ui.pick(plusOne) }, `take +1VP (×${v.plus_one[agent]})`) : h("span", { class: "pill", title: "+1VP tokens held", text: `+1VP ×${v.plus_one[agent]}` }),
      v.fractional[agent] ? h("span", { class: "pill", title: "fractional VP token", text: v.fractional[agent] }) : null,
    ),
    agent !== state.agent && place < 0 ? h("div", { class: "cards backs", title: `${left} Aces in hand` }, Array.from({ length: Math.min(left, 16) }, () => h("span", { class: "card back mini" }))) : null,
    marks.length ? h("div", { class: "muted", text: marks.join(" · ") }) : null,
    track(state, agent, ui),
  );
}

function fmt(x) {
  return Number.isInteger(x) ? String(x) : x.toFixed(2).replace(/0$/, "");
}

// ---- the hand -------------------------------------------------------------------

// The move a click on an Ace of value t can mean: a plain set holding it, or one
// step of a Squadron being built or a swap (add, wild, give).
function movesForAce(state, t) {
  return state.legal.filter((m) => {
    const words = m.text.split(" ");
    if (["add", "give", "wild"].includes(words[0])) return words[1] === t;
    return /^[G0-9 ]+$/.test(m.text) && words.includes(t);
  });
}

function hand(state, ui) {
  const v = state.view;
  const mine = state.legal.length > 0;
  const cards = v.hand.map((t) => {
    const moves = mine ? movesForAce(state, t) : [];
    return ace(t, {
      playable: moves.length > 0,
      onclick: moves.length
        ? () => {
            if (moves.length === 1) ui.pick(moves[0]);
            else ui.select((m) => moves.includes(m));
          }
        : () => {},
    });
  });
  const zone = h("div", { class: "zone my-hand" }, h("h4", { text: `Your hand (${state.agent}): ${v.hand.length} Aces` }), h("div", { class: "cards hand" }, cards.length ? cards : h("span", { class: "muted", text: "no Aces left" })));
  if (v.pending && (v.pending.tokens.length || v.pending.cards.length || v.pending.wild || v.pending.swap_token)) {
    const p = v.pending;
    const bits = [];
    if (p.swap_token) bits.push(`swap with ${p.swap_token}${p.target ? ` → ${ui.label(p.target)}` : ""}`);
    if (p.tokens.length) bits.push(`tokens ${p.tokens.join(" ")}`);
    if (p.wild) bits.push(`wild Ace ${p.wild}`);
    zone.append(h("div", { class: "pending" }, h("span", { class: "muted", text: `${p.swap_token ? "giving" : "building"}: ${bits.join(" · ")} ` }), h("span", { class: "cards" }, p.cards.map((c) => ace(c, { small: true })))));
  }
  if (mine && state.legal.length > 1) zone.append(h("p", { class: "muted", text: "Click an Ace to play it (where several Squadrons hold it, choose one of the buttons below); click a token on your Aerodrome to use, take or buy it." }));
  return zone;
}

export function draw(root, state, ui) {
  const v = state.view;
  const step = v.step && STEPS[v.step] ? ` (${STEPS[v.step]})` : "";
  root.append(
    h(
      "div",
      { class: "zone" },
      h("strong", { text: `Campaign ${v.campaign} of at most ${v.max_campaigns}` }),
      h("span", { text: ` · ${PHASES[v.phase] || v.phase}${step}` }),
      v.armistice ? [" ", h("span", { class: "pill", text: `Armistice taken by ${ui.label(v.armistice)}${v.over ? "" : ": the Great War is ending"}` })] : null,
      v.fractional_left.length ? h("span", { class: "muted", text: ` · fractional tokens left ${v.fractional_left.join(" ")}` }) : null,
    ),
    squadronZone(v, ui),
    h("div", { class: "seats-row" }, state.seats.map((s) => seatBox(state, s.agent, ui))),
    hand(state, ui),
    h("p", { class: "muted legend" }, "Aerodrome: ", h("span", { class: "token front", text: "held" }), " ", h("span", { class: "token back", text: "flipped" }), " ", h("span", { class: "token open", text: "open" }), " ", h("span", { class: "token locked", text: "out of reach" }), " (hover a token for its bonus)"),
  );
  if (v.finish.length) root.append(h("p", { class: "zone finish", text: `Finishing order this Campaign: ${v.finish.map((a, i) => `${PLACES[i]} ${ui.label(a)}`).join(", ")}` }));
  if (v.over) root.append(h("p", { class: "zone", text: `The Great War is over: ${v.winners.map(ui.label).join(", ")} won.` }));
  if (v.truncated) root.append(h("p", { class: "zone", text: `The Great War was cut short after ${v.max_campaigns} Campaigns: nobody won.` }));
}

// The score sheet: VP with what they are made of (the places are on the table).
export function scoreSheet(root, state, ui) {
  const v = state.view;
  const rows = v.aerodrome.reduce((acc, r) => ({ ...acc, [r.token]: r }), {});
  const agents = state.seats.map((s) => s.agent).sort((a, b) => v.vp[b] - v.vp[a]);
  root.append(
    h(
      "table",
      { class: "grid scores" },
      h("thead", {}, h("tr", {}, h("th", { text: "player" }), h("th", { text: "VP" }), h("th", { text: "made of", title: "tokens at the side they show (↓ flipped), +1VP and fractional tokens" }))),
      h(
        "tbody",
        {},
        agents.map((a) => {
          const tokens = Object.entries(held(v, a)).map(([t, side]) => `${t}${side === "back" ? "↓" : ""} ${side === "back" ? rows[t].vp_back : rows[t].vp_front}`);
          if (v.plus_one[a]) tokens.push(`+1VP×${v.plus_one[a]}`);
          if (v.fractional[a]) tokens.push(v.fractional[a]);
          return h("tr", { class: a === state.agent ? "mine" : null }, h("th", { text: ui.label(a) }), h("td", { text: fmt(v.vp[a]) }), h("td", { class: "muted", text: tokens.join(", ") || "-" }));
        }),
      ),
    ),
  );
}

export function describeHidden() {
  return "made a Pre-Campaign swap choice (face down)";
}
