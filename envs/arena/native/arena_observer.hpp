// The Arena's observation vector in C++: observer.py's field table written for
// one seat straight into the output (observer.ArenaObserver keeps a shared
// store and refreshes only what changed; here every field is written afresh,
// which costs less than comparing). Each value is the same double expression
// as observer.py's, rounded to float32 as numpy rounds it; tests compare the
// vectors exactly.
#pragma once

#include <algorithm>
#include <cstring>

#include "arena_engine.hpp"

namespace arena {

// observer.Scales (the real maximum of each unbounded count) and the die top.
struct Scales {
  int move = 1, need = 1, total = 1, bonus = 1, extra = 1, max_sides = 1;
};

class Observer {
 public:
  Observer(const Box& box, int n, const Scales& scales) : box_(box), n_(n), scales_(scales) {
    for (int sp = 0; sp < box.num_spaces(); ++sp)
      if (box.kind_of[static_cast<size_t>(sp)] == K_MANEUVER || box.kind_of[static_cast<size_t>(sp)] == K_WORLD)
        card_space_.push_back(sp);
    const int s = box.num_spaces(), c = box.num_cards(), g = box.num_gyms(), h = box.num_characters();
    const int k = box.num_medal_cards(), corners = static_cast<int>(box.corners.size());
    size_ = 13 + NUM_TASKS + 1 + 1 + 3 + 1 + 1 + 1 + 2 + 6 + 1 + 2 + 17 + 3 + 16;
    size_ += n * (s + 3 + h + 2 + 3 + 3 + 1) + h + n * (1 + g + 5 + 3);
    size_ += c * (2 + n) + c * 2 + k * (2 + n) + k + s * 4 + s + s + corners * (g + 2) + c;
  }

  int size() const { return size_; }

  void encode(const Game& game, int o, float* out) const {
    std::memset(out, 0, sizeof(float) * static_cast<size_t>(size_));
    const Box& b = box_;
    const int n = n_;
    float* at = out;
    auto f = [](double v) { return static_cast<float>(v); };
    const double trophies = b.trophies;
    // phase, task
    if (!game.over) at[game.phase] = 1.0f;
    at += 13;
    if (game.task >= 0) at[game.task] = 1.0f;
    at += NUM_TASKS;
    // round, supply, medal_supply, medal_stack
    at[0] = f(static_cast<double>(game.rounds) / game.config.max_rounds);
    at[1] = f(game.supply / trophies);
    for (int i = 0; i < 3; ++i)
      at[2 + i] = f(static_cast<double>(game.medal_supply[static_cast<size_t>(i)]) / std::max(1, b.medal_supply[static_cast<size_t>(i)]));
    at[5] = f(static_cast<double>(game.medal_stack.size()) / std::max(1, b.num_medal_cards()));
    at += 6;
    // steps_left, move_total, moving
    at[0] = f(std::min(1.0, static_cast<double>(game.steps_left) / scales_.move));
    at[1] = f(std::min(1.0, static_cast<double>(game.move_total) / scales_.move));
    at[2] = game.entered ? 1.0f : 0.0f;
    at[3] = game.stopped ? 1.0f : 0.0f;
    at += 4;
    // challenge, challenge_need, challenge_spent
    if (game.ch_kind > 0) at[game.ch_kind - 1] = 1.0f;
    at += 6;
    if (game.ch_kind > 0 && game.ch_kind != CH_STANDARD)
      at[0] = f(static_cast<double>(game.challenge_need(game.ch_kind, game.ch_item)) / scales_.need);
    at += 1;
    at[0] = f(game.ch_spent[0] / trophies);
    at[1] = f(game.ch_spent[1] / trophies);
    at += 2;
    // last_encounter
    if (!game.last_encounter.empty()) {
      at[game.last_encounter[0]] = 1.0f;
      at[9 + game.last_encounter[1] - 1] = 1.0f;
    }
    at += 17;
    // last_challenge
    if (game.last_challenge.present) {
      const auto& lc = game.last_challenge;
      at[0] = lc.success ? 1.0f : 0.0f;
      at[1] = f(std::min(1.0, std::max(0.0, static_cast<double>(lc.total) / scales_.total)));
      const int defender_total = lc.standard ? lc.defender_total : 0;
      at[2] = f(std::min(1.0, std::max(0.0, static_cast<double>(defender_total) / scales_.total)));
    }
    at += 3;
    // recent_rolls, newest first
    {
      const auto& log = game.roll_log;
      const size_t shown = std::min<size_t>(8, log.size());
      const double top = scales_.max_sides;
      for (size_t r = 0; r < shown; ++r) {
        const Roll& roll = log[log.size() - 1 - r];
        at[2 * r] = f(roll.value / top);
        at[2 * r + 1] = f(roll.sides / top);
      }
      at += 16;
    }
    const int s_count = b.num_spaces(), h = b.num_characters(), g_count = b.num_gyms();
    // position
    for (int r = 0; r < n; ++r) {
      const int pos = game.positions[static_cast<size_t>((o + r) % n)];
      if (pos >= 0) at[pos] = 1.0f;
      at += s_count;
    }
    // identity
    for (int r = 0; r < n; ++r) {
      const size_t s = static_cast<size_t>((o + r) % n);
      if (game.forms[s] >= 0) at[game.forms[s]] = 1.0f;
      if (game.characters[s] >= 0) at[3 + game.characters[s]] = 1.0f;
      at += 3 + h;
    }
    // trophies
    for (int r = 0; r < n; ++r) {
      const size_t s = static_cast<size_t>((o + r) % n);
      at[0] = f(game.trophies[s] / trophies);
      at[1] = f(game.bonus_trophies[s] / trophies);
      at += 2;
    }
    // medals
    for (int r = 0; r < n; ++r) {
      const auto& m = game.medals[static_cast<size_t>((o + r) % n)];
      for (int i = 0; i < 3; ++i) at[i] = m[static_cast<size_t>(i)] ? 1.0f : 0.0f;
      at += 3;
    }
    // status
    const double dark_most = b.dark_matter_turns + 1;
    for (int r = 0; r < n; ++r) {
      const size_t s = static_cast<size_t>((o + r) % n);
      at[0] = game.lost_turns[s] > 0 ? 1.0f : 0.0f;
      at[1] = f(game.dark[s] / dark_most);
      at[2] = game.first_turn[s] ? 1.0f : 0.0f;
      at += 3;
    }
    // wished
    for (int r = 0; r < n; ++r) at[r] = game.wishes[static_cast<size_t>((o + r) % n)] >= 0 ? 1.0f : 0.0f;
    at += n;
    // own_wish
    if (game.wishes[static_cast<size_t>(o)] >= 0) at[game.wishes[static_cast<size_t>(o)]] = 1.0f;
    at += h;
    // worlds_won
    for (int r = 0; r < n; ++r)
      at[r] = f(std::min(1.0, static_cast<double>(game.worlds_won[static_cast<size_t>((o + r) % n)]) / b.win_worlds));
    at += n;
    // gym_powers
    for (int r = 0; r < n; ++r) {
      const auto& p = game.powers[static_cast<size_t>((o + r) % n)];
      for (int gym = 0; gym < g_count; ++gym) at[gym] = f(static_cast<double>(p[static_cast<size_t>(gym)]) / b.gym_power_cards);
      at += g_count;
    }
    // roles
    const int placed = game.task == T_WORMHOLE_PLACE && !game.task_args.empty() ? game.task_args[0] : -1;
    for (int r = 0; r < n; ++r) {
      const int s = (o + r) % n;
      if (!game.over) {
        if (game.turn_seat == s) at[0] = 1.0f;
        if (game.actor == s) at[1] = 1.0f;
      }
      if (game.ch_defender == s) at[2] = 1.0f;
      if (game.forced_target == s) at[3] = 1.0f;
      if (placed == s) at[4] = 1.0f;
      at += 5;
    }
    // roll_prep
    for (int r = 0; r < n; ++r) {
      const size_t s = static_cast<size_t>((o + r) % n);
      at[0] = f(std::min(1.0, static_cast<double>(game.roll_bonus[s]) / scales_.bonus));
      at[1] = game.roll_gold[s] ? 1.0f : 0.0f;
      at[2] = f(std::min(1.0, static_cast<double>(game.roll_extra[s]) / scales_.extra));
      at += 3;
    }
    // card_holder, card_info
    const double last = std::max(1, s_count - 1);
    const int c_count = b.num_cards();
    for (int card = 0; card < c_count; ++card) {
      const int holder = game.card_holder[static_cast<size_t>(card)];
      if (holder == BOARD) {
        at[0] = 1.0f;
      } else if (holder == BOX || holder == DISCARD) {
        at[1] = 1.0f;
      } else {
        at[2 + ((holder - o) % n + n) % n] = 1.0f;
      }
      at += 2 + n;
    }
    for (int card = 0; card < c_count; ++card) {
      const size_t c = static_cast<size_t>(card);
      at[0] = game.defended[c] >= 0 ? 1.0f : 0.0f;
      at[1] = game.card_holder[c] == BOARD ? f(game.card_space[c] / last) : 0.0f;
      at += 2;
    }
    // medal_holder, medal_space
    const int k_count = b.num_medal_cards();
    for (int k = 0; k < k_count; ++k) {
      const int holder = game.medal_holder[static_cast<size_t>(k)];
      if (holder == IN_STACK) {
        at[0] = 1.0f;
      } else if (holder == ON_BOARD) {
        at[1] = 1.0f;
      } else {
        at[2 + ((holder - o) % n + n) % n] = 1.0f;
      }
      at += 2 + n;
    }
    for (int k = 0; k < k_count; ++k) {
      const size_t kk = static_cast<size_t>(k);
      at[k] = game.medal_holder[kk] == ON_BOARD ? f(game.medal_space[kk] / last) : 0.0f;
    }
    at += k_count;
    // space_item, space_need, space_named (card spaces only; the rest stay zero)
    float* item_at = at;
    float* need_at = at + 4 * s_count;
    float* named_at = need_at + s_count;
    const int own_character = game.characters[static_cast<size_t>(o)];
    for (int sp : card_space_) {
      const int item = game.space_item[static_cast<size_t>(sp)];
      double need = 0.0;
      if (item < 0) {
        item_at[4 * sp] = 1.0f;
      } else if (item < c_count) {
        const CardInfo& card = b.cards[static_cast<size_t>(item)];
        item_at[4 * sp + (card.is_world ? 2 : 1)] = 1.0f;
        const int value = card.is_world && game.config.world_printed ? card.number : card.challenge;
        need = static_cast<double>(value) / scales_.need;
        if (own_character >= 0 && card.character == own_character) named_at[sp] = 1.0f;
      } else {
        item_at[4 * sp + 3] = 1.0f;
        need = static_cast<double>(b.medal_target) / scales_.need;
      }
      need_at[sp] = f(need);
    }
    at = named_at + s_count;
    // corners
    const int width = g_count + 2;
    for (size_t corner = 0; corner < game.gym_at.size(); ++corner) {
      const int gym = game.gym_at[corner];
      float* row = at + corner * static_cast<size_t>(width);
      row[gym] = 1.0f;
      row[g_count] = f(static_cast<double>(game.gym_trophies[corner]) / std::max(1, b.gym_trophies));
      row[g_count + 1] = f(static_cast<double>(game.gym_cards[static_cast<size_t>(gym)]) / b.gym_power_cards);
    }
    at += static_cast<int>(b.corners.size()) * width;
    // task_card
    if (game.task == T_SLIDE_RETURN && !game.task_args.empty()) at[game.task_args[0]] = 1.0f;
  }

 private:
  const Box& box_;
  int n_;
  Scales scales_;
  std::vector<int> card_space_;
  int size_ = 0;
};

}  // namespace arena
