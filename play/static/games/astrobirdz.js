// The Astrobirdz table: the trump card and its rule, the trick in play and the
// last completed trick, every seat's guess, tricks, score, Berzerkerbird and
// the AstroBoard, the hand by colour (cards clickable where the move is a
// card), and the tally sheet turn by turn. Drawn from the seat's view alone.

import { clear, h } from "../dom.js";

const COLOURS = ["R", "O", "Y", "G", "B", "P"];
const COLOUR_NAMES = { R: "red", O: "orange", Y: "yellow", G: "green", B: "blue", P: "pink" };
const PHASES = {
  choose_trump: "choosing the trump colour",
  discard: "discarding",
  pass_right: "passing cards right",
  pass_left: "passing cards left",
  surfette_partner: "Surfette picks a trade partner",
  surfette_cards: "Surfette picks cards to trade",
  nitro_peek: "Nitro picks a hand to look at",
  guess: "guessing tricks",
  play: "playing tricks",
  astroboard: "the AstroBoard holder picks a partner",
  astroboard_trick: "the AstroBoard holder picks a trick",
  over: "game over",
};
const TALLY_ITEMS = [
  ["trick_points", "tricks"],
  ["exact", "exact guess"],
  ["highest", "highest guess"],
  ["astroboard", "AstroBoard"],
  ["turbo", "Turbo"],
  ["card_points", "card points"],
  ["berzerkerbird", "Berzerkerbird"],
  ["first_last", "first/last trick"],
  ["penalty", "penalty"],
  ["total", "turn total"],
];

function card(text, opts = {}) {
  const colour = text[0];
  const attrs = {
    class: `card c-${colour}${opts.small ? " small" : ""}${opts.playable ? " playable" : ""}`,
    title: `${COLOUR_NAMES[colour] || ""} ${text.slice(1)}`,
    dataset: { card: text },
  };
  if (opts.onclick) return h("button", { ...attrs, type: "button", onclick: opts.onclick }, text.slice(1), h("small", { text: COLOUR_NAMES[colour] }));
  return h("span", attrs, text.slice(1), h("small", { text: COLOUR_NAMES[colour] }));
}

function played(plays, ui, winner = null) {
  return h(
    "div",
    { class: "cards" },
    plays.map((p) =>
      h("div", { class: "played" }, card(p.card), h("div", { class: p.player === winner ? "pill winner" : "pill", text: `${ui.label(p.player)}${p.player === winner ? " ★" : ""}` })),
    ),
  );
}

function moveForCard(state, text) {
  return state.legal.find((m) => m.text === text || m.text === `choose ${text}`);
}

function handByColour(state, ui) {
  const view = state.view;
  const groups = COLOURS.map((c) => view.hand.filter((t) => t[0] === c)).filter((g) => g.length);
  if (!groups.length) return h("p", { class: "muted", text: "no cards in hand" });
  return h(
    "div",
    { class: "cards hand" },
    groups.map((group) =>
      h("div", { class: "cards" }, group.map((t) => {
        const move = moveForCard(state, t);
        return card(t, move ? { playable: true, onclick: () => ui.pick(move) } : { onclick: () => {} });
      })),
    ),
  );
}

function seatBox(state, agent, ui) {
  const v = state.view;
  const guess = v.guesses[agent];
  const bird = v.berzerkerbirdz[agent];
  const marks = [];
  if (agent === v.dealer) marks.push("dealer");
  if (agent === v.astroboard) marks.push("AstroBoard");
  if (v.peeked && v.peeked.player === agent) marks.push("hand seen by Nitro");
  if (v.surfette_trade && v.surfette_trade.partner === agent) marks.push("Surfette's partner");
  const known = v.known_cards && v.known_cards[agent];
  return h(
    "div",
    { class: `seat-box${agent === v.to_act ? " to-act" : ""}${agent === state.agent ? " me" : ""}`, dataset: { agent } },
    h("h4", { text: ui.label(agent) }),
    h("div", {}, h("span", { class: "pill", text: `${v.scores[agent]} pts` }), h("span", { class: "pill", text: `guess ${guess === null ? "-" : guess}` }), h("span", { class: "pill", text: `won ${v.tricks_won[agent]}` })),
    bird ? h("div", { class: "pill bird", title: "Berzerkerbird", text: `bird: ${bird}` }) : null,
    marks.length ? h("div", { class: "muted", text: marks.join(" · ") }) : null,
    known && known.length ? h("div", {}, h("span", { class: "muted", text: "you know: " }), h("span", { class: "cards" }, known.map((t) => card(t, { small: true })))) : null,
  );
}

export function draw(root, state, ui) {
  const v = state.view;
  remember(state, ui);
  const trumpName = v.trump_colour ? COLOUR_NAMES[v.trump_colour] : "being chosen";
  root.append(
    h("div", { class: "zone" }, h("strong", { text: `Turn ${v.turn} of ${v.turns}` }), h("span", { text: ` · ${v.hand_size} trick${v.hand_size === 1 ? "" : "s"} · dealer ${ui.label(v.dealer)} · ${PHASES[v.phase] || v.phase}` })),
    h(
      "div",
      { class: "zone trump" },
      h("h4", { text: "Trump" }),
      h("div", { class: "cards" }, card(v.trump_card), h("div", { class: "rule" }, h("strong", { text: `${v.trump_rule.title} · trump colour ${trumpName}` }), h("div", { text: v.trump_rule.text }))),
    ),
  );
  const trick = h("div", { class: "zone trick" }, h("h4", { text: v.led_colour ? `Trick in play (led ${COLOUR_NAMES[v.led_colour]})` : "Trick in play" }));
  trick.append(v.trick.length ? played(v.trick, ui) : h("p", { class: "muted", text: "no card played yet" }));
  root.append(trick);
  if (v.previous_trick && v.previous_trick.length) {
    const winner = v.trick_winners[v.trick_winners.length - 1];
    root.append(h("div", { class: "zone last-trick" }, h("h4", { text: `Last trick: won by ${ui.label(winner)}` }), played(v.previous_trick, ui, winner)));
  }
  root.append(h("div", { class: "seats-row" }, state.seats.map((s) => seatBox(state, s.agent, ui))));
  const hand = h("div", { class: "zone my-hand" }, h("h4", { text: `Your hand (${state.agent})` }), handByColour(state, ui));
  if (v.to_choose) hand.append(h("p", { text: `Choose ${v.to_choose} more card(s): click them.` }));
  if (v.chosen && v.chosen.length) hand.append(h("div", {}, h("span", { class: "muted", text: "chosen: " }), h("span", { class: "cards" }, v.chosen.map((t) => card(t, { small: true })))));
  if (v.discarded && v.discarded.length) hand.append(h("div", {}, h("span", { class: "muted", text: "discarded: " }), h("span", { class: "cards" }, v.discarded.map((t) => card(t, { small: true })))));
  if (v.surfette_trade) hand.append(h("p", { class: "muted", text: `Surfette trades ${v.surfette_trade.cards} card(s) with ${ui.label(v.surfette_trade.partner)}` }));
  if (v.astroboard_transfer) hand.append(h("p", { class: "muted", text: `AstroBoard power: ${ui.label(v.astroboard_transfer.from)} → ${ui.label(v.astroboard_transfer.to)}` }));
  root.append(hand);
  if (v.over) root.append(h("p", { class: "zone", text: `Game over: ${v.winners.map(ui.label).join(", ")} won.` }));
}

// The tally sheet: each finished turn's points item by item, kept from the
// views this seat was sent (``last_turn``) and added up per player.
function remember(state, ui) {
  const v = state.view;
  if (!v.last_turn) return;
  const turn = v.over ? v.turn : v.turn - 1;
  const tally = ui.history.data;
  if (!tally[turn]) {
    tally[turn] = v.last_turn;
    ui.history.save();
  }
}

export function scoreSheet(root, state, ui) {
  const v = state.view;
  const tally = ui.history.data;
  const agents = state.seats.map((s) => s.agent);
  const turns = Object.keys(tally).map(Number).sort((a, b) => a - b);
  root.append(
    h(
      "table",
      { class: "grid tally" },
      h("thead", {}, h("tr", {}, h("th", { text: "turn" }), agents.map((a) => h("th", { text: a.replace("player_", "p") })))),
      h(
        "tbody",
        {},
        turns.map((t) => h("tr", {}, h("th", { text: String(t) }), agents.map((a) => h("td", { title: describeTurn(tally[t][a]), text: tally[t][a] ? `${tally[t][a].guess}/${tally[t][a].tricks} ${signed(tally[t][a].total)}` : "-" })))),
        h("tr", { class: "total" }, h("th", { text: "score" }), agents.map((a) => h("td", { text: String(v.scores[a]) }))),
      ),
    ),
  );
  const last = v.last_turn && v.last_turn[state.agent];
  if (last) root.append(h("p", { class: "muted", text: `Your last turn: ${describeTurn(last)}` }));
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function describeTurn(item) {
  if (!item) return "";
  const parts = TALLY_ITEMS.filter(([key]) => item[key]).map(([key, label]) => `${label} ${signed(key === "penalty" ? -item[key] : item[key])}`);
  const rules = [];
  if (item.multiplier && item.multiplier !== 1) rules.push(`x${item.multiplier}`);
  return `guessed ${item.guess}, won ${item.tricks}: ${parts.join(", ") || "no points"}${rules.length ? ` (${rules.join(", ")})` : ""}`;
}

export function describeHidden(entry) {
  return "chose a card (face down)";
}
