// Many games of one configuration in arrays: every game's batched form.
//
// ``Batch<Game, Ops>`` holds N independent games copied from one configured
// prototype engine. Each game owns its numpy PCG64 generator (the state
// Python hands in, one per game), so game i deals exactly what the game's
// compiled engine, or its AEC env reset with the same seed, deals; when a game
// ends the batch deals it again from that same generator (as ``env.reset()``
// without a seed continues the previous game's generator). Every method
// writes into arrays the caller owns (no allocation per step), one row per
// game. ``play_random`` is random legal play inside C++, for the benchmarks.
//
// ``Ops`` answers the engine questions; the default, :struct:`EngineOps`,
// asks the engine interface engine_bindings.hpp describes (``rng``, ``over``,
// ``new_game()``, ``current_player()``, ``is_legal``, ``apply_action``,
// ``winners()``, ``observation_size()``, ``encode``, an optional
// ``truncated`` and ``write_mask``). A game whose engine differs (its deal
// needs more, its score has another name) derives from EngineOps and hides
// what differs; ``score`` has no default.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine_bindings.hpp"
#include "numpy_rng.hpp"
#include "numpy_rng_py.hpp"

namespace flockgym {

namespace py = pybind11;

// The reward modes of the envs' ``reward`` option (envs/core/rewards.py).
enum class RewardMode : int { kWin = 0, kRank = 1, kScore = 2 };

template <class Game>
struct EngineOps {
  static NumpyRng& rng(Game& g) { return g.rng; }
  // A new game from the generator ``rng(g)`` holds (``g`` is a copy of the
  // empty prototype with that generator set).
  static void deal(Game& g) { g.new_game(); }
  static int num_players(const Game& g) { return g.n(); }
  static int current_player(Game& g) { return g.current_player(); }
  static bool over(const Game& g) { return g.over; }
  static bool truncated(const Game& g) { return is_truncated(g); }
  static bool is_legal(Game& g, int action) { return g.is_legal(action); }
  static void apply(Game& g, int action) { g.apply_action(action); }
  static std::vector<int> winners(Game& g) { return g.winners(); }
  static int observation_size(const Game& g) { return g.observation_size(); }
  static void encode(const Game& g, int seat, float* out) { g.encode(seat, out); }
  static void write_mask(Game& g, int8_t* out, int num_actions) {
    if constexpr (has_write_mask<Game>::value) {
      g.write_mask(out, num_actions);
    } else {
      std::fill(out, out + num_actions, int8_t{0});
      for (int a : g.legal_actions())
        if (a >= 0 && a < num_actions) out[a] = 1;
    }
  }
};

// rewards.py's win_rewards: 1/k to each of k winners, -1/(n-k) to the others,
// 0 to all when all or none won.
inline void win_rewards(int n, const std::vector<int>& winners, double* out) {
  const int k = static_cast<int>(winners.size());
  if (k == 0 || k == n) {
    std::fill(out, out + n, 0.0);
    return;
  }
  const double win_share = 1.0 / k, lose_share = -1.0 / (n - k);
  std::fill(out, out + n, lose_share);
  for (int w : winners) out[w] = win_share;
}

// rewards.py's rank_rewards: +1 first to -1 last, tied players share the mean rank.
inline void rank_rewards(const std::vector<double>& scores, double* out) {
  const int n = static_cast<int>(scores.size());
  if (n < 2) {
    std::fill(out, out + n, 0.0);
    return;
  }
  std::vector<int> order(static_cast<size_t>(n));
  for (int s = 0; s < n; ++s) order[static_cast<size_t>(s)] = s;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return scores[a] > scores[b]; });
  int i = 0;
  while (i < n) {
    int j = i;
    while (j + 1 < n && scores[order[j + 1]] == scores[order[i]]) ++j;
    const double mean_rank = (i + j) / 2.0;
    for (int k = i; k <= j; ++k) out[order[k]] = 1.0 - 2.0 * mean_rank / (n - 1);
    i = j + 1;
  }
}

template <class Game, class Ops = EngineOps<Game>>
class Batch {
 public:
  // ``max_steps`` <= 0: no cap (the env's ``max_steps=None``).
  Batch(const Game& prototype, const std::vector<NumpyRng>& generators, int num_actions,
        int64_t max_steps, RewardMode reward)
      : prototype_(prototype),
        num_actions_(num_actions),
        max_steps_(max_steps),
        reward_(reward),
        num_players_(Ops::num_players(prototype)),
        observation_size_(Ops::observation_size(prototype)) {
    if (generators.empty()) throw py::value_error("a batch needs at least one game");
    games_.reserve(generators.size());
    for (const NumpyRng& rng : generators) {
      games_.push_back(prototype_);
      Ops::rng(games_.back()) = rng;
      Ops::deal(games_.back());
    }
    steps_.assign(generators.size(), 0);
    scores_before_.assign(static_cast<size_t>(num_players_), 0.0);
    scores_after_.assign(static_cast<size_t>(num_players_), 0.0);
  }

  int size() const { return static_cast<int>(games_.size()); }
  int num_actions() const { return num_actions_; }
  int num_players() const { return num_players_; }
  int observation_size() const { return observation_size_; }

  // Deal every game again from the generator ``generators[i]``.
  void reseed(const std::vector<NumpyRng>& generators) {
    if (generators.size() != games_.size())
      throw py::value_error("reseed needs one generator per game (" +
                            std::to_string(games_.size()) + "), got " +
                            std::to_string(generators.size()));
    for (size_t i = 0; i < games_.size(); ++i) deal_from(i, generators[i]);
  }

  void current_players(int32_t* out) {
    for (size_t i = 0; i < games_.size(); ++i) out[i] = player_of(i);
  }

  void masks(int8_t* out) {
    for (size_t i = 0; i < games_.size(); ++i) mask_of(i, out + i * num_actions_);
  }

  void observations(float* out) {
    for (size_t i = 0; i < games_.size(); ++i) observation_of(i, out + i * observation_size_);
  }

  // Check every action first (a refusal changes no game), then apply each,
  // write each game's rewards (one row per game, a column per seat) and
  // whether it ended (``finished``; ``truncated`` when cut short), and deal
  // every ended game again from its own generator.
  void step(const int64_t* actions, double* rewards, uint8_t* finished, uint8_t* truncated) {
    for (size_t i = 0; i < games_.size(); ++i) check_action(i, actions[i]);
    for (size_t i = 0; i < games_.size(); ++i)
      step_one(i, static_cast<int>(actions[i]), rewards + i * num_players_, finished[i],
               truncated[i]);
  }

  // Random legal play: per decision of each game in turn, its mask (and with
  // ``observe`` the actor's observation) is built as an env builds them and a
  // uniformly random legal action drawn from ``picker``; ended games are dealt
  // again. Returns the decisions made (``steps`` of them); ``finished`` counts
  // the games that ended.
  int64_t play_random(NumpyRng& picker, int64_t steps, bool observe, int64_t& finished_games) {
    std::vector<int8_t> mask(static_cast<size_t>(num_actions_));
    std::vector<float> observation(static_cast<size_t>(observation_size_));
    std::vector<int> legal;
    legal.reserve(static_cast<size_t>(num_actions_));
    std::vector<double> rewards(static_cast<size_t>(num_players_));
    int64_t played = 0;
    while (played < steps) {
      for (size_t i = 0; i < games_.size() && played < steps; ++i) {
        mask_of(i, mask.data());
        if (observe) observation_of(i, observation.data());
        legal.clear();
        for (int a = 0; a < num_actions_; ++a)
          if (mask[static_cast<size_t>(a)]) legal.push_back(a);
        uint8_t finished = 0, cut = 0;
        if (legal.empty()) {  // a deal that ended at once: deal again
          step_one(i, -1, rewards.data(), finished, cut);
          finished_games += finished;
          continue;
        }
        const int64_t pick = picker.integers(static_cast<int64_t>(legal.size()));
        step_one(i, legal[static_cast<size_t>(pick)], rewards.data(), finished, cut);
        ++played;
        finished_games += finished;
      }
    }
    return played;
  }

  py::list rng_states() {
    py::list out;
    for (Game& g : games_) out.append(rng_to_state(Ops::rng(g)));
    return out;
  }

  std::vector<int64_t> steps_played() const { return steps_; }

 private:
  Game prototype_;
  std::vector<Game> games_;
  std::vector<int64_t> steps_;
  int num_actions_;
  int64_t max_steps_;
  RewardMode reward_;
  int num_players_;
  int observation_size_;
  std::vector<double> scores_before_, scores_after_;

  void deal_from(size_t i, const NumpyRng& rng) {
    Game& g = games_[i];
    g = prototype_;
    Ops::rng(g) = rng;
    Ops::deal(g);
    steps_[i] = 0;
  }

  bool done(size_t i) {
    Game& g = games_[i];
    return Ops::over(g) || Ops::truncated(g) ||
           (max_steps_ > 0 && steps_[i] >= max_steps_);
  }

  int player_of(size_t i) {
    if (done(i)) return -1;
    const int p = Ops::current_player(games_[i]);
    return p < 0 ? -1 : p;
  }

  void mask_of(size_t i, int8_t* out) {
    if (player_of(i) < 0) {
      std::fill(out, out + num_actions_, int8_t{0});
      return;
    }
    Ops::write_mask(games_[i], out, num_actions_);
  }

  void observation_of(size_t i, float* out) {
    const int p = player_of(i);
    if (p < 0) {
      std::fill(out, out + observation_size_, 0.0f);
      return;
    }
    Ops::encode(games_[i], p, out);
  }

  void check_action(size_t i, int64_t action) {
    if (player_of(i) < 0) return;  // a deal that ended at once: its action is not read
    if (action >= 0 && action < num_actions_ && Ops::is_legal(games_[i], static_cast<int>(action)))
      return;
    std::vector<int8_t> mask(static_cast<size_t>(num_actions_));
    mask_of(i, mask.data());
    std::string legal;
    for (int a = 0; a < num_actions_; ++a)
      if (mask[static_cast<size_t>(a)]) legal += (legal.empty() ? "" : ", ") + std::to_string(a);
    throw py::value_error("game " + std::to_string(i) + ": action " + std::to_string(action) +
                          " is not legal for player " + std::to_string(player_of(i)) +
                          "; allowed: " + legal + " (no game was changed)");
  }

  void read_scores(size_t i, std::vector<double>& out) {
    for (int s = 0; s < num_players_; ++s) out[static_cast<size_t>(s)] = Ops::score(games_[i], s);
  }

  void step_one(size_t i, int action, double* rewards, uint8_t& finished, uint8_t& cut) {
    Game& g = games_[i];
    std::fill(rewards, rewards + num_players_, 0.0);
    finished = 0;
    cut = 0;
    if (player_of(i) >= 0) {
      if (reward_ == RewardMode::kScore) read_scores(i, scores_before_);
      Ops::apply(g, action);
      ++steps_[i];
      if (reward_ == RewardMode::kScore) {
        read_scores(i, scores_after_);
        for (int s = 0; s < num_players_; ++s)
          rewards[s] = scores_after_[static_cast<size_t>(s)] - scores_before_[static_cast<size_t>(s)];
      }
    }
    if (!done(i)) return;
    finished = 1;
    if (Ops::over(g)) {
      if (reward_ == RewardMode::kWin) {
        win_rewards(num_players_, Ops::winners(g), rewards);
      } else if (reward_ == RewardMode::kRank) {
        read_scores(i, scores_after_);
        rank_rewards(scores_after_, rewards);
      }
    } else {
      cut = 1;
    }
    const NumpyRng next = Ops::rng(g);
    deal_from(i, next);
  }
};

namespace batch_detail {

template <class T>
T* data_of(py::array_t<T, py::array::c_style>& a, py::ssize_t rows, py::ssize_t cols,
           const char* name, const char* dtype) {
  const bool ok = cols < 0 ? (a.ndim() == 1 && a.shape(0) == rows)
                           : (a.ndim() == 2 && a.shape(0) == rows && a.shape(1) == cols);
  if (!ok) {
    const std::string want = cols < 0 ? "[" + std::to_string(rows) + "]"
                                      : "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
    throw py::value_error(std::string(name) + " must be a C-contiguous " + dtype + " array of shape " +
                          want);
  }
  return a.mutable_data();
}

inline std::vector<NumpyRng> generators_of(const py::list& states) {
  std::vector<NumpyRng> out;
  for (const auto& s : states) out.push_back(rng_from_state(s.cast<py::dict>()));
  return out;
}

}  // namespace batch_detail

// ``Batch`` on the module ``m``. The arrays must be C-contiguous and of the
// exact dtype (the Python wrapper, envs/core/batched.py, checks and says so;
// pybind11 would otherwise convert into a temporary the caller never sees).
// The games hold no Python object, so the work runs without the GIL: batches
// in several threads play at once.
// ``Prototype`` is the Python-visible engine the batch is built from (by
// default ``Game`` itself; a game may batch a lighter type made from it).
template <class Game, class Ops = EngineOps<Game>, class Prototype = Game>
py::class_<Batch<Game, Ops>> bind_batch(py::module_& m) {
  using B = Batch<Game, Ops>;
  using batch_detail::data_of;
  using batch_detail::generators_of;
  constexpr auto exact = py::array::c_style;
  py::class_<B> cls(m, "Batch");
  cls.def(py::init([](const Prototype& prototype, const py::list& rng_states, int num_actions,
                      int64_t max_steps, int reward) {
            if (reward < 0 || reward > 2) throw py::value_error("reward must be 0 (win), 1 (rank) or 2 (score)");
            if (num_actions < 1) throw py::value_error("num_actions must be >= 1");
            return B(Game(prototype), generators_of(rng_states), num_actions, max_steps,
                     static_cast<RewardMode>(reward));
          }),
          py::arg("prototype"), py::arg("rng_states"), py::arg("num_actions"),
          py::arg("max_steps"), py::arg("reward"),
          "Games copied from ``prototype`` (an engine of the configuration), game i dealt "
          "from the numpy PCG64 state ``rng_states[i]``; a game that ends is dealt again "
          "from its own generator.")
      .def_property_readonly("size", &B::size)
      .def_property_readonly("num_actions", &B::num_actions)
      .def_property_readonly("num_players", &B::num_players)
      .def_property_readonly("observation_size", &B::observation_size)
      .def("reseed",
           [](B& b, const py::list& rng_states) { b.reseed(generators_of(rng_states)); },
           py::arg("rng_states"))
      .def(
          "current_players",
          [](B& b, py::array_t<int32_t, exact> out) {
            int32_t* data = data_of(out, b.size(), -1, "out", "int32");
            py::gil_scoped_release unlocked;
            b.current_players(data);
          },
          py::arg("out").noconvert())
      .def(
          "masks",
          [](B& b, py::array_t<int8_t, exact> out) {
            int8_t* data = data_of(out, b.size(), b.num_actions(), "out", "int8");
            py::gil_scoped_release unlocked;
            b.masks(data);
          },
          py::arg("out").noconvert())
      .def(
          "observations",
          [](B& b, py::array_t<float, exact> out) {
            float* data = data_of(out, b.size(), b.observation_size(), "out", "float32");
            py::gil_scoped_release unlocked;
            b.observations(data);
          },
          py::arg("out").noconvert())
      .def(
          "step",
          [](B& b, py::array_t<int64_t, exact> actions, py::array_t<double, exact> rewards,
             py::array_t<uint8_t, exact> finished, py::array_t<uint8_t, exact> truncated) {
            const int64_t* a = data_of(actions, b.size(), -1, "actions", "int64");
            double* r = data_of(rewards, b.size(), b.num_players(), "rewards", "float64");
            uint8_t* f = data_of(finished, b.size(), -1, "finished", "bool/uint8");
            uint8_t* t = data_of(truncated, b.size(), -1, "truncated", "bool/uint8");
            py::gil_scoped_release unlocked;
            b.step(a, r, f, t);
          },
          py::arg("actions").noconvert(), py::arg("rewards").noconvert(),
          py::arg("finished").noconvert(), py::arg("truncated").noconvert())
      .def(
          "play_random",
          [](B& b, const py::dict& picker_state, int64_t steps, bool observe) {
            NumpyRng picker = rng_from_state(picker_state);
            int64_t finished = 0, played = 0;
            {
              py::gil_scoped_release unlocked;
              played = b.play_random(picker, steps, observe, finished);
            }
            return py::make_tuple(played, finished, rng_to_state(picker));
          },
          py::arg("picker_state"), py::arg("steps"), py::arg("observe") = true,
          "Random legal play in C++: (decisions made, games ended, the picker's state after).")
      .def("rng_states", &B::rng_states)
      .def("steps_played", &B::steps_played);
  return cls;
}

}  // namespace flockgym
