// flockgym.envs.skybirds._native: the compiled Skybirds engine for Python.
//
// envs/skybirds/native.py wraps it as a GameEngine; the state moves between
// this engine and the Python one as a dict of plain fields (``dump`` / ``load``,
// the attributes of rules.SkybirdsGame), so saving, loading and checking a
// state stay the Python engine's. The methods every game's engine shares come
// from envs/core/native/engine_bindings.hpp.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "batch.hpp"
#include "engine_bindings.hpp"
#include "numpy_rng_py.hpp"
#include "skybirds_bot.hpp"
#include "skybirds_engine.hpp"

namespace py = pybind11;
using skybirds::Game;

namespace {

skybirds::Config config_from_dict(const py::dict& d) {
  skybirds::Config c;
  c.num_players = d["num_players"].cast<int>();
  if (c.num_players < 2 || c.num_players > skybirds::kMaxPlayers)
    throw py::value_error("num_players must be 2..4");
  for (const auto& item : d["tokens"].cast<py::list>()) {
    const py::dict t = item.cast<py::dict>();
    skybirds::TokenInfo info;
    info.ribbon = t["ribbon"].cast<int>();
    info.vp_front = t["vp_front"].cast<int>();
    info.vp_back = t["vp_back"].cast<int>();
    info.dogfight_bit = t["dogfight_bit"].cast<int>();
    info.swap_cards = t["swap_cards"].cast<int>();
    info.armistice = t["armistice"].cast<bool>();
    info.tiebreaker = t["tiebreaker"].cast<bool>();
    info.prerequisites = t["prerequisites"].cast<std::vector<int>>();
    info.needs_all = t["needs_all"].cast<bool>();
    c.tokens.push_back(info);
  }
  if (c.tokens.size() > 20) throw py::value_error("at most 20 tokens");
  c.max_campaigns = d["max_campaigns"].cast<int>();
  c.armistice_ends_dogfight = d["armistice_ends_dogfight"].cast<bool>();
  c.one_token = d["one_token"].cast<bool>();
  c.max_vp = d["max_vp"].cast<double>();
  c.max_medallions = d["max_medallions"].cast<int>();
  return c;
}

py::object squadron_to_py(bool present, const skybirds::Squadron& s) {
  if (!present) return py::none();
  return py::make_tuple(s.player, s.cards, s.size, s.value, s.medallions, s.tokens, s.wild,
                        s.declare);
}

bool squadron_from_py(const py::handle& value, skybirds::Squadron& s) {
  if (value.is_none()) return false;
  const py::tuple t = value.cast<py::tuple>();
  s.player = t[0].cast<int>();
  s.cards = t[1].cast<std::vector<int>>();
  s.size = t[2].cast<int>();
  s.value = t[3].cast<int>();
  s.medallions = t[4].cast<int>();
  s.tokens = t[5].cast<std::vector<int>>();
  s.wild = t[6].cast<int>();
  s.declare = t[7].cast<int>();
  return true;
}

template <class Array>
std::vector<int> first_n(const Array& items, int n) {
  return std::vector<int>(items.begin(), items.begin() + n);
}

py::dict dump(const Game& g) {
  const int n = g.n();
  py::dict d;
  d["rng"] = flockgym::rng_to_state(g.rng);
  d["campaign"] = g.campaign;
  d["phase"] = g.phase;
  d["step"] = g.step;
  d["actor"] = g.actor;
  std::vector<std::vector<int>> hands, tokens;
  for (int s = 0; s < n; ++s) {
    hands.emplace_back(g.hands[s].begin(), g.hands[s].end());
    tokens.emplace_back(g.tokens[s].begin(), g.tokens[s].end());
  }
  d["hands"] = hands;
  d["box"] = std::vector<int>(g.box.begin(), g.box.end());
  d["played"] = std::vector<int>(g.played.begin(), g.played.end());
  d["table"] = squadron_to_py(g.has_table, g.table);
  d["squadron_size"] = g.squadron_size;
  d["last_player"] = g.last_player;
  d["passes"] = g.passes;
  d["passed"] = std::vector<bool>(g.passed.begin(), g.passed.begin() + n);
  d["position"] = g.position;
  d["garros_due"] = g.garros_due;
  d["finish"] = g.finish;
  d["tokens"] = tokens;
  d["plus_one"] = first_n(g.plus_one, n);
  d["fractional"] = first_n(g.fractional, n);
  d["pool"] = g.pool;
  d["armistice_by"] = g.armistice_by;
  d["over"] = g.over;
  d["truncated"] = g.truncated;
  d["pend_tokens"] = g.pend_tokens;
  d["pend_cards"] = g.pend_cards;
  d["pend_wild"] = g.pend_wild;
  d["pend_token"] = g.pend_token;
  d["pend_target"] = g.pend_target;
  d["pre_queue"] = g.pre_queue;
  d["pre_used"] = first_n(g.pre_used, n);
  d["takes"] = g.takes;
  d["campaign_over"] = g.campaign_over;
  d["dogfight_over"] = g.dogfight_over;
  d["trade_queue"] = g.trade_queue;
  d["first_leader"] = g.first_leader;
  d["last_winner"] = g.last_winner;
  d["last_squadron"] = squadron_to_py(g.has_last_squadron, g.last_squadron);
  return d;
}

template <class Array>
void fill_from(Array& target, const py::handle& value) {
  const auto items = value.cast<std::vector<int>>();
  for (size_t i = 0; i < items.size() && i < target.size(); ++i) target[i] = items[i];
}

// Trusted: the Python side has checked the state (state.validate_state) first.
void load(Game& g, const py::dict& d) {
  const int n = g.n();
  g.rng = flockgym::rng_from_state(d["rng"].cast<py::dict>());
  g.campaign = d["campaign"].cast<int>();
  g.phase = d["phase"].cast<int>();
  g.step = d["step"].cast<int>();
  g.actor = d["actor"].cast<int>();
  const auto hands = d["hands"].cast<std::vector<std::vector<int>>>();
  const auto tokens = d["tokens"].cast<std::vector<std::vector<int>>>();
  for (int s = 0; s < skybirds::kMaxPlayers; ++s) {
    g.hands[s].fill(0);
    g.tokens[s].assign(g.config.k(), skybirds::MAT);
  }
  for (int s = 0; s < n; ++s) {
    for (int k = 0; k < skybirds::kKinds; ++k) g.hands[s][k] = hands.at(s).at(k);
    for (int i = 0; i < g.config.k(); ++i) g.tokens[s][i] = static_cast<uint8_t>(tokens.at(s).at(i));
  }
  fill_from(g.box, d["box"]);
  fill_from(g.played, d["played"]);
  g.has_table = squadron_from_py(d["table"], g.table);
  g.squadron_size = d["squadron_size"].cast<int>();
  g.last_player = d["last_player"].cast<int>();
  g.passes = d["passes"].cast<int>();
  g.passed.fill(false);
  const auto passed = d["passed"].cast<std::vector<bool>>();
  for (size_t s = 0; s < passed.size() && s < g.passed.size(); ++s) g.passed[s] = passed[s];
  g.position = d["position"].cast<int>();
  g.garros_due = d["garros_due"].cast<bool>();
  g.finish = d["finish"].cast<std::vector<int>>();
  g.plus_one.fill(0);
  fill_from(g.plus_one, d["plus_one"]);
  g.fractional.fill(-1);
  fill_from(g.fractional, d["fractional"]);
  g.pool = d["pool"].cast<std::vector<int>>();
  g.armistice_by = d["armistice_by"].cast<int>();
  g.over = d["over"].cast<bool>();
  g.truncated = d["truncated"].cast<bool>();
  g.pend_tokens = d["pend_tokens"].cast<std::vector<int>>();
  g.pend_cards = d["pend_cards"].cast<std::vector<int>>();
  g.pend_wild = d["pend_wild"].cast<int>();
  g.pend_token = d["pend_token"].cast<int>();
  g.pend_target = d["pend_target"].cast<int>();
  g.pre_queue = d["pre_queue"].cast<std::vector<int>>();
  g.pre_used.fill(0);
  fill_from(g.pre_used, d["pre_used"]);
  g.takes = d["takes"].cast<std::vector<int>>();
  g.campaign_over = d["campaign_over"].cast<bool>();
  g.dogfight_over = d["dogfight_over"].cast<bool>();
  g.trade_queue = d["trade_queue"].cast<std::vector<int>>();
  g.first_leader = d["first_leader"].cast<int>();
  g.last_winner = d["last_winner"].cast<int>();
  g.has_last_squadron = squadron_from_py(d["last_squadron"], g.last_squadron);
  g.recount();
  g.changed();
}

py::list scores(const Game& g) {
  // The Python engine's VP are ints until a fractional token is held.
  py::list out;
  for (int s = 0; s < g.n(); ++s) {
    const double vp = g.vp(s);
    if (g.fractional[s] >= 0)
      out.append(py::float_(vp));
    else
      out.append(py::int_(static_cast<long long>(vp)));
  }
  return out;
}

// The batched form's questions: a deal refreshes the derived tables, a score is VP.
struct BatchOps : flockgym::EngineOps<Game> {
  static void deal(Game& g) {
    g.new_game();
    g.changed();
  }
  static double score(const Game& g, int seat) { return g.vp(seat); }
};

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "The compiled Skybirds engine (see envs/skybirds/native.py).";
  py::class_<Game> engine(m, "Engine");
  engine.def(py::init([](const py::dict& config) {
               Game g;
               g.set_config(config_from_dict(config));
               return g;
             }),
             py::arg("config"));
  flockgym::bind_engine_common(
      engine, [](const Game& g) { return g.layout.size; }, [](Game& g) { g.changed(); });
  engine.def("dump", &dump).def("load", &load).def("scores", &scores);
  flockgym::bind_heuristic_bot<skybirds::HeuristicBot, Game>(m).def_readwrite(
      "plan", &skybirds::HeuristicBot::plan);
  flockgym::bind_batch<Game, BatchOps>(m);
}
