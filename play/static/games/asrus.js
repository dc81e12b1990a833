// The Asrus table: the destination, the deposit, every seat's points as
// stones, specials held and whether it has committed, the revealed last turn
// (every play, who won and what moved) and the end-of-round lottery, and the
// hand: click a number card, then a special (or the card again to play it
// alone). Drawn from the seat's view alone.

import { h } from "../dom.js";

const NAMES = ["", "Sun", "Aries", "Taurus", "Gemini", "Cancer", "Leo", "Virgo", "Earth", "Libra", "Scorpio", "Sagittarius", "Capricorn", "Aquarius", "Pisces", "Moon"];
const SPECIALS = { C: "Close", B: "Blackhole", D: "Double", M: "Majority", R: "Retrograde", J: "Joker", X: "Explosion", T: "Triple" };
const KINDS = { majority: "Majority", closest: "closest unique distance", farthest: "farthest unique distance (Retrograde)", draw: "a draw", explosion: "an Explosion" };

const picked = { move: -1, number: null, special: null };

function numberCard(text, opts = {}) {
  const attrs = { class: `card number${opts.small ? " small" : ""}${opts.playable ? " playable" : ""}${opts.picked ? " picked" : ""}`, title: NAMES[Number(text)], dataset: { card: text } };
  const body = [text, h("small", { text: NAMES[Number(text)] || "" })];
  return opts.onclick ? h("button", { ...attrs, type: "button", onclick: opts.onclick }, ...body) : h("span", attrs, ...body);
}

function specialCard(letter, opts = {}) {
  const attrs = { class: `card special${opts.playable ? " playable" : ""}${opts.picked ? " picked" : ""}`, title: SPECIALS[letter], dataset: { card: letter } };
  const body = [letter, h("small", { text: SPECIALS[letter] || "" })];
  return opts.onclick ? h("button", { ...attrs, type: "button", onclick: opts.onclick }, ...body) : h("span", attrs, ...body);
}

// "9+J:M" -> {number: "9", special: "J"}; "9+M" -> {number: "9", special: "M"}
function parts(text) {
  const [number, extra] = text.split("+");
  return { number, special: extra ? extra[0] : null };
}

function stones(counts) {
  const dots = [];
  for (const colour of ["red", "green", "blue"]) for (let i = 0; i < counts[colour]; i += 1) dots.push(h("span", { class: `stone ${colour}` }));
  return h("span", { class: "stones", title: `${counts.red} red, ${counts.green} green, ${counts.blue} blue` }, dots);
}

function choose(state, ui) {
  const wanted = state.legal.filter((m) => {
    const p = parts(m.text);
    return (picked.number === null || p.number === picked.number) && (picked.special === null || p.special === picked.special);
  });
  if (picked.number !== null && wanted.length === 1 && (picked.special !== null || state.legal.filter((m) => parts(m.text).number === picked.number).length === 1)) {
    ui.pick(wanted[0]);
    return;
  }
  const filter = (m) => wanted.includes(m);
  ui.select(filter);
}

function hand(state, ui) {
  const v = state.view;
  const mine = state.legal.length > 0;
  if (picked.move !== state.move_number) Object.assign(picked, { move: state.move_number, number: null, special: null });
  const numbers = v.hand.map((t) => {
    const playable = mine && state.legal.some((m) => parts(m.text).number === t);
    return numberCard(t, {
      playable,
      picked: picked.number === t,
      onclick: playable
        ? () => {
            if (picked.number === t && picked.special === null) {
              const alone = state.legal.find((m) => m.text === t);
              if (alone) return ui.pick(alone);
            }
            picked.number = t;
            choose(state, ui);
          }
        : () => {},
    });
  });
  const specials = v.specials.map((s) => {
    const playable = mine && state.legal.some((m) => parts(m.text).special === s);
    return specialCard(s, {
      playable,
      picked: picked.special === s,
      onclick: playable
        ? () => {
            picked.special = picked.special === s ? null : s;
            choose(state, ui);
          }
        : () => {},
    });
  });
  return h(
    "div",
    { class: "zone my-hand" },
    h("h4", { text: `Your hand (${state.agent})` }),
    h("div", { class: "cards" }, numbers.length ? numbers : h("span", { class: "muted", text: "no number cards left" })),
    h("div", { class: "cards specials" }, specials.length ? specials : h("span", { class: "muted", text: "no special cards" })),
    mine ? h("p", { class: "muted", text: "Click a number card, then a special to add it (or the card again to play it alone)." }) : null,
  );
}

function lastTurn(v, ui) {
  const last = v.last_turn;
  if (!last) return null;
  const outcome = last.winner ? `${ui.label(last.winner)} wins by ${KINDS[last.kind] || last.kind} (distance ${last.distance})` : `no winner: ${KINDS[last.kind] || last.kind}`;
  return h(
    "div",
    { class: "zone last-turn" },
    h("h4", { text: `Last turn: destination ${last.destination}` }),
    h(
      "div",
      { class: "cards" },
      Object.entries(last.plays).map(([agent, play]) => {
        const p = parts(play);
        const change = last.points_change[agent];
        return h(
          "div",
          { class: "played" },
          h("div", { class: "cards" }, numberCard(p.number, { small: true }), play.includes("+") ? specialCard(play.split("+")[1].replace("J:", ""), {}) : null),
          h("div", { class: agent === last.winner ? "pill winner" : "pill", text: `${ui.label(agent)} ${change > 0 ? "+" : ""}${change}` }),
        );
      }),
    ),
    h("p", { text: `${outcome}${last.blackhole ? "; Blackhole: the take goes to the deposit" : ""}; deposit ${last.deposit_before} → ${last.deposit_after}` }),
  );
}

function lottery(v, ui) {
  const lot = v.lottery;
  if (!lot) return null;
  const who = lot.winners.map(ui.label).join(", ");
  return h("p", { class: "zone", text: `End-of-round lottery: ${who} take${lot.winners.length > 1 ? "" : "s"} ${lot.share}${lot.winners.length > 1 ? " each" : ""} of ${lot.amount}.` });
}

export function draw(root, state, ui) {
  const v = state.view;
  root.append(
    h(
      "div",
      { class: "zone destination" },
      h("h4", { text: `Round ${v.round} · turn ${v.turn}` }),
      h("div", { class: "cards" }, numberCard(v.destination), h("div", { class: "rule" }, h("strong", { text: `destination ${v.destination} (${NAMES[Number(v.destination)]})` }), h("div", { text: v.destination_card ? "a card on the table" : "a fixed number, no card" }), h("div", { text: `deposit ${v.deposit}` }))),
    ),
    h(
      "div",
      { class: "seats-row" },
      state.seats.map((s) =>
        h(
          "div",
          { class: `seat-box${s.agent === v.to_act ? " to-act" : ""}${s.agent === state.agent ? " me" : ""}`, dataset: { agent: s.agent } },
          h("h4", { text: ui.label(s.agent) }),
          h("div", {}, h("span", { class: "pill", text: `${v.points[s.agent]} pts` }), stones(v.stones[s.agent])),
          h("div", { class: "muted", text: `${v.specials_held[s.agent]} special(s)${v.committed.includes(s.agent) ? " · committed" : ""}` }),
        ),
      ),
    ),
  );
  const turn = lastTurn(v, ui);
  if (turn) root.append(turn);
  const lot = lottery(v, ui);
  if (lot) root.append(lot);
  root.append(hand(state, ui));
  if (v.revealed_this_round.length) {
    root.append(h("div", { class: "zone" }, h("h4", { text: "Revealed this round" }), h("div", { class: "cards" }, v.revealed_this_round.map((t) => numberCard(t, { small: true })))));
  }
  if (v.over) root.append(h("p", { class: "zone", text: "Game over." }));
}

export function describeHidden() {
  return "committed a card (face down)";
}
