// flockgym.envs.asrus._native: the compiled Asrus engine and heuristic bot for Python.
//
// envs/asrus/native.py wraps it as a GameEngine; the state moves between this
// engine and the Python one as a dict of plain fields (``dump`` / ``load``, the
// attributes of rules.AsrusGame with plays as action ids), so saving, loading
// and checking a state stay the Python engine's. The methods every game's
// engine shares come from envs/core/native/engine_bindings.hpp.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <vector>

#include "asrus_bot.hpp"
#include "asrus_engine.hpp"
#include "batch.hpp"
#include "engine_bindings.hpp"
#include "numpy_rng_py.hpp"

namespace py = pybind11;
using asrus::Game;

namespace {

asrus::Config config_from_dict(const py::dict& d) {
  asrus::Config c;
  c.num_players = d["num_players"].cast<int>();
  if (c.num_players < 3 || c.num_players > asrus::kMaxPlayers)
    throw py::value_error("num_players must be 3..9");
  c.hand_size = d["hand_size"].cast<int>();
  c.specials_per_player = d["specials_per_player"].cast<int>();
  c.starting_points = d["starting_points"].cast<int64_t>();
  c.rounds = d["rounds"].cast<int>();
  c.target = d["target"].cast<int64_t>();
  c.elimination = d["elimination"].cast<bool>();
  c.jokers = d["jokers"].cast<bool>();
  const auto counts = d["number_counts"].cast<std::vector<int>>();
  if (counts.size() != 16) throw py::value_error("number_counts must have 16 entries");
  for (size_t i = 0; i < 16; ++i) c.number_counts[i] = counts[i];
  c.retrogrades_cancel = d["retrogrades_cancel"].cast<bool>();
  c.deposit_farthest = d["deposit_farthest"].cast<bool>();
  c.majority_ties_all = d["majority_ties_all"].cast<bool>();
  c.fixed_destination = d["fixed_destination"].cast<int>();
  c.max_hand_size = d["max_hand_size"].cast<int>();
  c.special_deck_size = d["special_deck_size"].cast<int>();
  if (c.hand_size < 1 || c.hand_size > 64 || c.specials_per_player < 0 ||
      c.specials_per_player > 13)
    throw py::value_error("hand_size must be 1..64 and specials_per_player 0..13");
  return c;
}

template <class Array>
std::vector<int> first_n(const Array& items, int n) {
  return std::vector<int>(items.begin(), items.begin() + n);
}

py::object optional_seat(int seat) { return seat < 0 ? py::none() : py::object(py::int_(seat)); }

py::object result_to_py(const Game& g) {
  if (!g.has_result) return py::none();
  const asrus::TurnResult& r = g.last_result;
  const int n = g.n();
  return py::make_tuple(r.destination, first_n(r.plays, n), r.kind, optional_seat(r.winner),
                        r.distance, std::vector<int64_t>(r.deltas.begin(), r.deltas.begin() + n),
                        r.deposit_before, r.deposit_after, r.blackhole);
}

bool result_from_py(const py::handle& value, asrus::TurnResult& r) {
  if (value.is_none()) return false;
  const py::tuple t = value.cast<py::tuple>();
  r.destination = t[0].cast<int>();
  r.plays.fill(0);
  const auto plays = t[1].cast<std::vector<int>>();
  for (size_t s = 0; s < plays.size() && s < r.plays.size(); ++s) r.plays[s] = plays[s];
  r.kind = t[2].cast<int>();
  r.winner = t[3].is_none() ? asrus::kNoPlayer : t[3].cast<int>();
  r.distance = t[4].cast<int>();
  r.deltas.fill(0);
  const auto deltas = t[5].cast<std::vector<int64_t>>();
  for (size_t s = 0; s < deltas.size() && s < r.deltas.size(); ++s) r.deltas[s] = deltas[s];
  r.deposit_before = t[6].cast<int64_t>();
  r.deposit_after = t[7].cast<int64_t>();
  r.blackhole = t[8].cast<bool>();
  return true;
}

py::object lottery_to_py(const Game& g) {
  if (!g.has_lottery) return py::none();
  const asrus::Lottery& l = g.last_lottery;
  return py::make_tuple(l.draws, l.winners, l.amount);
}

bool lottery_from_py(const py::handle& value, asrus::Lottery& l) {
  if (value.is_none()) return false;
  const py::tuple t = value.cast<py::tuple>();
  l.draws = t[0].cast<std::vector<std::vector<std::pair<int, int>>>>();
  l.winners = t[1].cast<std::vector<int>>();
  l.amount = t[2].cast<int64_t>();
  return true;
}

py::dict dump(const Game& g) {
  const int n = g.n();
  py::dict d;
  d["rng"] = flockgym::rng_to_state(g.rng);
  std::vector<std::vector<int>> hands, specials;
  std::vector<py::object> pending;
  for (int s = 0; s < n; ++s) {
    hands.emplace_back(g.hands[s].begin(), g.hands[s].end());
    specials.emplace_back(g.specials[s].begin(), g.specials[s].end());
    pending.push_back(optional_seat(g.pending[s]));
  }
  d["hands"] = hands;
  d["specials"] = specials;
  d["points"] = std::vector<int64_t>(g.points.begin(), g.points.begin() + n);
  d["number_pile"] = std::vector<int>(g.number_pile.begin(), g.number_pile.end());
  d["special_pile"] = std::vector<int>(g.special_pile.begin(), g.special_pile.end());
  d["destination"] = g.destination;
  d["destination_card"] = g.destination_card;
  d["deposit"] = g.deposit;
  d["table_points"] = g.table_points;
  d["round"] = g.round;
  d["turn"] = g.turn;
  d["pending"] = pending;
  d["committed"] = g.committed;
  d["revealed"] = std::vector<int>(g.revealed.begin(), g.revealed.end());
  d["last_result"] = result_to_py(g);
  d["last_lottery"] = lottery_to_py(g);
  d["over"] = g.over;
  return d;
}

template <class Array>
void fill_from(Array& target, const py::handle& value) {
  target.fill(0);
  const auto items = value.cast<std::vector<typename Array::value_type>>();
  for (size_t i = 0; i < items.size() && i < target.size(); ++i) target[i] = items[i];
}

// Trusted: the Python side has checked the state (rules.validate_state) first.
void load(Game& g, const py::dict& d) {
  const int n = g.n();
  g.rng = flockgym::rng_from_state(d["rng"].cast<py::dict>());
  const auto hands = d["hands"].cast<std::vector<py::object>>();
  const auto specials = d["specials"].cast<std::vector<py::object>>();
  const auto pending = d["pending"].cast<std::vector<py::object>>();
  for (auto& hand : g.hands) hand.fill(0);
  for (auto& held : g.specials) held.fill(0);
  g.pending.fill(-1);
  for (int s = 0; s < n; ++s) {
    fill_from(g.hands[s], hands.at(s));
    fill_from(g.specials[s], specials.at(s));
    g.pending[s] = pending.at(s).is_none() ? -1 : pending.at(s).cast<int>();
  }
  fill_from(g.points, d["points"]);
  fill_from(g.number_pile, d["number_pile"]);
  fill_from(g.special_pile, d["special_pile"]);
  g.destination = d["destination"].cast<int>();
  g.destination_card = d["destination_card"].cast<bool>();
  g.deposit = d["deposit"].cast<int64_t>();
  g.table_points = d["table_points"].cast<int64_t>();
  g.round = d["round"].cast<int>();
  g.turn = d["turn"].cast<int>();
  g.committed = d["committed"].cast<int>();
  fill_from(g.revealed, d["revealed"]);
  g.has_result = result_from_py(d["last_result"], g.last_result);
  g.has_lottery = lottery_from_py(d["last_lottery"], g.last_lottery);
  g.over = d["over"].cast<bool>();
}

py::array_t<int8_t> seat_mask(const Game& g, int seat) {
  py::array_t<int8_t> mask(asrus::kNumActions);
  g.mask_for(seat, mask.mutable_data());
  return mask;
}

// The batched form's questions: a score is the points held.
struct BatchOps : flockgym::EngineOps<Game> {
  static double score(const Game& g, int seat) {
    return g.scores()[static_cast<size_t>(seat)];
  }
};

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "The compiled Asrus engine and heuristic bot (see envs/asrus/native.py).";
  py::class_<Game> engine(m, "Engine");
  engine.def(py::init([](const py::dict& config) {
               Game g;
               g.config = config_from_dict(config);
               return g;
             }),
             py::arg("config"));
  flockgym::bind_engine_common(engine, [](const Game&) { return asrus::kNumActions; });
  engine.def("dump", &dump)
      .def("load", &load)
      .def("scores", &Game::scores)
      .def("committed", [](const Game& g) { return g.committed; })
      .def("legal_actions_for", &Game::legal_actions_for, py::arg("seat"))
      .def("seat_mask", &seat_mask, py::arg("seat"),
           "legal_masks()[seat]: what ``seat`` may commit this turn (a fresh array).");
  flockgym::bind_heuristic_bot<asrus::HeuristicBot, Game>(m);
  flockgym::bind_batch<Game, BatchOps>(m);
}
