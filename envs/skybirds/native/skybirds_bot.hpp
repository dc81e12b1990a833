// The Skybirds heuristic bot (envs/skybirds/bots.py) in C++17, choice for
// choice: it reads from the engine only what the Python bot reads from its
// seat's view (its own hand, the table, cards played, cards left, tokens held)
// and the legal actions, keeps the same plan of a token move's steps, and
// breaks the same ties with the same draws (numpy's Generator.choice).
#pragma once

#include <algorithm>
#include <tuple>
#include <vector>

#include "numpy_rng.hpp"
#include "skybirds_engine.hpp"

namespace skybirds {

constexpr int kLateHand = 3;   // LATE_HAND
constexpr int kHighValue = 8;  // HIGH_VALUE

// valid_moves: every move with exactly the bonuses ``bits`` against ``table``.
inline std::vector<Move> valid_moves(const Hand& hand, int bits, const Table& table) {
  std::vector<Move> all, out;
  shape_moves(hand, bits & SHAPE_BITS, all);
  const int mods = bits & ~SHAPE_BITS;
  for (const Move& m : all)
    if (fits(m.size, m.value, m.icons, mods, table)) out.push_back(m);
  return out;
}

// _move_cost: fewer and lower Aces, no Medallion Aces.
using MoveCost = std::tuple<double, double, double>;
inline MoveCost move_cost(const Move& m) {
  int count = m.count, total = 0;
  for (int i = 0; i < m.count; ++i) total += m.naturals[i];
  if (m.wild) {
    total += m.wild;
    ++count;
  }
  return {static_cast<double>(m.icons), static_cast<double>(total) / std::max(1, count),
          static_cast<double>(-count)};
}

struct HeuristicBot {
  flockgym::NumpyRng rng;
  std::vector<int> plan;  // the remaining steps of a planned token move, as action ids

  int act(Game& g) {
    const std::vector<int> legal = g.legal_actions();
    const int choice = decide(g, legal);
    if (choice < 0 || !std::binary_search(legal.begin(), legal.end(), choice)) {
      plan.clear();
      return legal[static_cast<size_t>(rng.integers(static_cast<int64_t>(legal.size())))];
    }
    return choice;
  }

  static bool has(const std::vector<int>& legal, int action) {
    return std::binary_search(legal.begin(), legal.end(), action);
  }

  int decide(Game& g, const std::vector<int>& legal) {
    if (g.phase == DOGFIGHT) {
      if (g.step != START) {
        int planned = follow_plan(legal);
        if (planned < 0) planned = replan(g, legal);
        return planned;
      }
      plan.clear();
      return dogfight(g, legal);
    }
    if (g.phase == TAKE) return take(g, legal);
    if (g.phase == TRADE) return trade(g, legal);
    if (g.phase == PRE_CAMPAIGN) return pre_campaign(g, legal);
    return -1;
  }

  int follow_plan(const std::vector<int>& legal) {
    if (plan.empty()) return -1;
    const int action = plan.front();
    plan.erase(plan.begin());
    return has(legal, action) ? action : -1;
  }

  // _move_steps as action ids (the plan).
  static std::vector<int> move_steps(const Game& g, const Move& m, const std::vector<int>& used) {
    std::vector<int> steps;
    for (int token : used) steps.push_back(USE_OFFSET + token);
    for (int i = 0; i < m.count; ++i) steps.push_back(g.layout.add_offset + m.naturals[i]);
    if (m.wild) {
      steps.push_back(g.layout.wild_offset + m.wild - 1);
      steps.push_back(g.layout.declare_offset + m.declare - 1);
    } else {
      steps.push_back(g.layout.done);
    }
    return steps;
  }

  int replan(Game& g, const std::vector<int>& legal) {
    const int bits = g.pending_bits().second;
    const std::vector<int>& prefix = g.pend_cards;
    const int wild = g.pend_wild;
    const Hand& hand = g.hands[g.actor];
    const Move* best = nullptr;
    MoveCost best_cost;
    const std::vector<Move> moves = valid_moves(hand, bits, g.table_key());
    for (const Move& m : moves) {
      if (!Game::prefix_matches(m, prefix)) continue;
      if (wild && !(m.count == static_cast<int>(prefix.size()) && m.wild == wild)) continue;
      const MoveCost cost = move_cost(m);
      if (best == nullptr || cost < best_cost) {
        best = &m;
        best_cost = cost;
      }
    }
    if (best == nullptr) {
      for (int a : legal)
        if (a >= USE_OFFSET && a < g.layout.add_offset) return a;
      return -1;
    }
    const std::vector<int> steps = move_steps(g, *best, {});
    const size_t done = prefix.size() + (wild ? 1 : 0);
    plan.assign(steps.begin() + static_cast<long>(done) + 1, steps.end());
    return steps[done];
  }

  // -- Dogfights --

  static int hand_total(const Hand& hand) {
    int total = 0;
    for (int c : hand) total += c;
    return total;
  }

  // _unbeatable: no unseen Medallion Ace above ``value``.
  static bool unbeatable(const Game& g, const Hand& hand, int value) {
    for (int v = value + 1; v <= 10; ++v)
      if (kMedallions[v] && kCardCounts[v] - g.played[v] - hand[v]) return false;
    return true;
  }

  static bool decisive(const Game& g, const Hand& hand) {
    for (int s = 0; s < g.n(); ++s)
      if (s != g.actor && g.left[s] && g.left[s] <= kLateHand) return true;
    return hand_total(hand) <= kLateHand + 1;
  }

  int dogfight(Game& g, const std::vector<int>& legal) {
    const Hand& hand = g.hands[g.actor];
    std::vector<int> plays;
    for (int a : legal)
      if (a < PASS) plays.push_back(a);
    if (!g.has_table) return lead(g, hand, plays);
    return follow(g, hand, plays);
  }

  int lead(const Game& g, const Hand& hand, const std::vector<int>& plays) {
    if (hand[kGarros]) {
      if (std::find(plays.begin(), plays.end(), GARROS_ALONE) != plays.end()) return GARROS_ALONE;
      return plays.empty() ? -1 : plays[0];
    }
    std::vector<int> plain, strong;
    for (int v = 1; v <= 10; ++v)
      if (hand[v]) (kMedallions[v] ? strong : plain).push_back(v);
    int value;
    if (plain.size() <= 1 && !strong.empty() && unbeatable(g, hand, strong.back()))
      value = strong.back();
    else if (!plain.empty())
      value = plain[0];
    else
      value = strong[0];
    return plain_ids().set_id[value][hand[value]];
  }

  static std::pair<int, int> set_of(int action) {
    const auto& cards = plain_ids().cards[action];
    return {cards.back(), static_cast<int>(cards.size())};
  }

  int follow(Game& g, const Hand& hand, const std::vector<int>& plays) {
    const int size = g.squadron_size;
    const bool is_decisive = decisive(g, hand);
    if (!plays.empty()) {
      int best = -1;
      std::pair<int, int> best_cost;
      for (int a : plays) {
        const auto [value, count] = set_of(a);
        const bool breaks = hand[value] > count;
        const bool medallion = kMedallions[value] && count < size;
        const std::pair<int, int> cost = {value + (breaks ? 6 : 0) + (medallion ? 20 : 0), value};
        if (best < 0 || cost < best_cost) {
          best = a;
          best_cost = cost;
        }
      }
      const auto [value, count] = set_of(best);
      const bool medallion_single = kMedallions[value] && count < size;
      const bool goes_out = count == hand_total(hand);
      if (goes_out || !medallion_single || is_decisive || unbeatable(g, hand, value)) {
        const bool early = hand_total(hand) > 2 * kLateHand && !is_decisive;
        if (!(early && value >= kHighValue && hand[value] > count)) return best;
      }
      return PASS;
    }
    if (is_decisive) {
      const std::vector<int> planned = token_move(g, hand);
      if (!planned.empty()) {
        plan.assign(planned.begin() + 1, planned.end());
        return planned[0];
      }
    }
    return PASS;
  }

  std::vector<int> token_move(Game& g, const Hand& hand) {
    const auto usable = g.usable_tokens(g.actor);
    if (usable.empty()) return {};
    const Table table = g.table_key();
    bool found = false;
    std::tuple<int, int, double, double, double> best_score;
    std::vector<int> best_steps;
    for (int token_bits : g.token_sets(usable, table)) {
      std::vector<int> used;
      int flipped = 0, bonus = 0;
      for (int i = 0; i < g.config.k(); ++i)
        if (token_bits >> i & 1) {
          used.push_back(i);
          flipped += g.tokens[g.actor][i] == BACK ? 1 : 0;
          bonus |= g.config.tokens[i].dogfight_bit;
        }
      for (const Move& m : valid_moves(hand, bonus, table)) {
        const auto [icons, average, fewer] = move_cost(m);
        const auto score = std::make_tuple(flipped, static_cast<int>(used.size()), icons, average,
                                           fewer);
        if (!found || score < best_score) {
          found = true;
          best_score = score;
          best_steps = move_steps(g, m, used);
        }
      }
    }
    return best_steps;
  }

  // -- tokens --

  static double token_score(const Game& g, int index) {
    const auto& token = g.config.tokens[index];
    if (token.armistice) return 1000.0;
    int opens = 0;
    for (int t = 0; t < g.config.k(); ++t) {
      const auto& prereqs = g.config.tokens[t].prerequisites;
      if (std::find(prereqs.begin(), prereqs.end(), index) != prereqs.end() &&
          g.tokens[g.actor][t] == MAT)
        ++opens;
    }
    return token.vp_front * 10 + opens + (token.tiebreaker ? 0.5 : 0.0);
  }

  static int best_token(const Game& g, const std::vector<int>& options) {
    int best = options[0];
    double best_score = token_score(g, best);
    for (size_t i = 1; i < options.size(); ++i) {
      const double score = token_score(g, options[i]);
      if (score > best_score) {
        best = options[i];
        best_score = score;
      }
    }
    return best;
  }

  int take(const Game& g, const std::vector<int>& legal) {
    std::vector<int> options;
    for (int i = 0; i < g.config.k(); ++i)
      if (has(legal, g.layout.take_offset + i)) options.push_back(i);
    if (options.empty()) return has(legal, g.layout.plus_one) ? g.layout.plus_one : -1;
    return g.layout.take_offset + best_token(g, options);
  }

  int trade(const Game& g, const std::vector<int>& legal) {
    std::vector<int> options;
    for (int i = 0; i < g.config.k(); ++i)
      if (has(legal, g.layout.trade_offset + i)) options.push_back(i);
    if (options.empty()) return g.layout.done;
    return g.layout.trade_offset + best_token(g, options);
  }

  int pre_campaign(const Game& g, const std::vector<int>& legal) {
    const Hand& hand = g.hands[g.actor];
    if (g.step == START) {
      int singles = 0;
      for (int v = 1; v <= 3; ++v)
        if (hand[v] == 1) ++singles;
      for (int i = 0; i < g.config.k(); ++i) {
        const int need = g.config.tokens[i].swap_cards == 1 ? 1 : 2;
        const bool face_up = g.tokens[g.actor][i] == FRONT;
        if (has(legal, USE_OFFSET + i) && face_up && singles >= need) return USE_OFFSET + i;
      }
      return g.layout.done;
    }
    if (g.step == TARGET) {
      int best = -1, most = -1;
      for (int a : legal) {
        if (a < g.layout.target_offset || a >= g.layout.give_offset) continue;
        const int cards = g.left[g.layout.target_seat(g.actor, a)];
        if (cards > most) {
          best = a;
          most = cards;
        }
      }
      return best;
    }
    int first_give = -1;
    for (int a : legal) {
      if (a < g.layout.give_offset || a >= g.layout.take_offset) continue;
      if (first_give < 0) first_give = a;
      if (a != g.layout.give_offset + kGarros) return a;
    }
    return first_give;
  }
};

}  // namespace skybirds
