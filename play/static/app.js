// The page of `flockgym serve`: the new-game form, the table, the move log, the
// score sheet, the end-of-game summary and the replays of saved games.
//
// It knows no game: the server sends each seat its own view and legal moves,
// a drawn table (games/<game>.js) draws the view where one exists, and the
// generic renderer (generic.js) draws any other env.

import { clear, h, seatLabel } from "./dom.js";
import { drawMoves, drawView, findScores, renderValue } from "./generic.js";
import { renderMarkdown } from "./markdown.js";

const params = new URLSearchParams(location.search);
const FAST = params.has("fast");
const GENERIC = params.has("generic"); // ?generic: the generic renderer even where a table is drawn
const BOT_DELAY = FAST ? 30 : 700; // ms between two bot moves, so each can be seen
const FORCED_DELAY = FAST ? 30 : 900; // ms before a forced single move is played
const STORE_KEY = "flockgym.game";

const $ = (id) => document.getElementById(id);
const S = {
  envs: [],
  game: null, // {id, env, tokens: {agent: token}, setup}
  shown: null, // the human seat whose view is on screen
  state: null, // the last state that seat was sent
  module: null,
  keys: new Map(),
  filter: null,
  timer: null,
  announced: -1,
  history: {}, // per game: what a drawn table keeps from earlier views (e.g. a tally)
};

// ---- the API -------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function api(method, path, body = undefined, token = undefined) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["X-Seat-Token"] = token;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new ApiError(response.status, data.error || response.statusText);
  return data;
}

function showError(where, err) {
  const box = $(where);
  clear(box).append(h("p", { class: "error", role: "alert", text: err.message || String(err) }));
}

function clearError(where) {
  clear($(where));
}

// ---- screens -------------------------------------------------------------------

function show(screen) {
  for (const id of ["setup", "play", "saved"]) $(id).hidden = id !== screen;
  for (const button of document.querySelectorAll("nav button")) {
    button.classList.toggle("active", button.dataset.go === screen);
  }
  if (screen !== "play") stopTimer();
}

function stopTimer() {
  if (S.timer) clearTimeout(S.timer);
  S.timer = null;
}

function later(ms, fn) {
  stopTimer();
  S.timer = setTimeout(() => {
    S.timer = null;
    fn();
  }, ms);
}

// ---- the new-game form ---------------------------------------------------------

function envOf(id) {
  return S.envs.find((e) => e.id === id);
}

function optionInput(option) {
  const id = `opt-${option.name}`;
  const title = `${option.doc}${option.allowed ? ` (allowed: ${option.allowed})` : ""}`;
  let input;
  if (option.choices) {
    input = h(
      "select",
      { id, name: option.name, title },
      option.choices.map((choice) =>
        h("option", { value: JSON.stringify(choice), selected: JSON.stringify(choice) === JSON.stringify(option.default) }, choice === null ? "none" : String(choice)),
      ),
    );
  } else {
    const placeholder = option.default === null ? "none" : JSON.stringify(option.default);
    input = h("input", { id, name: option.name, title, placeholder, autocomplete: "off" });
  }
  return h("label", { class: "option", for: id }, h("span", { class: "name", text: option.name }), input, h("small", { text: option.doc }));
}

const BOT_NOTES = {
  heuristic: "the hand-written bot of this game: plays by rules of thumb",
  random: "plays a legal move at random",
  search: "thinks about a second a move: plays each candidate out many times from deals it cannot tell apart",
  ismcts: "thinks about a second a move: grows a tree of moves and replies over deals it cannot tell apart",
};
const HUMAN_NOTE = "a person at this device (with two or more, the device is handed over between turns)";

// Every choice of a seat, with what it is: a person, a bot, or a model (a
// shipped bot says how it did against the heuristic; the strongest is marked).
function seatChoices(env, players) {
  const choices = [{ value: "human", label: "a person (you)", note: HUMAN_NOTE }];
  for (const bot of env.bots) choices.push({ value: `bot:${bot}`, label: `${bot} bot`, note: BOT_NOTES[bot] || `the ${bot} bot` });
  for (const model of env.models) {
    const count = model.options.num_players;
    const fits = count === undefined || count === players;
    const tags = [count ? `${count} players` : null, model.strongest ? "strongest shipped bot" : null].filter(Boolean);
    choices.push({ value: `model:${model.id}`, label: `model ${model.id}${tags.length ? ` (${tags.join(", ")})` : ""}`, note: model.description, fits });
  }
  return choices;
}

// The first seat is the person; the next the game's strongest shipped bot for
// this many players (by its saved win rate against the heuristic), else the
// heuristic; the others the heuristic. A user's own model is never the default.
function defaultSeat(env, index, players) {
  if (index === 0) return "human";
  const strongest = env.models.find((m) => m.strongest && m.shipped && m.options.num_players === players);
  if (index === 1 && strongest) return `model:${strongest.id}`;
  return env.bots.includes("heuristic") ? "bot:heuristic" : "bot:random";
}

function playersChosen(env) {
  const select = $("opt-num_players");
  return select ? JSON.parse(select.value) : env.default_players;
}

function drawSeats(env) {
  const players = playersChosen(env);
  const rows = [];
  for (let i = 0; i < players; i += 1) {
    const choices = seatChoices(env, players);
    const chosen = defaultSeat(env, i, players);
    const select = h("select", { id: `seat-${i}`, name: `seat-${i}` }, choices.map((c) => h("option", { value: c.value, selected: c.value === chosen, disabled: c.fits === false, title: c.note }, c.label)));
    const note = h("small", { class: "seat-note", id: `seat-note-${i}` });
    const explain = () => {
      const choice = choices.find((c) => c.value === select.value);
      note.textContent = choice ? choice.note : "";
    };
    select.addEventListener("change", explain);
    explain();
    rows.push(h("label", { class: "seat", for: `seat-${i}` }, h("span", { class: "name", text: `player_${i}` }), select, note));
  }
  clear($("seats")).append(...rows);
}

function drawSetup() {
  const select = $("env");
  clear(select).append(...S.envs.map((e) => h("option", { value: e.id, text: `${e.id}: ${e.summary}` })));
  select.value = S.envs.find((e) => e.id === "astrobirdz_v0") ? "astrobirdz_v0" : S.envs[0].id;
  select.onchange = () => drawOptions(envOf(select.value));
  drawOptions(envOf(select.value));
  $("setup-rules").onclick = () => showRules(select.value);
}

// ---- the rules panel -------------------------------------------------------------

const RULES = {}; // env id -> its how-to-play markdown, once fetched

async function showRules(envId) {
  const body = clear($("rules-body"));
  $("rules").hidden = false;
  $("close-rules").focus();
  try {
    RULES[envId] = RULES[envId] || (await api("GET", `/api/rules/${encodeURIComponent(envId)}`)).markdown;
  } catch (err) {
    body.append(h("p", { class: "error", role: "alert", text: err.message || String(err) }));
    return;
  }
  body.append(renderMarkdown(RULES[envId]));
}

function closeRules() {
  $("rules").hidden = true;
}

function drawOptions(env) {
  const main = env.options.filter((o) => o.name === "num_players");
  const rest = env.options.filter((o) => o.name !== "num_players");
  clear($("options")).append(...main.map(optionInput), h("details", { class: "more" }, h("summary", { text: `game options (${rest.length})` }), ...rest.map(optionInput)));
  const players = $("opt-num_players");
  if (players) players.onchange = () => drawSeats(env);
  drawSeats(env);
}

function readSetup() {
  const env = envOf($("env").value);
  const options = {};
  for (const option of env.options) {
    const input = $(`opt-${option.name}`);
    if (!input) continue;
    if (option.choices) {
      const value = JSON.parse(input.value);
      if (JSON.stringify(value) !== JSON.stringify(option.default) || option.name === "num_players") options[option.name] = value;
    } else if (input.value.trim() !== "") {
      const text = input.value.trim();
      try {
        options[option.name] = JSON.parse(text === "None" ? "null" : text);
      } catch {
        options[option.name] = text; // the server names the option and what is allowed
      }
    }
  }
  const seats = [];
  for (let i = 0; i < (options.num_players || env.default_players); i += 1) {
    const value = $(`seat-${i}`).value;
    if (value === "human") seats.push({ kind: "human" });
    else if (value.startsWith("bot:")) seats.push({ kind: "bot", bot: value.slice(4) });
    else seats.push({ kind: "bot", bot: "model", model: value.slice(6) });
  }
  const seedText = $("seed").value.trim();
  const setup = { env: env.id, options, seats };
  if (seedText !== "") setup.seed = /^\d+$/.test(seedText) ? Number(seedText) : seedText;
  return setup;
}

async function startGame(setup) {
  clearError("setup-error");
  let created;
  try {
    created = await api("POST", "/api/games", setup);
  } catch (err) {
    showError("setup-error", err);
    show("setup");
    return;
  }
  const tokens = {};
  for (const seat of created.seats) if (seat.token) tokens[seat.agent] = seat.token;
  S.game = { id: created.game_id, env: setup.env, tokens, setup };
  sessionStorage.setItem(STORE_KEY, JSON.stringify(S.game));
  S.shown = Object.keys(tokens)[0];
  S.announced = -1;
  await loadModule(setup.env);
  show("play");
  $("summary").hidden = true;
  await refresh();
}

async function loadModule(envId) {
  const env = envOf(envId);
  S.module = null;
  const help = clear($("game-help"));
  if (env && env.help.length) {
    help.append(h("h2", { text: "Special cards" }), h("dl", { class: "help" }, env.help.map(([card, text]) => [h("dt", { text: card }), h("dd", { text })])));
  }
  if (env && env.renderer && !GENERIC) {
    try {
      S.module = await import(`./games/${env.renderer}.js`);
    } catch (err) {
      console.error(err); // the generic table still shows the game
    }
  }
}

// ---- the game loop -------------------------------------------------------------

function tokenOf(agent) {
  return S.game.tokens[agent];
}

async function refresh() {
  try {
    S.state = await api("GET", `/api/games/${S.game.id}`, undefined, tokenOf(S.shown));
  } catch (err) {
    showError("play-error", err);
    if (err.status === 404) {
      sessionStorage.removeItem(STORE_KEY);
    }
    return;
  }
  step();
}

// After every state: draw it, then do what comes next (a bot's move, the
// hand-over to another person, a forced move, or the summary).
function step() {
  const st = S.state;
  draw(st);
  if (st.status !== "running") {
    showSummary(st);
    return;
  }
  if (st.to_act_kind === "bot") {
    later(BOT_DELAY, botMove);
    return;
  }
  if (st.to_act !== S.shown) {
    handOver(st.to_act);
    return;
  }
  if (st.legal.length === 1) {
    $("prompt").textContent = `Your only move is ${st.legal[0].text}: played for you.`;
    later(FORCED_DELAY, () => sendMove(st.legal[0]));
  }
}

// While a bot thinks (a search bot takes up to a second a move), the prompt
// says so and carries the "thinking" class (a pulsing dot, style.css).
function showThinking(on) {
  const prompt = $("prompt");
  if (!prompt) return;
  prompt.classList.toggle("thinking", on);
  if (on) prompt.textContent = `${seatLabel({ seats: S.state.seats }, S.state.to_act)} is thinking…`;
}

async function botMove() {
  showThinking(true);
  try {
    S.state = await api("POST", `/api/games/${S.game.id}/bot`, { move_number: S.state.move_number }, tokenOf(S.shown));
  } catch (err) {
    showThinking(false);
    showError("play-error", err);
    if (err.status === 409) return refresh();
    return;
  }
  showThinking(false);
  clearError("play-error");
  step();
}

async function sendMove(move) {
  stopTimer();
  const st = S.state;
  if (!st || st.status !== "running" || st.to_act !== S.shown) return;
  for (const button of document.querySelectorAll("#moves button")) button.disabled = true;
  try {
    S.state = await api("POST", `/api/games/${S.game.id}/moves`, { move_number: st.move_number, action: move.id }, tokenOf(S.shown));
  } catch (err) {
    showError("play-error", err);
    return refresh();
  }
  clearError("play-error");
  S.filter = null;
  step();
}

function handOver(agent) {
  const overlay = $("handover");
  clear(overlay).append(
    h(
      "div",
      { class: "card-panel" },
      h("p", { text: `Hand the device to ${seatLabel({ seats: S.state.seats }, agent)}.` }),
      h("p", { class: "muted", text: "The table is hidden until they are ready." }),
      h("button", { type: "button", id: "take-seat", onclick: async () => {
        overlay.hidden = true;
        S.shown = agent;
        S.announced = -1;
        await refresh();
      } }, `I am ${agent}: show my table`),
    ),
  );
  overlay.hidden = false;
}

// ---- drawing -------------------------------------------------------------------

function lastMoveText(st) {
  const entry = st.log[st.log.length - 1];
  if (!entry) return "";
  const who = seatLabel(st, entry.agent);
  const what = entry.text === null ? describeHidden(st, entry) : entry.text;
  return `${who}: ${what}`;
}

function describeHidden(st, entry) {
  if (S.module && S.module.describeHidden) return S.module.describeHidden(entry, st);
  return "moved";
}

function draw(st) {
  const table = clear($("table"));
  const ui = {
    pick: (move) => sendMove(move),
    select: (filter) => {
      S.filter = filter;
      draw(S.state);
    },
    label: (agent) => seatLabel(st, agent),
    history: historyOf(st.game_id),
    playing: true,
  };
  if (S.module) {
    try {
      S.module.draw(table, st, ui);
    } catch (err) {
      console.error(err);
      clear(table);
      drawView(table, st.view);
    }
  } else {
    drawView(table, st.view);
  }
  table.append(h("details", { class: "raw" }, h("summary", { text: "the whole view as a table" }), renderValue(st.view)));
  drawStatus(st);
  drawMovePanel(st);
  drawLog($("log"), st.log, st);
  drawScores($("scores"), st, ui);
}

function drawStatus(st) {
  const bar = clear($("status"));
  const turn = st.status !== "running" ? `game ${st.status}` : st.to_act === st.agent ? "your move" : `${seatLabel(st, st.to_act)} to move`;
  bar.append(h("strong", { text: st.env }), h("span", { text: ` · you are ${st.agent}` }), h("span", { class: "turn", text: ` · ${turn}` }), h("span", { class: "muted", text: ` · move ${st.move_number}` }));
  const prompt = $("prompt");
  const last = lastMoveText(st);
  prompt.textContent = last ? `Last move: ${last}` : "";
  if (st.status === "running" && st.to_act === st.agent && st.legal.length > 1) {
    prompt.textContent += `${last ? " · " : ""}Your move: choose one below (keys shown on the buttons).`;
  }
}

function drawMovePanel(st) {
  const root = clear($("moves"));
  S.keys = new Map();
  if (st.status !== "running" || st.to_act !== st.agent) return;
  S.keys = drawMoves(root, st.legal, (move) => sendMove(move), S.filter);
  if (S.filter) root.append(h("button", { type: "button", class: "link", onclick: () => ui_unfilter() }, "show every move"));
}

function ui_unfilter() {
  S.filter = null;
  drawMovePanel(S.state);
}

export function drawLog(root, log, st, current = null) {
  clear(root);
  for (const entry of log) {
    const text = entry.text === null ? describeHidden(st, entry) : entry.text;
    root.append(h("li", { class: entry.n === current ? "current" : entry.agent === st.agent ? "mine" : null, value: entry.n + 1 }, h("span", { class: "who", text: seatLabel(st, entry.agent) }), " ", h("span", { text })));
  }
  root.scrollTop = root.scrollHeight;
}

function historyOf(gameId) {
  if (!S.history[gameId]) {
    const saved = sessionStorage.getItem(`flockgym.history.${gameId}`);
    S.history[gameId] = saved ? JSON.parse(saved) : {};
  }
  return {
    data: S.history[gameId],
    save: () => sessionStorage.setItem(`flockgym.history.${gameId}`, JSON.stringify(S.history[gameId])),
  };
}

function drawScores(root, st, ui) {
  clear(root);
  if (S.module && S.module.scoreSheet) {
    try {
      S.module.scoreSheet(root, st, ui);
      return;
    } catch (err) {
      console.error(err);
      clear(root);
    }
  }
  const scores = (st.result && st.result.scores) || findScores(st.view);
  if (!scores) {
    root.append(h("p", { class: "muted", text: "The view shows no score yet." }));
    return;
  }
  root.append(scoreTable(st, scores));
}

function scoreTable(st, scores) {
  const order = Object.keys(scores).sort((a, b) => scores[b] - scores[a]);
  return h("table", { class: "grid scores" }, h("tbody", {}, order.map((agent) => h("tr", { class: agent === st.agent ? "mine" : null }, h("th", { text: seatLabel(st, agent) }), h("td", { text: String(scores[agent]) })))));
}

function showSummary(st) {
  $("leave-confirm").hidden = true; // the game is over: nothing is left to leave
  const box = $("summary");
  const result = st.result || { scores: {}, winners: [] };
  const won = result.winners.includes(st.agent);
  const verdict = st.status === "over" ? (won ? "You won!" : result.winners.length ? `${result.winners.map((w) => seatLabel(st, w)).join(", ")} won.` : "Nobody won.") : `The game is ${st.status}.`;
  clear(box).append(
    h(
      "div",
      { class: "card-panel" },
      h("h2", { text: verdict }),
      st.error ? h("p", { class: "error", text: st.error }) : null,
      result.scores ? scoreTable(st, result.scores) : null,
      h("p", { class: "muted", text: `deal seed ${st.seed}${result.saved_as ? ` · saved as ${result.saved_as}` : ""}` }),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", id: "play-again", onclick: () => startGame({ ...S.game.setup, seed: st.seed }) }, "Play again (same deal)"),
        h("button", { type: "button", id: "new-seed", onclick: () => { const setup = { ...S.game.setup }; delete setup.seed; startGame(setup); } }, "New seed"),
        result.saved_as ? h("button", { type: "button", id: "replay-this", onclick: () => openReplay(result.saved_as) }, "Replay it") : null,
        h("button", { type: "button", class: "link", onclick: () => show("setup") }, "New game"),
      ),
    ),
  );
  box.hidden = false;
}

// ---- keyboard ------------------------------------------------------------------

document.addEventListener("keydown", (event) => {
  if (event.target.closest && event.target.closest("input, select, textarea")) return;
  if (!$("rules").hidden) {
    if (event.key === "Escape") closeRules(); // no move is played under the rules
    return;
  }
  if (!$("leave-confirm").hidden) {
    if (event.key === "Escape") $("leave-no").click(); // no move is played while it asks
    return;
  }
  if (!$("play").hidden && S.state) {
    const move = S.keys.get(event.key.toLowerCase());
    if (move) {
      event.preventDefault();
      sendMove(move);
    } else if (event.key === "Escape" && S.filter) {
      ui_unfilter();
    } else if (event.key === "?") {
      $("help").hidden = !$("help").hidden;
    }
  } else if (!$("saved").hidden && R.record) {
    if (event.key === "ArrowRight") frameAt(R.k + 1);
    if (event.key === "ArrowLeft") frameAt(R.k - 1);
  }
});

// ---- saved games and replays ---------------------------------------------------

const R = { name: null, record: null, k: 0, seat: null, playing: null };

async function drawSaved() {
  show("saved");
  $("replay").hidden = true;
  const list = clear($("saved-list"));
  let data;
  try {
    data = await api("GET", "/api/saved");
  } catch (err) {
    showError("saved-error", err);
    return;
  }
  if (!data.games.length) list.append(h("p", { class: "muted", text: "No finished game yet." }));
  for (const game of data.games) {
    const winners = game.winners.length ? `winners ${game.winners.join(", ")}` : game.status;
    list.append(h("li", {}, h("button", { type: "button", class: "link", onclick: () => openReplay(game.name) }, game.name), h("span", { class: "muted", text: ` ${game.env} · ${game.moves} moves · ${game.seats.join(", ")} · ${winners}` })));
  }
}

async function openReplay(name) {
  stopTimer();
  show("saved");
  clearError("saved-error");
  try {
    R.record = await api("GET", `/api/saved/${encodeURIComponent(name)}`);
  } catch (err) {
    showError("saved-error", err);
    return;
  }
  R.name = name;
  const human = R.record.seats.find((s) => s.kind === "human");
  R.seat = human ? human.agent : "player_0";
  await loadModule(R.record.env);
  const seatSelect = clear($("replay-seat"));
  seatSelect.append(...R.record.seats.map((s) => h("option", { value: s.agent, selected: s.agent === R.seat }, `${s.agent} (${s.name})`)));
  seatSelect.onchange = () => {
    R.seat = seatSelect.value;
    frameAt(R.k);
  };
  $("replay").hidden = false;
  await frameAt(0);
}

async function frameAt(k) {
  if (!R.record) return;
  const total = R.record.moves.length;
  k = Math.max(0, Math.min(total, k));
  let frame;
  try {
    frame = await api("GET", `/api/saved/${encodeURIComponent(R.name)}/frames/${k}`);
  } catch (err) {
    showError("saved-error", err);
    return;
  }
  R.k = k;
  const log = R.record.moves.slice(0, k).map((m, n) => ({ n, agent: m.agent, text: m.text }));
  const st = {
    game_id: `replay:${R.name}`,
    env: R.record.env,
    seats: R.record.seats,
    agent: R.seat,
    status: k === total ? R.record.status : "running",
    move_number: k,
    to_act: frame.to_act,
    view: frame.views[R.seat],
    legal: [],
    log,
    result: k === total ? { scores: R.record.scores, winners: R.record.winners } : null,
  };
  const table = clear($("replay-table"));
  const ui = { pick: () => {}, select: () => {}, label: (a) => seatLabel(st, a), history: { data: {}, save: () => {} }, playing: false };
  if (S.module) S.module.draw(table, st, ui);
  else drawView(table, st.view);
  $("replay-position").textContent = `move ${k} of ${total}${frame.next ? ` · next: ${frame.next.agent} ${frame.next.text}` : " · the end"}`;
  drawLog($("replay-log"), log, st, k - 1);
}

function replayControls() {
  $("replay-first").onclick = () => frameAt(0);
  $("replay-back").onclick = () => frameAt(R.k - 1);
  $("replay-next").onclick = () => frameAt(R.k + 1);
  $("replay-last").onclick = () => frameAt(R.record.moves.length);
  $("replay-play").onclick = () => {
    if (R.playing) {
      clearInterval(R.playing);
      R.playing = null;
      return;
    }
    R.playing = setInterval(() => {
      if (R.k >= R.record.moves.length) {
        clearInterval(R.playing);
        R.playing = null;
      } else frameAt(R.k + 1);
    }, FAST ? 50 : 600);
  };
}

// ---- start -----------------------------------------------------------------------

async function main() {
  for (const button of document.querySelectorAll("nav button")) {
    button.onclick = () => (button.dataset.go === "saved" ? drawSaved() : show(button.dataset.go === "play" && S.game ? "play" : "setup"));
  }
  $("setup-form").onsubmit = (event) => {
    event.preventDefault();
    startGame(readSetup());
  };
  // Leaving ends the game for every seat: the page asks first (Escape or "Keep
  // playing" keeps it going).
  $("leave").onclick = () => {
    if (!S.game) return;
    $("leave-confirm").hidden = false;
    $("leave-no").focus();
  };
  $("leave-no").onclick = () => {
    $("leave-confirm").hidden = true;
    $("leave").focus();
  };
  $("leave-yes").onclick = async () => {
    $("leave-confirm").hidden = true;
    if (!S.game) return;
    try {
      S.state = await api("DELETE", `/api/games/${S.game.id}`, undefined, tokenOf(S.shown));
      step();
    } catch (err) {
      showError("play-error", err);
    }
  };
  $("close-help").onclick = () => ($("help").hidden = true);
  $("show-rules").onclick = () => showRules(S.game ? S.game.env : $("env").value);
  $("close-rules").onclick = closeRules;
  $("rules").onclick = (event) => event.target === $("rules") && closeRules(); // a click beside the panel
  $("show-help").onclick = () => ($("help").hidden = !$("help").hidden);
  replayControls();
  try {
    S.envs = (await api("GET", "/api/envs")).envs;
  } catch (err) {
    showError("setup-error", err);
    return;
  }
  drawSetup();
  const saved = sessionStorage.getItem(STORE_KEY);
  if (saved) {
    S.game = JSON.parse(saved);
    S.shown = Object.keys(S.game.tokens)[0];
    await loadModule(S.game.env);
    show("play");
    await refresh();
  } else {
    show("setup");
  }
  document.body.dataset.ready = "1";
}

main();
