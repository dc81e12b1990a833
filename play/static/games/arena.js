// The Arena table: the board drawn as SVG from the board graph in the view
// (every space on its square, coloured by kind, with its card or medal card,
// challenge number or gym, the one-way arrows and the entrance forks, the
// AstroPortals with the spaces in front of and past them, the Nebula Slide's
// two ends joined by the wormhole) and the fingerboards on it; the round, the
// supply and the medal stack; the challenge under way, the last challenge and
// encounter and the dice rolled since this seat last moved; every player's
// character, form, trophies, medals, maneuver and world cards, gym power cards
// and medal cards. Spaces are clickable where the move is a space ("to 17",
// "place 17", "corner 2"), cards where the move names the card. At setup each
// seat wishes for a character ("wish Spaceboardzerka"): the seat sees its own
// wish only, and only that the others have wished. Drawn from the seat's view
// alone.

import { h, svg } from "../dom.js";

const CELL = 66;
const PAD = 4;
const KIND_NAMES = { gym: "gym", maneuver: "maneuver", world: "world", portal: "AstroPortal", slide: "Nebula Slide", entrance: "entrance" };
const PHASES = {
  corner: "choosing a starting corner",
  pre_roll: "before the movement roll",
  move_spend: "spending trophies on the move",
  move: "moving",
  action: "the action",
  challenge_spend: "preparing a challenge roll",
  defend_spend: "preparing a defence roll",
  pick_card: "picking a card",
  pick_space: "picking a space",
  pick_player: "picking a player",
  pick_character: "picking a character",
  gym_card: "at a gym",
  wish: "wishing for characters",
};
const SEAT_COLOURS = 6;

function seatIndex(agent) {
  return Number(String(agent).split("_")[1]) % SEAT_COLOURS;
}

function short(name, size = 10) {
  if (!name) return "";
  return name.length <= size ? name : `${name.slice(0, size - 1)}…`;
}

// The move a click on space ``id`` means: go there, put something there, or
// start on that corner.
// start on that corner; or challenge for (or pick) the card lying there.
function spaceMove(state, space) {
  const here = state.view.players[state.agent].position === space.id;
  return state.legal.find(
    (m) =>
      m.text === `to ${space.id}` ||
      m.text === `place ${space.id}` ||
      (space.corner && m.text === `corner ${space.corner}`) ||
      (space.card && (m.text === `pick ${space.card}` || (here && m.text === `challenge ${space.kind} ${space.card}`))) ||
      (space.medal_card && here && m.text === "challenge medal") ||
      (space.gym && here && m.text === "train"),
  );
}

function centre(space) {
  const [row, col] = space.at;
  return [PAD + col * CELL + CELL / 2, PAD + row * CELL + CELL / 2];
}

// An arrow from one space towards the next, stopping at the edges of both squares.
function arrow(from, to, fork) {
  const [x1, y1] = centre(from);
  const [x2, y2] = centre(to);
  const len = Math.hypot(x2 - x1, y2 - y1) || 1;
  const cut = (CELL / 2 - 6) / Math.max(Math.abs(x2 - x1), Math.abs(y2 - y1)) * len;
  const ux = (x2 - x1) / len;
  const uy = (y2 - y1) / len;
  return svg("line", { class: fork ? "edge fork" : "edge", x1: x1 + ux * (cut - 4), y1: y1 + uy * (cut - 4), x2: x2 - ux * (cut - 2), y2: y2 - uy * (cut - 2), "marker-end": "url(#arena-arrow)" });
}

function spaceTitle(space, board) {
  const lines = [`space ${space.id}: ${KIND_NAMES[space.kind] || space.kind} (${space.region})`];
  if (space.kind === "gym" && !space.gym) lines.push(`corner ${space.corner}: its gym is dealt once every player has a character`);
  if (space.gym) lines.push(`corner ${space.corner}: ${space.gym}, ${space.gym_trophies} trophies, ${space.gym_power_cards} power cards`);
  if (space.card) lines.push(`${space.card}: challenge ${space.challenge}`);
  if (space.medal_card) lines.push(`medal card ${space.medal_card}: a die of ${space.challenge} or more`);
  if (space.entrance) lines.push(`entrance ${space.entrance}, its space ${space.step}`);
  if (space.id === board.portal_front) lines.push("in front of the AstroPortals");
  if (space.id === board.portal_exit_outside) lines.push("past the AstroPortals (outside)");
  if (space.id === board.portal_exit_inside) lines.push("past the AstroPortals (inside)");
  if (board.slide_ends.includes(space.id)) lines.push("an end of the Nebula Slide: go through to the other end");
  lines.push(`leads to ${space.next.join(", ")}`);
  if (space.players.length) lines.push(`here: ${space.players.join(", ")}`);
  return lines.join("\n");
}

function spaceLabel(space, board) {
  if (space.kind === "gym" && !space.gym) return ["Gym", "after wishes"];  // dealt once every seat has a character
  if (space.kind === "gym") return [short(space.gym, 11), `${space.gym_trophies} tr · ${space.gym_power_cards} cards`];
  if (space.card) return [short(space.card), `need ${space.challenge}`];
  if (space.medal_card) return [short(space.medal_card), `medal ${space.challenge}+`];
  if (space.kind === "portal") return [`Portal ${board.portals.indexOf(space.id) + 1}`, ""];
  if (space.kind === "slide") return ["Slide", "wormhole"];
  if (space.kind === "entrance") return [`Entr. ${space.entrance}${space.step}`, ""];
  return ["", ""];
}

function drawSpace(state, space, board, ui) {
  const [row, col] = space.at;
  const x = PAD + col * CELL;
  const y = PAD + row * CELL;
  const move = ui.playing ? spaceMove(state, space) : null;
  const marks = [];
  if (space.id === board.portal_front) marks.push("front");
  if (space.id === board.portal_exit_outside || space.id === board.portal_exit_inside) marks.push("past");
  const [top, bottom] = spaceLabel(space, board);
  const group = svg(
    "g",
    {
      class: `space k-${space.kind}${space.card ? " has-card" : ""}${space.medal_card ? " has-medal" : ""}${move ? " playable" : ""}${marks.length ? ` ${marks.join(" ")}` : ""}`,
      "data-space": String(space.id),
      "data-move": move ? move.text : null,
      onclick: move ? () => ui.pick(move) : null,
    },
    svg("title", { text: spaceTitle(space, board) + (move ? `\nclick: ${move.text}` : "") }),
    svg("rect", { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, rx: 7 }),
    svg("text", { class: "sid", x: x + 6, y: y + 14, text: String(space.id) }),
    space.challenge !== null && space.kind !== "gym" ? svg("text", { class: "need", x: x + CELL - 6, y: y + 14, "text-anchor": "end", text: String(space.challenge) }) : null,
    svg("text", { class: "label", x: x + CELL / 2, y: y + 34, "text-anchor": "middle", text: top }),
    svg("text", { class: "label small", x: x + CELL / 2, y: y + 47, "text-anchor": "middle", text: bottom }),
  );
  space.players.forEach((agent, i) => {
    const cx = x + 12 + (i % 4) * 14;
    const cy = y + CELL - 11 - Math.floor(i / 4) * 14;
    group.append(
      svg(
        "g",
        { class: `piece p${seatIndex(agent)}${agent === state.view.to_act ? " to-act" : ""}${agent === state.agent ? " me" : ""}`, "data-agent": agent },
        svg("circle", { cx, cy, r: 6.5 }),
        svg("text", { x: cx, y: cy + 3.5, "text-anchor": "middle", text: agent.split("_")[1] }),
      ),
    );
  });
  return group;
}

function wormhole(board, byId) {
  const [a, b] = board.slide_ends.map((id) => byId.get(id));
  if (!a || !b) return null;
  const [x1, y1] = centre(a);
  const [x2, y2] = centre(b);
  const mx = (x1 + x2) / 2;
  const my = (y1 + y2) / 2;
  return svg(
    "g",
    { class: "wormhole" },
    svg("title", { text: `the Nebula Slide: spaces ${a.id} and ${b.id}, joined by the wormhole under the arena` }),
    svg("path", { d: `M ${x1} ${y1} Q ${mx} ${my - CELL * 1.6} ${x2} ${y2}` }),
    svg("path", { d: `M ${x1} ${y1} Q ${mx} ${my + CELL * 1.6} ${x2} ${y2}` }),
    svg("text", { x: mx, y: my + 4, "text-anchor": "middle", text: "Nebula Slide wormhole" }),
  );
}

function boardSvg(state, ui) {
  const board = state.view.board;
  const spaces = board.spaces;
  const byId = new Map(spaces.map((s) => [s.id, s]));
  const rows = 1 + Math.max(...spaces.map((s) => s.at[0]));
  const cols = 1 + Math.max(...spaces.map((s) => s.at[1]));
  const edges = [];
  for (const space of spaces) {
    for (const next of space.next) {
      const to = byId.get(next);
      if (to) edges.push(arrow(space, to, space.next.length > 1));
    }
  }
  return svg(
    "svg",
    { class: "arena-board", viewBox: `0 0 ${cols * CELL + 2 * PAD} ${rows * CELL + 2 * PAD}`, role: "img", "aria-label": "the Arena board" },
    svg("defs", {}, svg("marker", { id: "arena-arrow", viewBox: "0 0 10 10", refX: "8", refY: "5", markerWidth: "6", markerHeight: "6", orient: "auto-start-reverse" }, svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }))),
    wormhole(board, byId),
    edges,
    spaces.map((s) => drawSpace(state, s, board, ui)),
  );
}

// On a narrow screen the board scrolls inside its frame (its labels stay
// readable): bring the spaces that matter now into view, the highlighted ones
// where the seat is to choose one, else the piece of the player on turn. The
// board is drawn anew with every state, so without this it would jump back to
// its left edge after each move.
function centreBoard(wrap, state) {
  if (!wrap || !wrap.isConnected || wrap.scrollWidth <= wrap.clientWidth) return;
  const targets = [...wrap.querySelectorAll(".space.playable")];
  if (!targets.length) targets.push(...wrap.querySelectorAll(`.piece[data-agent="${state.view.to_act || state.view.on_turn}"]`));
  if (!targets.length) return;
  const frame = wrap.getBoundingClientRect();
  let boxes = targets.map((t) => t.getBoundingClientRect());
  const span = (bs) => [Math.min(...bs.map((b) => b.left)), Math.max(...bs.map((b) => b.right))];
  if (span(boxes)[1] - span(boxes)[0] > frame.width) boxes = boxes.slice(0, 1); // too far apart: the first
  const [left, right] = span(boxes);
  wrap.scrollLeft += (left + right) / 2 - (frame.left + frame.right) / 2;
}

// ---- the players and the dice ---------------------------------------------------

function cardMove(state, name, owner) {
  return state.legal.find((m) => m.text === `pick ${name}` || (owner && m.text.startsWith(`challenge ${owner} `) && m.text.endsWith(` ${name}`)));
}

function cardChip(state, name, kind, owner, ui, extra = "") {
  const move = ui.playing ? cardMove(state, name, owner) : null;
  const attrs = { class: `chip card-chip ${kind}${extra}${move ? " playable" : ""}`, title: move ? `click: ${move.text}` : `${kind} ${name}`, dataset: { card: name } };
  return move ? h("button", { ...attrs, type: "button", onclick: () => ui.pick(move) }, name) : h("span", attrs, name);
}

// A gym power card or medal card a player holds: clickable for its holder where
// the move uses it ("use Halfpipe Hall", "add Stunt Die").
function useChip(state, agent, text, kind, label, ui) {
  const move = ui.playing && agent === state.agent ? state.legal.find((m) => m.text === text) : null;
  const attrs = { class: `chip ${kind}${move ? " playable" : ""}`, title: move ? `click: ${text}` : label };
  return move ? h("button", { ...attrs, type: "button", onclick: () => ui.pick(move) }, label) : h("span", attrs, label);
}

// A player's character line; before the wishes are settled, whether it has
// wished (and, for the viewing seat alone, what for).
function identity(v, agent, p) {
  if (!p.character) {
    if (agent === v.agent && v.wish) return `no character yet · wished for ${v.wish}`;
    return `no character yet · ${p.wished ? "has wished (hidden)" : "to wish"}${p.form ? ` · ${p.form}` : ""}`;
  }
  return `${p.character} · ${p.form} · ${p.bonus.kind} +${p.bonus.amount}${p.position >= 0 ? ` · on ${p.position}` : ""}`;
}

// The setup's character wish: one button per character this seat may wish for.
function wishZone(state, ui) {
  const moves = state.legal.filter((m) => m.text.startsWith("wish "));
  if (!ui.playing || !moves.length) return null;
  return h(
    "div",
    { class: "zone wishes" },
    h("h4", { text: "Wish for a character" }),
    h("p", { class: "muted", text: "The others see that you wished, not what for, until everyone has wished; players wishing for the same character roll a d6 for it, and the losers wish again." }),
    h("div", { class: "chips" }, moves.map((m) => h("button", { type: "button", class: "move", onclick: () => ui.pick(m) }, m.text.slice(5)))),
  );
}

function playerBox(state, agent, ui) {
  const v = state.view;
  const p = v.players[agent];
  const status = [];
  if (agent === v.on_turn) status.push("on turn");
  if (v.challenge && v.challenge.defender === agent) status.push("defending");
  if (p.lost_turns) status.push(`loses ${p.lost_turns} turn(s)`);
  if (p.upside_down) status.push("upside down");
  if (p.dark_matter_turns) status.push(`dark matter ${p.dark_matter_turns}`);
  if (p.first_turn) status.push("first turn");
  const prep = p.roll_prep;
  if (prep.bonus || prep.gold_reading || prep.extra_dice || prep.medal_dice.length) {
    status.push(`next roll: ${[prep.bonus ? `+${prep.bonus}` : "", prep.gold_reading ? "gold reading" : "", prep.extra_dice ? `+${prep.extra_dice} dice` : "", ...prep.medal_dice].filter(Boolean).join(", ")}`);
  }
  const defended = new Set(p.defended_worlds);
  const named = ui.playing ? state.legal.find((m) => m.text === agent) : null; // an effect names a player
  return h(
    "div",
    { class: `seat-box${agent === v.to_act ? " to-act" : ""}${agent === state.agent ? " me" : ""}`, dataset: { agent } },
    h("h4", {}, h("span", { class: `dot p${seatIndex(agent)}` }), ` ${ui.label(agent)}`, named ? h("button", { type: "button", class: "move name-player", onclick: () => ui.pick(named) }, `choose ${agent}`) : null),
    h("div", { class: "muted", text: identity(v, agent, p) }),
    h(
      "div",
      {},
      h("span", { class: "pill", text: `${p.worlds.length} world${p.worlds.length === 1 ? "" : "s"}` }),
      h("span", { class: "pill", text: `${p.trophies} troph${p.trophies === 1 ? "y" : "ies"}${p.star_cluster_trophies ? ` (+${p.star_cluster_trophies} star)` : ""}` }),
      p.medals.map((m) => h("span", { class: `pill medal ${m}`, text: m })),
    ),
    p.maneuvers.length ? h("div", { class: "chips" }, p.maneuvers.map((c) => cardChip(state, c, "maneuver", agent === state.agent ? null : agent, ui))) : null,
    p.worlds.length ? h("div", { class: "chips" }, p.worlds.map((c) => cardChip(state, c, "world", agent === state.agent ? null : agent, ui, defended.has(c) ? " defended" : ""))) : null,
    p.gym_powers.length || p.medal_cards.length ? h("div", { class: "chips" }, p.gym_powers.map((g) => useChip(state, agent, `use ${g}`, "power", `power: ${g}`, ui)), p.medal_cards.map((m) => useChip(state, agent, `add ${m}`, "medal-card", `medal card: ${m}`, ui))) : null,
    status.length ? h("div", { class: "muted", text: status.join(" · ") }) : null,
  );
}

// A die showing its result (and its kind, d6 or d8, where the view gives it).
function die(result, sides = null) {
  if (!sides) return h("span", { class: "die" }, String(result));
  return h("span", { class: `die d${sides}`, title: `d${sides}` }, String(result), h("small", { text: `d${sides}` }));
}

function challengeZone(v, ui) {
  const zone = h("div", { class: "zone challenge" });
  const c = v.challenge;
  if (c) {
    const against = c.defender ? `${ui.label(c.defender)}'s ${c.item}` : c.item;
    zone.append(h("h4", { text: `Challenge under way: ${c.kind}` }), h("p", { text: `${ui.label(c.challenger)} challenges for ${against}${c.need !== null ? `, needs ${c.need}` : ": the higher total wins"}; trophies spent ${c.spent[0]} / ${c.spent[1]}` }));
  }
  const lc = v.last_challenge;
  if (lc) {
    const against = lc.defender ? `${ui.label(lc.defender)}'s ${lc.item}` : lc.item;
    zone.append(
      h("h4", { text: "Last challenge" }),
      h(
        "div",
        { class: "dice-row" },
        h("span", { text: `${ui.label(lc.challenger)} for ${against} (${lc.kind}):` }),
        lc.dice.map((d) => die(d)),
        h("strong", { text: `= ${lc.total}` }),
        lc.defender_dice ? [h("span", { text: " against " }), ...lc.defender_dice.map((d) => die(d)), h("strong", { text: `= ${lc.defender_total}` })] : null,
        lc.need !== null ? h("span", { text: ` needs ${lc.need}` }) : null,
        h("span", { class: lc.success ? "pill winner" : "pill", text: lc.success ? "won" : "failed" }),
      ),
    );
  }
  const e = v.last_encounter;
  if (e) zone.append(h("h4", { text: "Last encounter" }), h("p", { text: `${e.table}${e.table_roll ? ` (table ${e.table_roll})` : ""}, roll ${e.roll}: ${e.result}` }));
  if (v.last_rolls.length) {
    zone.append(h("h4", { text: "Dice since your last move" }), h("div", { class: "dice-row" }, v.last_rolls.map((r) => h("span", { class: "roll", title: `${r.player}: ${r.purpose}` }, h("span", { class: `dot p${seatIndex(r.player)}` }), die(r.result, r.die.slice(1))))));
  }
  return zone.childNodes.length ? zone : null;
}

export function draw(root, state, ui) {
  const v = state.view;
  const phase = PHASES[v.phase] || v.phase;
  const supply = v.medal_supply;
  root.append(
    h(
      "div",
      { class: "zone" },
      h("strong", { text: `Round ${Math.min(v.round + 1, v.max_rounds)} of ${v.max_rounds}` }),
      h("span", { text: v.over ? " · game over" : ` · ${ui.label(v.on_turn)}'s turn · ${phase}${v.steps_left ? ` · ${v.steps_left} of ${v.move_total} steps left` : ""}` }),
      v.task_text ? h("div", { class: "rule", text: `${v.task_text}${v.task_card ? `: ${v.task_card}` : ""}${v.task_player ? `: ${ui.label(v.task_player)}` : ""}` }) : null,
      h("div", { class: "muted", text: `supply: ${v.supply} trophies · medals bronze ${supply.bronze}, silver ${supply.silver}, gold ${supply.gold} · medal stack ${v.medal_stack} face down` }),
    ),
    h("div", { class: "board-wrap" }, boardSvg(state, ui)),
  );
  centreBoard(root.querySelector(".board-wrap"), state);
  const wishes = wishZone(state, ui);
  if (wishes) root.append(wishes);
  const challenge = challengeZone(v, ui);
  if (challenge) root.append(challenge);
  root.append(h("div", { class: "seats-row" }, state.seats.map((s) => playerBox(state, s.agent, ui))));
  if (ui.playing && state.legal.length > 1) root.append(h("p", { class: "muted", text: "Click a highlighted space on the board, a highlighted card or a player's button where the move is one (or a move button below)." }));
  if (v.over) root.append(h("p", { class: "zone", text: `Game over (${v.win_reason}): ${v.winners.map(ui.label).join(", ")} won.` }));
}

export function scoreSheet(root, state, ui) {
  const v = state.view;
  const agents = state.seats.map((s) => s.agent).sort((a, b) => v.players[b].worlds.length - v.players[a].worlds.length);
  root.append(
    h(
      "table",
      { class: "grid scores" },
      h("thead", {}, h("tr", {}, h("th", { text: "player" }), h("th", { text: "worlds", title: "world cards held (permanently defended)" }), h("th", { text: "man.", title: "maneuver cards held" }), h("th", { text: "tr.", title: "trophies" }))),
      h(
        "tbody",
        {},
        agents.map((a) => {
          const p = v.players[a];
          return h("tr", { class: a === state.agent ? "mine" : null }, h("th", { text: ui.label(a) }), h("td", { text: `${p.worlds.length}${p.defended_worlds.length ? ` (${p.defended_worlds.length})` : ""}` }), h("td", { text: String(p.maneuvers.length) }), h("td", { text: String(p.trophies) }));
        }),
      ),
    ),
  );
}

// The one move the Arena makes face down: a character wish at setup.
export function describeHidden() {
  return "wished for a character (face down until everyone has wished)";
}
