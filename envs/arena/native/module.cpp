// flockgym.envs.arena._native: the compiled Arena engine (arena_engine.hpp) for
// Python. The box comes from envs/arena/native.py's box_payload (plain lists
// of the Box's fields), a game from the Python engine's state dict, and
// to_dict gives that dict back field for field.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <string>
#include <vector>

#include "arena_bot.hpp"
#include "arena_engine.hpp"
#include "arena_observer.hpp"
#include "batch.hpp"
#include "numpy_rng.hpp"
#include "numpy_rng_py.hpp"

namespace py = pybind11;
using arena::Box;
using arena::Game;

namespace {

const char* const PHASE_NAMES[] = {"corner", "pre_roll", "move_spend", "move", "action",
                                   "challenge_spend", "defend_spend", "pick_card", "pick_space",
                                   "pick_player", "pick_character", "gym_card", "wish", "over"};
const char* const FORMS[] = {"astrobirdz", "berzerkerbirdz", "invazorz"};
const char* const MEDALS[] = {"bronze", "silver", "gold"};
const char* const CHALLENGE_KINDS[] = {"", "maneuver", "world", "medal", "homeworld", "favourite", "standard"};
const char* const FIXED_PURPOSES[] = {"movement", "defence", "maneuver challenge", "world challenge",
                                      "medal challenge", "homeworld challenge", "favourite challenge",
                                      "standard challenge", "transformation", "nebula slide",
                                      "astroportal", "star cluster trophies", "first player"};

// Names of the box and the engine's tables, for the state dict.
struct Names {
  std::vector<std::string> characters, gyms, tasks, tables;
  std::map<std::string, int> character_id, gym_id, task_id, purpose_id;
};

struct Engine {
  std::shared_ptr<const Box> box;
  std::shared_ptr<const Names> names;
  arena::Scales scales;
  std::shared_ptr<const arena::BotBox> bot_box;
};

template <class T>
std::vector<T> list_of(const py::handle& h) {
  return h.cast<std::vector<T>>();
}

std::array<int, 3> triple(const py::handle& h) {
  const auto v = list_of<int>(h);
  return {v.at(0), v.at(1), v.at(2)};
}

Engine engine_from_payload(const py::dict& p) {
  auto box = std::make_shared<Box>();
  Box& b = *box;
  b.trophies = p["trophies"].cast<int>();
  b.start_trophies = p["start_trophies"].cast<int>();
  b.gym_trophies = p["gym_trophies"].cast<int>();
  b.gym_power_cards = p["gym_power_cards"].cast<int>();
  b.medal_supply = triple(p["medal_supply"]);
  b.challenge_dice = p["challenge_dice"].cast<int>();
  b.maneuvers_for_worlds = p["maneuvers_for_worlds"].cast<int>();
  b.medal_target = p["medal_target"].cast<int>();
  b.trophy_value = p["trophy_value"].cast<int>();
  b.dark_matter_turns = p["dark_matter_turns"].cast<int>();
  b.dark_matter_value = p["dark_matter_value"].cast<int>();
  b.transform_on = p["transform_on"].cast<int>();
  b.win_worlds = p["win_worlds"].cast<int>();
  b.win_defended = p["win_defended"].cast<int>();
  for (const auto& level : list_of<std::vector<int>>(p["medal_levels"]))
    b.medal_levels.push_back({level.at(0), level.at(1), level.at(2)});
  b.movement_die = triple(p["movement_die"]);
  b.challenge_die = triple(p["challenge_die"]);
  b.slide_die = triple(p["slide_die"]);
  b.first_turn_die = p["first_turn_die"].cast<int>();
  b.kind_of = list_of<int>(p["kind_of"]);
  b.next_of = list_of<std::vector<int>>(p["next_of"]);
  b.corners = list_of<int>(p["corners"]);
  b.maneuver_spaces = list_of<int>(p["maneuver_spaces"]);
  b.world_spaces = list_of<int>(p["world_spaces"]);
  b.inside_spaces = list_of<int>(p["inside_spaces"]);
  const auto ends = list_of<int>(p["slide_ends"]);
  b.slide_a = ends.at(0);
  b.slide_b = ends.at(1);
  b.portal_front = p["portal_front"].cast<int>();
  b.portal_exit_outside = p["portal_exit_outside"].cast<int>();
  b.portal_exit_inside = p["portal_exit_inside"].cast<int>();
  for (const auto& c : list_of<std::vector<int>>(p["cards"]))
    b.cards.push_back({c.at(0) != 0, c.at(1), c.at(2), c.at(3), c.at(4), c.at(5)});
  for (const auto& c : list_of<std::vector<int>>(p["characters"]))
    b.characters.push_back({c.at(0) != 0, {c.at(1), c.at(2), c.at(3)}, {c.at(4), c.at(5), c.at(6)}});
  for (const auto& g : list_of<std::vector<int>>(p["gyms"])) b.gyms.push_back({g.at(0), g.at(1), g.at(2)});
  for (const auto& k : list_of<std::vector<int>>(p["medal_cards"])) b.medal_cards.push_back({k.at(0), k.at(1)});
  b.corner_index.assign(b.kind_of.size(), -1);
  for (size_t i = 0; i < b.corners.size(); ++i) b.corner_index[static_cast<size_t>(b.corners[i])] = static_cast<int>(i);

  auto names = std::make_shared<Names>();
  names->characters = list_of<std::string>(p["character_names"]);
  names->gyms = list_of<std::string>(p["gym_names"]);
  names->tasks = list_of<std::string>(p["task_names"]);
  names->tables = list_of<std::string>(p["table_names"]);
  if (static_cast<int>(names->tasks.size()) != arena::NUM_TASKS || names->tables.size() != 9)
    throw py::value_error("box payload: the task or table names do not match the engine's");
  for (size_t i = 0; i < names->characters.size(); ++i) names->character_id[names->characters[i]] = static_cast<int>(i);
  for (size_t i = 0; i < names->gyms.size(); ++i) names->gym_id[names->gyms[i]] = static_cast<int>(i);
  for (size_t i = 0; i < names->tasks.size(); ++i) names->task_id[names->tasks[i]] = static_cast<int>(i);
  for (int i = 0; i < arena::PU_TABLE_BASE; ++i) names->purpose_id[FIXED_PURPOSES[i]] = i;
  for (int t = 1; t <= 8; ++t) names->purpose_id[names->tables[static_cast<size_t>(t)]] = arena::PU_TABLE_BASE + t;
  for (size_t c = 0; c < names->characters.size(); ++c)
    names->purpose_id["character " + names->characters[c]] = arena::PU_CHARACTER_BASE + static_cast<int>(c);
  const auto sc = list_of<int>(p["scales"]);
  arena::Scales scales{sc.at(0), sc.at(1), sc.at(2), sc.at(3), sc.at(4), sc.at(5)};
  auto bot_box = std::make_shared<arena::BotBox>();
  bot_box->card_names = list_of<std::string>(p["card_names"]);
  for (const auto& at : p["space_at"]) {
    const auto rc = list_of<int>(at);
    bot_box->space_at.emplace_back(rc.at(0), rc.at(1));
  }
  bot_box->character_rank = list_of<int>(p["character_rank"]);
  return {box, names, scales, bot_box};
}

std::string purpose_name(const Names& names, const std::vector<std::string>& other, int purpose) {
  if (purpose >= arena::PU_OTHER_BASE) return other[static_cast<size_t>(purpose - arena::PU_OTHER_BASE)];
  if (purpose < arena::PU_TABLE_BASE) return FIXED_PURPOSES[purpose];
  if (purpose < arena::PU_CHARACTER_BASE) return names.tables[static_cast<size_t>(purpose - arena::PU_TABLE_BASE)];
  return "character " + names.characters[static_cast<size_t>(purpose - arena::PU_CHARACTER_BASE)];
}

template <class Map>
int lookup(const Map& map, const std::string& key, const char* what) {
  auto it = map.find(key);
  if (it == map.end()) throw py::value_error(std::string("unknown ") + what + ": " + key);
  return it->second;
}

int index_of(const char* const* table, int size, const std::string& key, const char* what) {
  for (int i = 0; i < size; ++i)
    if (key == table[i]) return i;
  throw py::value_error(std::string("unknown ") + what + ": " + key);
}

std::vector<int> optional_names(const py::handle& h, const std::map<std::string, int>& ids, const char* what) {
  std::vector<int> out;
  for (const auto& item : h) out.push_back(item.is_none() ? -1 : lookup(ids, py::str(item), what));
  return out;
}

template <class T>
py::list to_list(const std::vector<T>& v) {
  py::list out;
  for (const auto& x : v) out.append(x);
  return out;
}

py::list bool_list(const std::vector<char>& v) {
  py::list out;
  for (char x : v) out.append(py::bool_(x != 0));
  return out;
}

py::object record_dict(const arena::ChallengeRecord& r) {
  if (!r.present) return py::none();
  py::dict d;
  d["challenger"] = r.challenger;
  d["kind"] = CHALLENGE_KINDS[r.kind];
  d["item"] = r.item;
  d["defender"] = r.defender;
  d["dice"] = to_list(r.dice);
  d["modifier"] = r.modifier;
  d["need"] = r.need;
  if (r.standard) {
    d["defender_dice"] = to_list(r.defender_dice);
    d["defender_modifier"] = r.defender_modifier;
    d["defender_total"] = r.defender_total;
  }
  d["total"] = r.total;
  d["success"] = r.success;
  return std::move(d);
}

arena::ChallengeRecord record_from(const py::handle& h) {
  arena::ChallengeRecord r;
  if (h.is_none()) return r;
  const py::dict d = py::reinterpret_borrow<py::dict>(h);
  r.present = true;
  r.challenger = d["challenger"].cast<int>();
  r.kind = index_of(CHALLENGE_KINDS, 7, py::str(d["kind"]), "challenge kind");
  r.item = d["item"].cast<int>();
  r.defender = d["defender"].cast<int>();
  r.dice = list_of<int>(d["dice"]);
  r.modifier = d["modifier"].cast<int>();
  r.need = d["need"].cast<int>();
  if (d.contains("defender_dice")) {
    r.standard = true;
    r.defender_dice = list_of<int>(d["defender_dice"]);
    r.defender_modifier = d["defender_modifier"].cast<int>();
    r.defender_total = d["defender_total"].cast<int>();
  }
  r.total = d["total"].cast<int>();
  r.success = d["success"].cast<bool>();
  return r;
}

arena::Config config_from(const py::dict& cfg) {
  arena::Config c;
  c.num_players = cfg["num_players"].cast<int>();
  c.max_rounds = cfg["max_rounds"].cast<int>();
  c.world_printed = py::str(cfg["world_challenge"]).cast<std::string>() == "printed";
  c.dark_medals = py::str(cfg["dark_matter"]).cast<std::string>() == "medals";
  c.nova_become = py::str(cfg["nova_invazorz"]).cast<std::string>() == "become";
  c.fifth_won = py::str(cfg["fifth_world"]).cast<std::string>() == "won";
  return c;
}

// A game in the state of the Python engine's to_dict (already validated there).
struct NativeGame {
  Engine engine;
  Game game;
  py::dict config_dict;
  // Roll purposes of a loaded roll log that no rule of this engine writes
  // (the state check accepts any words there): kept to be written back.
  std::vector<std::string> other_purposes;

  int purpose_code(const std::string& name) {
    auto it = engine.names->purpose_id.find(name);
    if (it != engine.names->purpose_id.end()) return it->second;
    for (size_t i = 0; i < other_purposes.size(); ++i)
      if (other_purposes[i] == name) return arena::PU_OTHER_BASE + static_cast<int>(i);
    other_purposes.push_back(name);
    return arena::PU_OTHER_BASE + static_cast<int>(other_purposes.size() - 1);
  }

  std::shared_ptr<const arena::Observer> observer;

  // A new game with no scenario (ArenaGame.new(config, rng)).
  NativeGame(const Engine& e, const py::dict& config, const py::dict& rng_state)
      : engine(e), game(e.box, config_from(config)), config_dict(config) {
    observer = std::make_shared<arena::Observer>(*e.box, game.config.num_players, e.scales);
    game.rng = flockgym::rng_from_state(rng_state);
    game.set_up_plain();
  }

  NativeGame(const Engine& e, const py::dict& d)
      : engine(e), game(e.box, config_from(d["config"])), config_dict(d["config"]) {
    observer = std::make_shared<arena::Observer>(*e.box, game.config.num_players, e.scales);
    load(d);
  }

  void check_seat(int seat) const {
    if (seat < 0 || seat >= game.config.num_players)
      throw py::value_error("seat must be in 0.." + std::to_string(game.config.num_players - 1) +
                            ", got " + std::to_string(seat));
  }

  void load(const py::dict& d) {
    Game& g = game;
    const Names& nm = *engine.names;
    const int n = g.config.num_players;
    g.rng = flockgym::rng_from_state(d["rng"]);
    g.characters = optional_names(d["characters"], nm.character_id, "character");
    g.forms.clear();
    for (const auto& f : d["forms"]) g.forms.push_back(f.is_none() ? -1 : index_of(FORMS, 3, py::str(f), "form"));
    g.wishes = optional_names(d["wishes"], nm.character_id, "character");
    g.positions = list_of<int>(d["positions"]);
    g.trophies = list_of<int>(d["trophies"]);
    g.bonus_trophies = list_of<int>(d["bonus_trophies"]);
    g.medals.assign(static_cast<size_t>(n), {0, 0, 0});
    int seat = 0;
    for (const auto& held : d["medals"]) {
      for (const auto& m : held) g.medals[static_cast<size_t>(seat)][static_cast<size_t>(index_of(MEDALS, 3, py::str(m), "medal"))] = 1;
      ++seat;
    }
    g.powers.assign(static_cast<size_t>(n), std::vector<int>(static_cast<size_t>(g.box().num_gyms()), 0));
    seat = 0;
    for (const auto& held : d["powers"]) {
      for (const auto& name : held) g.powers[static_cast<size_t>(seat)][static_cast<size_t>(lookup(nm.gym_id, py::str(name), "gym"))] += 1;
      ++seat;
    }
    g.lost_turns = list_of<int>(d["lost_turns"]);
    g.upside_down.clear();
    for (bool x : list_of<bool>(d["upside_down"])) g.upside_down.push_back(x);
    g.dark = list_of<int>(d["dark"]);
    g.first_turn.clear();
    for (bool x : list_of<bool>(d["first_turn"])) g.first_turn.push_back(x);
    g.worlds_won = list_of<int>(d["worlds_won"]);
    g.start_corner = list_of<int>(d["start_corner"]);
    g.supply = d["supply"].cast<int>();
    g.medal_supply = triple(d["medal_supply"]);
    g.gym_at.clear();
    for (const auto& name : d["gym_at"]) g.gym_at.push_back(lookup(nm.gym_id, py::str(name), "gym"));
    g.gym_trophies = list_of<int>(d["gym_trophies"]);
    g.gym_cards = list_of<int>(d["gym_cards"]);
    g.card_holder = list_of<int>(d["card_holder"]);
    g.card_space = list_of<int>(d["card_space"]);
    g.defended = list_of<int>(d["defended"]);
    g.medal_stack = list_of<int>(d["medal_stack"]);
    g.medal_holder = list_of<int>(d["medal_holder"]);
    g.medal_space = list_of<int>(d["medal_space"]);
    g.preset_first = d["preset_first"].cast<int>();
    g.first_player = d["first_player"].cast<int>();
    g.turn_seat = d["turn_seat"].cast<int>();
    g.rounds = d["rounds"].cast<int>();
    g.phase = index_of(PHASE_NAMES, 14, py::str(d["phase"]), "phase");
    g.actor = d["actor"].cast<int>();
    const std::string task = py::str(d["task"]);
    g.task = task.empty() ? arena::T_NONE : lookup(nm.task_id, task, "task");
    g.task_args = list_of<int>(d["task_args"]);
    g.steps_left = d["steps_left"].cast<int>();
    g.entered = d["entered"].cast<bool>();
    g.stopped = d["stopped"].cast<bool>();
    g.forced_target = d["forced_target"].cast<int>();
    g.move_total = d["move_total"].cast<int>();
    g.new_turns = d["new_turns"].cast<int>();
    g.roll_bonus = list_of<int>(d["roll_bonus"]);
    g.roll_gold.clear();
    for (bool x : list_of<bool>(d["roll_gold"])) g.roll_gold.push_back(x);
    g.roll_extra = list_of<int>(d["roll_extra"]);
    g.roll_cards = list_of<std::vector<int>>(d["roll_cards"]);
    g.ch_kind = index_of(CHALLENGE_KINDS, 7, py::str(d["ch_kind"]), "challenge kind");
    g.ch_item = d["ch_item"].cast<int>();
    g.ch_defender = d["ch_defender"].cast<int>();
    const auto spent = list_of<int>(d["ch_spent"]);
    g.ch_spent = {spent.at(0), spent.at(1)};
    g.last_challenge = record_from(d["last_challenge"]);
    g.last_encounter = list_of<int>(d["last_encounter"]);
    g.roll_log.clear();
    other_purposes.clear();
    for (const auto& r : d["roll_log"]) {
      const py::list row = py::reinterpret_borrow<py::list>(r);
      g.roll_log.push_back({row[0].cast<int>(), purpose_code(py::str(row[1])),
                            row[2].cast<int>(), row[3].cast<int>()});
    }
    g.log_start = d["log_start"].cast<int64_t>();
    g.seen = list_of<int64_t>(d["seen"]);
    g.forced = list_of<int>(d["forced"]);
    g.forced_next = 0;
    g.rolls_made = d["rolls_made"].cast<int64_t>();
    g.over = d["over"].cast<bool>();
    g.win_reason = py::str(d["win_reason"]);
    g.winners = list_of<int>(d["winners"]);
    g.rebuild_holdings();
    g.forget_legal();
  }

  py::dict to_dict() const {
    const Game& g = game;
    const Names& nm = *engine.names;
    const int n = g.config.num_players;
    py::dict d;
    d["config"] = config_dict;
    d["rng"] = flockgym::rng_to_state(g.rng);
    py::list chars, forms, wishes, medals, powers;
    for (int c : g.characters) chars.append(c >= 0 ? py::object(py::str(nm.characters[static_cast<size_t>(c)])) : py::object(py::none()));
    for (int f : g.forms) forms.append(f >= 0 ? py::object(py::str(FORMS[f])) : py::object(py::none()));
    for (int c : g.wishes) wishes.append(c >= 0 ? py::object(py::str(nm.characters[static_cast<size_t>(c)])) : py::object(py::none()));
    d["characters"] = chars;
    d["forms"] = forms;
    d["wishes"] = wishes;
    d["positions"] = to_list(g.positions);
    d["trophies"] = to_list(g.trophies);
    d["bonus_trophies"] = to_list(g.bonus_trophies);
    for (int s = 0; s < n; ++s) {
      py::list held;
      for (int i = 0; i < 3; ++i)
        if (g.medals[static_cast<size_t>(s)][static_cast<size_t>(i)]) held.append(MEDALS[i]);
      medals.append(held);
      py::list cards;
      const auto& p = g.powers[static_cast<size_t>(s)];
      for (size_t gym = 0; gym < p.size(); ++gym)
        for (int k = 0; k < p[gym]; ++k) cards.append(nm.gyms[gym]);
      powers.append(cards);
    }
    d["medals"] = medals;
    d["powers"] = powers;
    d["lost_turns"] = to_list(g.lost_turns);
    d["upside_down"] = bool_list(g.upside_down);
    d["dark"] = to_list(g.dark);
    d["first_turn"] = bool_list(g.first_turn);
    d["worlds_won"] = to_list(g.worlds_won);
    d["start_corner"] = to_list(g.start_corner);
    d["supply"] = g.supply;
    d["medal_supply"] = to_list(std::vector<int>(g.medal_supply.begin(), g.medal_supply.end()));
    py::list gym_at;
    for (int gym : g.gym_at) gym_at.append(nm.gyms[static_cast<size_t>(gym)]);
    d["gym_at"] = gym_at;
    d["gym_trophies"] = to_list(g.gym_trophies);
    d["gym_cards"] = to_list(g.gym_cards);
    d["card_holder"] = to_list(g.card_holder);
    d["card_space"] = to_list(g.card_space);
    d["defended"] = to_list(g.defended);
    d["medal_stack"] = to_list(g.medal_stack);
    d["medal_holder"] = to_list(g.medal_holder);
    d["medal_space"] = to_list(g.medal_space);
    d["preset_first"] = g.preset_first;
    d["first_player"] = g.first_player;
    d["turn_seat"] = g.turn_seat;
    d["rounds"] = g.rounds;
    d["phase"] = PHASE_NAMES[g.phase];
    d["actor"] = g.actor;
    d["task"] = g.task < 0 ? std::string() : nm.tasks[static_cast<size_t>(g.task)];
    d["task_args"] = to_list(g.task_args);
    d["steps_left"] = g.steps_left;
    d["entered"] = g.entered;
    d["stopped"] = g.stopped;
    d["forced_target"] = g.forced_target;
    d["move_total"] = g.move_total;
    d["new_turns"] = g.new_turns;
    d["roll_bonus"] = to_list(g.roll_bonus);
    d["roll_gold"] = bool_list(g.roll_gold);
    d["roll_extra"] = to_list(g.roll_extra);
    py::list roll_cards;
    for (const auto& c : g.roll_cards) roll_cards.append(to_list(c));
    d["roll_cards"] = roll_cards;
    d["ch_kind"] = CHALLENGE_KINDS[g.ch_kind];
    d["ch_item"] = g.ch_item;
    d["ch_defender"] = g.ch_defender;
    d["ch_spent"] = to_list(std::vector<int>(g.ch_spent.begin(), g.ch_spent.end()));
    d["last_challenge"] = record_dict(g.last_challenge);
    d["last_encounter"] = to_list(g.last_encounter);
    py::list log;
    for (const auto& r : g.roll_log) {
      py::list row;
      row.append(r.seat);
      row.append(purpose_name(nm, other_purposes, r.purpose));
      row.append(r.sides);
      row.append(r.value);
      log.append(row);
    }
    d["roll_log"] = log;
    d["log_start"] = g.log_start;
    d["seen"] = to_list(g.seen);
    d["forced"] = to_list(std::vector<int>(g.forced.begin() + static_cast<std::ptrdiff_t>(g.forced_next), g.forced.end()));
    d["rolls_made"] = g.rolls_made;
    d["over"] = g.over;
    d["win_reason"] = g.win_reason;
    d["winners"] = to_list(g.winners);
    return d;
  }

  void apply_checked(int action) {
    if (!game.is_legal(action)) throw py::value_error("illegal action " + std::to_string(action));
    apply_forced(action);
  }

  void apply_forced(int action) {
    try {
      game.apply_action(action);
    } catch (const arena::ForcedDiceError& err) {
      throw ForcedDice(err.what());
    } catch (const arena::OutsideDieNeeded& err) {
      throw OutsideDie(err.what());
    }
  }

  // Dice from outside for the next steps (``faces``, or none with None):
  // see arena::Game::dice_from_outside.
  void set_outside_dice(const py::object& faces, int max_sides) {
    arena::Game& g = game;
    g.outside_next = 0;
    g.outside_max_sides = max_sides;
    if (faces.is_none()) {
      g.dice_from_outside = false;
      g.outside.clear();
      return;
    }
    g.outside = faces.cast<std::vector<int>>();
    g.dice_from_outside = true;
  }

  // The first die past ``faces`` that ``action`` would roll, as
  // (seat, sides, purpose, fed), or None when the step needs no more faces
  // (or stops on a forced die of a scenario, which apply_action reports):
  // played on a copy, this game unchanged.
  py::object first_die_needed(int action, const std::vector<int>& faces, int max_sides) const {
    if (scratch.game) {
      *scratch.game = game;  // the storage of the last try reused
    } else {
      scratch.game = std::make_unique<arena::Game>(game);
    }
    arena::Game& probe = *scratch.game;
    probe.dice_from_outside = true;
    probe.outside = faces;
    probe.outside_next = 0;
    probe.outside_max_sides = max_sides;
    try {
      probe.apply_action(action);
    } catch (const arena::OutsideDieNeeded& need) {
      return py::make_tuple(need.seat, need.sides, need.purpose, need.fed);
    } catch (const arena::ForcedDiceError&) {
    }
    return py::none();
  }

  // The game first_die_needed tries steps on, kept from try to try (its
  // vectors' storage reused); a copy of this NativeGame starts without one.
  struct Scratch {
    std::unique_ptr<arena::Game> game;
    Scratch() = default;
    Scratch(const Scratch&) {}
    Scratch& operator=(const Scratch&) { return *this; }
  };
  mutable Scratch scratch;

  struct ForcedDice : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  struct OutsideDie : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
};

// The heuristic bot (arena_bot.hpp) with its tie-break generator.
struct NativeBot {
  arena::HeuristicBot bot;
  explicit NativeBot(const py::dict& rng_state) : bot(flockgym::rng_from_state(rng_state)) {}

  int act(NativeGame& g) {
    if (g.game.over) throw py::value_error("the game is over: no seat to act");
    return bot.act(g.game, *g.engine.bot_box);
  }

  py::dict state() const {
    py::dict d;
    d["rng"] = flockgym::rng_to_state(bot.rng);
    d["slides"] = bot.slide_turn_known
                      ? py::object(py::make_tuple(bot.slide_round, bot.slide_seat, bot.slide_count))
                      : py::object(py::none());
    return d;
  }

  void set_slides(const py::object& slides) {
    bot.slide_turn_known = !slides.is_none();
    if (bot.slide_turn_known) {
      const auto t = slides.cast<std::tuple<int, int, int>>();
      bot.slide_round = std::get<0>(t);
      bot.slide_seat = std::get<1>(t);
      bot.slide_count = std::get<2>(t);
    }
  }
};

// What the batched form keeps of a game: the rules engine and its observer
// (not the Python-facing extras of NativeGame).
struct BatchGame {
  Game game;
  std::shared_ptr<const arena::Observer> observer;
  explicit BatchGame(const NativeGame& g) : game(g.game), observer(g.observer) {}
};

// The batched form's questions, asked of BatchGame. A deal is the plain new
// game of NativeGame's constructor: an empty game of the box and config, then
// set_up_plain from the game's generator.
struct BatchOps {
  static flockgym::NumpyRng& rng(BatchGame& g) { return g.game.rng; }
  static void deal(BatchGame& g) {
    Game fresh(g.game.box_ptr, g.game.config);
    fresh.rng = g.game.rng;
    fresh.set_up_plain();
    g.game = std::move(fresh);
  }
  static int num_players(const BatchGame& g) { return g.game.n(); }
  static int current_player(BatchGame& g) { return g.game.current_player(); }
  static bool over(const BatchGame& g) { return g.game.over; }
  static bool truncated(const BatchGame&) { return false; }
  static bool is_legal(BatchGame& g, int action) { return g.game.is_legal(action); }
  static void apply(BatchGame& g, int action) { g.game.apply_action(action); }
  static std::vector<int> winners(BatchGame& g) { return g.game.winners; }
  static int observation_size(const BatchGame& g) { return g.observer->size(); }
  static void encode(const BatchGame& g, int seat, float* out) {
    g.observer->encode(g.game, seat, out);
  }
  static void write_mask(BatchGame& g, int8_t* out, int num_actions) {
    std::fill(out, out + num_actions, int8_t{0});
    for (int a : g.game.legal_actions())
      if (a < num_actions) out[a] = 1;
  }
  static double score(const BatchGame& g, int seat) {
    return static_cast<double>(g.game.worlds_of[static_cast<size_t>(seat)].size());
  }
};

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "The compiled Arena engine (arena_engine.hpp); use flockgym.envs.arena.native.";
  py::register_exception<NativeGame::ForcedDice>(m, "ForcedDiceRoll", PyExc_ValueError);
  py::register_exception<NativeGame::OutsideDie>(m, "OutsideDieNeeded", PyExc_Exception);

  py::class_<Engine>(m, "Engine")
      .def(py::init(&engine_from_payload), py::arg("payload"),
           "The box (envs/arena/native.py's box_payload), shared by every game of it.");

  py::class_<NativeGame>(m, "Game")
      .def(py::init<const Engine&, const py::dict&>(), py::arg("engine"), py::arg("state"),
           "A game in the state of the Python engine's to_dict (validated there).")
      .def(py::init<const Engine&, const py::dict&, const py::dict&>(), py::arg("engine"),
           py::arg("config"), py::arg("rng_state"),
           "A new game without a scenario (the config checked by the caller).")
      .def("to_dict", &NativeGame::to_dict)
      .def("load", &NativeGame::load)
      .def("copy", [](const NativeGame& g) { return NativeGame(g); })
      .def("current_player", [](const NativeGame& g) { return g.game.current_player(); })
      .def("is_over", [](const NativeGame& g) { return g.game.over; })
      .def("legal_actions", [](NativeGame& g) { return g.game.legal_actions(); })
      .def("legal_mask",
           [](NativeGame& g, int size) {
             py::array_t<int8_t> mask(size);
             auto view = mask.mutable_unchecked<1>();
             for (py::ssize_t i = 0; i < size; ++i) view(i) = 0;
             for (int a : g.game.legal_actions())
               if (a < size) view(a) = 1;
             return mask;
           })
      .def("apply_action", &NativeGame::apply_checked, py::arg("action"),
           "Apply a legal action (ValueError otherwise; ForcedDiceRoll, with the state "
           "unchanged, when a forced die cannot show its result).")
      .def("apply_unchecked", &NativeGame::apply_forced, py::arg("action"))
      .def("first_die_needed", &NativeGame::first_die_needed, py::arg("action"),
           py::arg("faces"), py::arg("max_sides"),
           "(seat, sides, purpose, fed) of the first die past ``faces`` that the legal "
           "``action`` rolls (fed: a face was there, the die has more than ``max_sides`` "
           "faces), or None; played on a copy, this game unchanged.")
      .def("set_outside_dice", &NativeGame::set_outside_dice, py::arg("faces"),
           py::arg("max_sides"),
           "Dice from outside: each die rolled shows the next of ``faces`` (the "
           "generator moving on as under its own die); at the first die past them, "
           "or one of more than ``max_sides`` faces, the step stops with "
           "OutsideDieNeeded('seat|sides|purpose|fed'), the game left mid-step. "
           "None: the game's own dice again.")
      .def("observation_size", [](const NativeGame& g) { return g.observer->size(); })
      .def("observation",
           [](const NativeGame& g, int seat) {
             g.check_seat(seat);
             py::array_t<float> out(g.observer->size());
             g.observer->encode(g.game, seat, out.mutable_data());
             return out;
           },
           py::arg("seat"), "The observation vector of ``seat`` (observer.py's layout).")
      .def("observe_into",
           [](const NativeGame& g, int seat, py::array_t<float, py::array::c_style> out) {
             g.check_seat(seat);
             if (out.ndim() != 1 || out.shape(0) != g.observer->size())
               throw py::value_error("observe_into needs a float32 array of the observation's size");
             g.observer->encode(g.game, seat, out.mutable_data());
           },
           py::arg("seat"), py::arg("out"), "Write ``seat``'s observation into ``out``.")
      .def("settle", [](NativeGame& g) { g.game.settle(); })
      .def("scores", [](const NativeGame& g) { return g.game.scores(); })
      .def("winners", [](const NativeGame& g) { return g.game.winners; })
      .def("rolls_made", [](const NativeGame& g) { return g.game.rolls_made; })
      .def("turn_seat", [](const NativeGame& g) { return g.game.turn_seat; })
      .def("rng_state", [](const NativeGame& g) { return flockgym::rng_to_state(g.game.rng); })
      .def("play_random",
           [](NativeGame& g, const py::dict& picker_state, int64_t max_steps) {
             flockgym::NumpyRng picker = flockgym::rng_from_state(picker_state);
             int64_t steps;
             try {
               steps = g.game.play_random(picker, max_steps);
             } catch (const arena::ForcedDiceError& err) {
               throw NativeGame::ForcedDice(err.what());
             }
             return py::make_tuple(steps, flockgym::rng_to_state(picker));
           },
           py::arg("picker_state"), py::arg("max_steps"),
           "Random legal play from here (uniform over the legal actions, drawn by a "
           "generator in ``picker_state``): (decisions made, the picker's state after).");

  py::class_<NativeBot>(m, "HeuristicBot")
      .def(py::init<const py::dict&>(), py::arg("rng_state"),
           "bots.ArenaHeuristicBot compiled; ties it cannot settle are drawn from a "
           "generator in ``rng_state``.")
      .def("act", &NativeBot::act, py::arg("game"), "The move of the seat to act.")
      .def("state", &NativeBot::state,
           "{'rng': the generator's state, 'slides': (round, seat on turn, slides) or None}.")
      .def("set_slides", &NativeBot::set_slides, py::arg("slides"));

  flockgym::bind_batch<BatchGame, BatchOps, NativeGame>(m);
}
