// The Python methods every game's compiled engine and heuristic bot share, so
// that each game's pybind11 module binds only what is its own (the config and
// the state's plain fields, dump / load, its scores).
//
// An engine ``Game`` brings: a ``flockgym::NumpyRng rng``; ``bool over``;
// ``new_game()`` (a deal from ``rng``); ``current_player()``;
// ``legal_actions()`` (ascending ids); ``is_legal(int)``; ``apply_action(int)``
// (std::invalid_argument when illegal, which Python sees as ValueError);
// ``winners()``; ``observation_size()`` and ``encode(int seat, float* out)``.
// A game that can be cut short (``bool truncated``) is asked it as well; the
// others answer False. A bot ``Bot`` brings ``flockgym::NumpyRng rng`` and
// ``act(Game&)``.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "numpy_rng.hpp"
#include "numpy_rng_py.hpp"

namespace flockgym {

namespace py = pybind11;

// Whether ``Game`` has a ``truncated`` flag (a game cut short by its own rules).
template <class Game, class = void>
struct has_truncated : std::false_type {};
template <class Game>
struct has_truncated<Game, std::void_t<decltype(std::declval<const Game&>().truncated)>>
    : std::true_type {};

template <class Game>
bool is_truncated(const Game& g) {
  if constexpr (has_truncated<Game>::value) {
    return g.truncated;
  } else {
    return false;
  }
}

// Whether ``Game`` writes its mask itself (``write_mask(int8_t* out, int
// num_actions)``), faster than from the list of legal actions.
template <class Game, class = void>
struct has_write_mask : std::false_type {};
template <class Game>
struct has_write_mask<Game, std::void_t<decltype(std::declval<const Game&>().write_mask(
                                std::declval<int8_t*>(), 0))>> : std::true_type {};

// An int8 mask of ``num_actions`` entries, 1 at each of ``legal``.
inline py::array_t<int8_t> mask_array(const std::vector<int>& legal, int num_actions) {
  py::array_t<int8_t> mask(num_actions);
  int8_t* data = mask.mutable_data();
  std::fill(data, data + num_actions, int8_t{0});
  for (int a : legal)
    if (a >= 0 && a < num_actions) data[a] = 1;
  return mask;
}

// The mask of the player to act (all zeros when nobody is), a fresh array.
template <class Game>
py::array_t<int8_t> legal_mask(Game& g, int num_actions) {
  if constexpr (has_write_mask<Game>::value) {
    py::array_t<int8_t> mask(num_actions);
    g.write_mask(mask.mutable_data(), num_actions);
    return mask;
  } else {
    return mask_array(g.legal_actions(), num_actions);
  }
}

// The observation vector of ``seat`` as a fresh float32 array.
template <class Game>
py::array_t<float> encode_array(const Game& g, int seat) {
  py::array_t<float> out(g.observation_size());
  g.encode(seat, out.mutable_data());
  return out;
}

// Random legal play inside C++ (for the benchmarks): per decision the legal
// actions, the mask and the actor's observation are built, as an env would.
template <class Game>
int64_t play_random(Game& g, const py::dict& rng_state, int64_t max_steps, int num_actions) {
  // (num_actions: the size of the game's action space, so the mask is the env's.)
  NumpyRng draws = rng_from_state(rng_state);
  std::vector<int8_t> mask(static_cast<size_t>(num_actions));
  std::vector<float> observation(static_cast<size_t>(g.observation_size()));
  int64_t steps = 0;
  while (!g.over && !is_truncated(g) && steps < max_steps) {
    const std::vector<int> legal = g.legal_actions();
    std::fill(mask.begin(), mask.end(), int8_t{0});
    for (int a : legal) mask[static_cast<size_t>(a)] = 1;
    g.encode(g.current_player(), observation.data());
    const int64_t pick = draws.integers(static_cast<int64_t>(legal.size()));
    g.apply_action(legal[static_cast<size_t>(pick)]);
    ++steps;
  }
  return steps;
}

// The engine methods of the module docstring, on ``cls`` (py::class_<Game>).
// ``num_actions(g)`` is the size of the game's action space (play_random's
// mask); ``after_change(g)`` runs after a deal (a game's derived tables).
template <class Game, class NumActions, class AfterChange>
void bind_engine_common(py::class_<Game>& cls, NumActions num_actions, AfterChange after_change) {
  cls.def("copy", [](const Game& g) { return Game(g); })
      .def(
          "new_game",
          [after_change](Game& g, const py::dict& rng_state) {
            g.rng = rng_from_state(rng_state);
            g.new_game();
            after_change(g);
          },
          py::arg("rng_state"), "Deal a new game from a numpy PCG64 state.")
      .def("rng_state", [](const Game& g) { return rng_to_state(g.rng); })
      .def("current_player", [](Game& g) { return g.current_player(); })
      .def("is_over", [](const Game& g) { return g.over; })
      .def("is_truncated", [](const Game& g) { return is_truncated(g); })
      .def("legal_actions", [](Game& g) { return std::vector<int>(g.legal_actions()); })
      .def("legal_mask", [](Game& g, int n) { return legal_mask(g, n); })
      .def("is_legal", [](Game& g, int action) { return g.is_legal(action); })
      .def("is_legal_id", [](Game& g, int action, int) { return g.is_legal(action); })
      .def("apply_action", [](Game& g, int action) { g.apply_action(action); })
      .def("winners", [](Game& g) { return g.winners(); })
      .def("observation_size", [](const Game& g) { return g.observation_size(); })
      .def("encode", [](const Game& g, int seat) { return encode_array(g, seat); })
      .def(
          "play_random",
          [num_actions](Game& g, const py::dict& rng_state, int64_t max_steps) {
            return play_random(g, rng_state, max_steps, num_actions(g));
          },
          py::arg("rng_state"), py::arg("max_steps"));
}

template <class Game, class NumActions>
void bind_engine_common(py::class_<Game>& cls, NumActions num_actions) {
  bind_engine_common(cls, num_actions, [](Game&) {});
}

// ``HeuristicBot``: a compiled bot drawing its ties from a numpy PCG64 state.
template <class Bot, class Game>
py::class_<Bot> bind_heuristic_bot(py::module_& m) {
  py::class_<Bot> cls(m, "HeuristicBot");
  cls.def(py::init([](const py::dict& rng_state) {
            Bot bot;
            bot.rng = rng_from_state(rng_state);
            return bot;
          }),
          py::arg("rng_state"))
      .def(
          "act", [](Bot& bot, Game& g) { return bot.act(g); }, py::arg("engine"),
          "The bot's action for the engine's player to act (bots.py's choice).")
      .def("rng_state", [](const Bot& bot) { return rng_to_state(bot.rng); });
  return cls;
}

}  // namespace flockgym
