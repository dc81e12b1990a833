// flockgym.envs.astrobirdz._native: the compiled Astrobirdz engine for Python.
//
// envs/astrobirdz/native.py wraps it as a GameEngine; the state moves between
// this engine and the Python one as a dict of plain fields (``dump`` /
// ``load``, the attributes of rules.AstrobirdzGame), so saving, loading and
// checking a state stay the Python engine's. The methods every game's engine
// shares come from envs/core/native/engine_bindings.hpp, the batched form from
// batch.hpp.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "astrobirdz_bot.hpp"
#include "astrobirdz_engine.hpp"
#include "batch.hpp"
#include "engine_bindings.hpp"
#include "numpy_rng_py.hpp"

namespace py = pybind11;
using astrobirdz::Game;
using astrobirdz::Mask;

namespace {

int number_bits(const py::handle& numbers) {
  int out = 0;
  for (const auto& k : numbers) out |= 1 << k.cast<int>();
  return out;
}

astrobirdz::Effect effect_from_dict(const py::dict& d) {
  astrobirdz::Effect e;
  for (const auto& item : d["card_points"]) {
    const auto t = item.cast<py::tuple>();
    e.card_points.push_back({t[0].cast<int>(), t[1].cast<int>(), t[2].cast<int>()});
  }
  e.trump_change_numbers = number_bits(d["trump_change_numbers"]);
  e.trump_change_to = d["trump_change_to"].cast<int>();
  for (const auto& item : d["values"]) {
    const auto t = item.cast<py::tuple>();
    e.values.emplace_back(t[0].cast<int>(), t[1].cast<int>());
  }
  e.protected_numbers = number_bits(d["protected"]);
  e.protected_beat_trump = d["protected_beat_trump"].cast<bool>();
  e.eights_beat_nines = d["eights_beat_nines"].cast<bool>();
  e.extra_draws = d["extra_draws"].cast<int>();
  e.replace_numbers = number_bits(d["replace_numbers"]);
  e.rotate_berzerkerbirdz = d["rotate_berzerkerbirdz"].cast<bool>();
  e.discard_one = d["discard_one"].cast<bool>();
  e.pass_right = d["pass_right"].cast<int>();
  e.trump_chooser = d["trump_chooser"].cast<int>();
  e.multiplier = d["multiplier"].cast<int>();
  e.parity_kind = d["parity_kind"].cast<int>();
  e.parity_points = d["parity_points"].cast<int>();
  e.first_trick_bonus = d["first_trick_bonus"].cast<int>();
  e.last_trick_bonus = d["last_trick_bonus"].cast<int>();
  e.trick_value = d["trick_value"].cast<int>();
  return e;
}

std::shared_ptr<const astrobirdz::Config> config_from_dict(const py::dict& d) {
  auto c = std::make_shared<astrobirdz::Config>();
  c->num_players = d["num_players"].cast<int>();
  if (c->num_players < 2 || c->num_players > astrobirdz::kMaxPlayers)
    throw py::value_error("num_players must be 2..6");
  c->berzerkerbirdz = d["berzerkerbirdz"].cast<bool>();
  c->pass_cards = d["pass_cards"].cast<bool>();
  c->highest_overall = d["highest_overall"].cast<bool>();
  c->ties_all = d["ties_all"].cast<bool>();
  c->youngest = d["youngest"].cast<int>();
  c->oldest = d["oldest"].cast<int>();
  c->turns = d["turns"].cast<int>();
  c->max_hand = d["max_hand"].cast<int>();
  const auto rules = d["rules"].cast<py::list>();
  if (rules.size() != astrobirdz::kNumCards) throw py::value_error("rules: one per card (54)");
  for (size_t i = 0; i < rules.size(); ++i) c->rules[i] = effect_from_dict(rules[i]);
  return c;
}

template <class Array>
std::vector<typename Array::value_type> first_n(const Array& items, int n) {
  return std::vector<typename Array::value_type>(items.begin(), items.begin() + n);
}

py::object turn_scores(const Game& g) {
  if (!g.has_last_turn) return py::none();
  py::list out;
  for (const auto& t : g.last_turn)
    out.append(std::vector<int64_t>{t.guess, t.tricks, t.trick_points, t.exact, t.highest,
                                    t.astroboard, t.turbo, t.card_points, t.berzerkerbird,
                                    t.first_last, t.penalty, t.floored, t.parity, t.multiplier,
                                    t.total});
  return out;
}

py::dict dump(const Game& g) {
  const int n = g.n();
  py::dict d;
  d["rng"] = flockgym::rng_to_state(g.rng);
  d["turn"] = g.turn;
  d["scores_"] = first_n(g.scores, n);
  d["birds"] = first_n(g.birds, n);
  d["dealer"] = g.dealer;
  d["hands"] = first_n(g.hands, n);
  d["deck"] = g.deck;
  d["discards"] = g.discards;
  d["trump_card"] = g.trump_card;
  d["trump"] = g.trump;
  d["phase"] = g.phase;
  d["actor"] = g.actor;
  d["choosers"] = g.choosers;
  d["need"] = first_n(g.need, n);
  d["allowed"] = first_n(g.allowed, n);
  d["chosen"] = first_n(g.chosen, n);
  d["partner"] = g.partner;
  d["traded"] = g.traded;
  d["guess_order"] = g.guess_order;
  d["guesses"] = first_n(g.guesses, n);
  d["peeked"] = g.peeked;
  d["astroboard"] = g.astroboard;
  d["trick"] = g.trick;
  d["trick_order"] = g.trick_order;
  d["finished"] = g.finished;
  d["finished_orders"] = g.finished_orders;
  d["trick_winners"] = g.trick_winners;
  d["holders"] = g.holders;
  d["played"] = g.played;
  std::vector<std::vector<Mask>> known;
  for (int o = 0; o < n; ++o) known.push_back(first_n(g.known[o], n));
  d["known"] = known;
  d["known_any"] = g.known_any;
  d["discarded"] = first_n(g.discarded, n);
  d["hand_size"] = g.hand_size;
  d["astro_partner"] = g.astro_partner;
  d["transfer"] = g.transfer;
  d["last_turn"] = turn_scores(g);
  d["last_trick_winners"] = g.last_trick_winners;
  d["over"] = g.over;
  return d;
}

template <class Array>
void fill_from(Array& target, const py::handle& value) {
  const auto items = value.cast<std::vector<typename Array::value_type>>();
  for (size_t i = 0; i < items.size() && i < target.size(); ++i) target[i] = items[i];
}

// Trusted: the Python side has checked the state (state.validate_state_dict) first.
void load(Game& g, const py::dict& d) {
  const int n = g.n();
  g.rng = flockgym::rng_from_state(d["rng"].cast<py::dict>());
  g.turn = d["turn"].cast<int>();
  g.scores.fill(0);
  fill_from(g.scores, d["scores_"]);
  g.birds.fill(0);
  fill_from(g.birds, d["birds"]);
  g.dealer = d["dealer"].cast<int>();
  g.hands.fill(0);
  fill_from(g.hands, d["hands"]);
  g.deck = d["deck"].cast<std::vector<int>>();
  g.discards = d["discards"].cast<std::vector<int>>();
  g.trump_card = d["trump_card"].cast<int>();
  g.trump = d["trump"].cast<int>();
  g.phase = d["phase"].cast<int>();
  g.actor = d["actor"].cast<int>();
  g.choosers = d["choosers"].cast<std::vector<int>>();
  g.need.fill(0);
  fill_from(g.need, d["need"]);
  g.allowed.fill(0);
  fill_from(g.allowed, d["allowed"]);
  for (auto& c : g.chosen) c.clear();
  fill_from(g.chosen, d["chosen"]);
  g.partner = d["partner"].cast<int>();
  g.traded = d["traded"].cast<int>();
  g.guess_order = d["guess_order"].cast<std::vector<int>>();
  g.guesses.fill(-1);
  fill_from(g.guesses, d["guesses"]);
  g.peeked = d["peeked"].cast<int>();
  g.astroboard = d["astroboard"].cast<int>();
  g.trick = d["trick"].cast<std::vector<int>>();
  g.trick_order = d["trick_order"].cast<std::vector<int>>();
  g.finished = d["finished"].cast<std::vector<std::vector<int>>>();
  g.finished_orders = d["finished_orders"].cast<std::vector<std::vector<int>>>();
  g.trick_winners = d["trick_winners"].cast<std::vector<int>>();
  g.holders = d["holders"].cast<std::vector<int>>();
  g.played = d["played"].cast<Mask>();
  const auto known = d["known"].cast<std::vector<std::vector<Mask>>>();
  for (auto& row : g.known) row.fill(0);
  for (int o = 0; o < n; ++o)
    for (int s = 0; s < n; ++s) g.known[o][s] = known.at(o).at(s);
  g.known_any = d["known_any"].cast<bool>();
  g.discarded.fill(0);
  fill_from(g.discarded, d["discarded"]);
  g.hand_size = d["hand_size"].cast<int>();
  g.astro_partner = d["astro_partner"].cast<int>();
  g.transfer = d["transfer"].cast<std::vector<int>>();
  g.last_turn.clear();
  g.has_last_turn = !d["last_turn"].is_none();
  if (g.has_last_turn)
    for (const auto& row : d["last_turn"].cast<std::vector<std::vector<int64_t>>>()) {
      const auto& v = row;
      g.last_turn.push_back({v.at(0), v.at(1), v.at(2), v.at(3), v.at(4), v.at(5), v.at(6),
                             v.at(7), v.at(8), v.at(9), v.at(10), v.at(11), v.at(12), v.at(13),
                             v.at(14)});
    }
  g.last_trick_winners = d["last_trick_winners"].cast<std::vector<int>>();
  g.over = d["over"].cast<bool>();
}

py::list scores(const Game& g) {
  py::list out;
  for (int s = 0; s < g.n(); ++s) out.append(py::float_(static_cast<double>(g.scores[s])));
  return out;
}

// The batched form's questions: a score is the points held.
struct BatchOps : flockgym::EngineOps<Game> {
  static double score(const Game& g, int seat) { return static_cast<double>(g.scores[seat]); }
};

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "The compiled Astrobirdz engine (see envs/astrobirdz/native.py).";
  py::class_<Game> engine(m, "Engine");
  engine.def(py::init([](const py::dict& config) {
               Game g;
               g.config = config_from_dict(config);
               return g;
             }),
             py::arg("config"));
  flockgym::bind_engine_common(engine, [](const Game& g) { return g.config->num_actions(); });
  // A deal that starts at a later turn (the scenarios'), beside the common new_game.
  engine
      .def(
          "new_game",
          [](Game& g, const py::dict& rng_state, int turn) {
            if (turn < 1 || turn > g.config->turns) throw py::value_error("turn out of range");
            g.rng = flockgym::rng_from_state(rng_state);
            g.new_game(turn);
          },
          py::arg("rng_state"), py::arg("turn"))
      .def("dump", &dump)
      .def("load", &load)
      .def("phase", [](const Game& g) { return g.phase; })
      .def("scores", &scores);
  flockgym::bind_heuristic_bot<astrobirdz::HeuristicBot, Game>(m);
  flockgym::bind_batch<Game, BatchOps>(m);
}
