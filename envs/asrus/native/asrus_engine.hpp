// The Asrus rules in C++17, decision for decision the Python engine's
// (envs/asrus/rules.py, the readable reference; each function here names the
// Python function it follows). The Python side (envs/asrus/native.py) builds
// the configuration, reads and checks saved states, deals scenarios and names
// actions; this header holds the state, the legal actions, the turn's
// resolution, the end of a round (lottery, next deal) and the observation
// vector (observer.py), and draws from numpy's PCG64 exactly as rules.py does.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "numpy_rng.hpp"

namespace asrus {

using flockgym::NumpyRng;

constexpr int kMaxPlayers = 9;
constexpr int kNumbers = 15;
constexpr int kNumSlots = 13;                       // actions.NUM_SLOTS
constexpr int kNumActions = kNumbers * kNumSlots;   // 195
constexpr int kSpecialKinds = 6;                    // C B D M R, then the joker
constexpr int kJoker = 5;                           // actions.JOKER_INDEX
constexpr int kNoPlayer = -1;
constexpr int kSpecialCountEach = 2;                // data.SPECIAL_COUNT_EACH
constexpr int kJokerCount = 3;                      // data.JOKER_COUNT

// Powers, as actions.SLOTS names them: slot 0 none, 1..5 the specials C B D M R,
// 6..12 a joker declared C B D M R X T.
enum Power : int { NONE = 0, CLOSE = 1, BLACKHOLE = 2, DOUBLE = 3, MAJORITY = 4, RETRO = 5,
                   EXPLOSION = 6, TRIPLE = 7 };
// OUTCOME_KINDS, in order.
enum Kind : int { MAJORITY_WIN = 0, CLOSEST = 1, FARTHEST = 2, DRAW = 3, EXPLOSION_KIND = 4 };

inline int number_of(int action) { return action / kNumSlots + 1; }
inline int slot_of(int action) { return action % kNumSlots; }
inline int power_of_slot(int slot) { return slot <= 5 ? slot : slot - 5; }
inline bool joker_slot(int slot) { return slot > 5; }
// The special-card index a slot spends (C B D M R joker), or -1 for none.
inline int special_of_slot(int slot) { return slot == 0 ? -1 : (slot <= 5 ? slot - 1 : kJoker); }

using Counts = std::array<int, 16>;  // per number, index 0 unused
using Specials = std::array<int, kSpecialKinds>;

// AsrusConfig, resolved (rounds and target -1 stand for None).
struct Config {
  int num_players = 5;
  int hand_size = 12;
  int specials_per_player = 2;
  int64_t starting_points = 90;
  int rounds = 1;  // -1: no limit
  int64_t target = -1;
  bool elimination = true;
  bool jokers = false;
  Counts number_counts{};
  bool retrogrades_cancel = false;
  bool deposit_farthest = false;
  bool majority_ties_all = false;
  int fixed_destination = 0;
  int max_hand_size = 12;
  int special_deck_size = 10;

  int observation_size() const { return 63 + 33 * num_players; }
};

// TurnResult (Outcome inlined): -1 for no winner.
struct TurnResult {
  int destination = 0;
  std::array<int, kMaxPlayers> plays{};  // action ids
  int kind = DRAW;
  int winner = kNoPlayer;
  int distance = 0;
  std::array<int64_t, kMaxPlayers> deltas{};
  int64_t deposit_before = 0;
  int64_t deposit_after = 0;
  bool blackhole = false;
};

// LotteryResult: each draw round's (seat, number) pairs in seat order.
struct Lottery {
  std::vector<std::vector<std::pair<int, int>>> draws;
  std::vector<int> winners;
  int64_t amount = 0;
  int64_t share() const { return amount / static_cast<int64_t>(winners.size()); }
};

// draw_from: k cards drawn without replacement from a count pile (in place):
// a permutation of the pile's positions, each turned back into its card by the
// running counts (bisect_right), as rules.py draws every hand.
template <size_t N>
inline void draw_from(std::array<int, N>& pile, int k, NumpyRng& rng, int* out) {
  std::array<int, N> ends{};
  int size = 0;
  for (size_t i = 0; i < N; ++i) {
    size += pile[i];
    ends[i] = size;
  }
  if (k > size) throw std::invalid_argument("cannot draw more cards than the pile holds");
  std::array<int64_t, 64> picks{};
  for (int i = 0; i < size; ++i) picks[static_cast<size_t>(i)] = i;
  rng.shuffle(picks.data(), size);
  for (int j = 0; j < k; ++j) {
    const int position = static_cast<int>(picks[static_cast<size_t>(j)]);
    size_t card = 0;
    while (ends[card] <= position) ++card;  // bisect_right(ends, position)
    out[j] = static_cast<int>(card);
  }
  for (int j = 0; j < k; ++j) --pile[static_cast<size_t>(out[j])];
}

struct Game {
  Config config;
  NumpyRng rng;
  std::array<Counts, kMaxPlayers> hands{};
  std::array<Specials, kMaxPlayers> specials{};
  std::array<int64_t, kMaxPlayers> points{};
  Counts number_pile{};
  Specials special_pile{};
  int destination = 0;
  bool destination_card = true;
  int64_t deposit = 0;
  int64_t table_points = 0;
  int round = 1;
  int turn = 1;
  std::array<int, kMaxPlayers> pending{};  // action ids, -1 for none
  int committed = 0;
  Counts revealed{};
  bool has_result = false;
  TurnResult last_result;
  bool has_lottery = false;
  Lottery last_lottery;
  bool over = false;

  int n() const { return config.num_players; }

  // -- preparation (AsrusGame.new and deal_round, without a scenario) --

  Counts full_number_pile() const { return config.number_counts; }
  Specials full_special_pile() const {
    Specials pile{};
    for (int i = 0; i < kJoker; ++i) pile[static_cast<size_t>(i)] = kSpecialCountEach;
    pile[kJoker] = config.jokers ? kJokerCount : 0;
    return pile;
  }

  void new_game() {
    for (int s = 0; s < kMaxPlayers; ++s) points[static_cast<size_t>(s)] = 0;
    for (int s = 0; s < n(); ++s) points[static_cast<size_t>(s)] = config.starting_points;
    deposit = 0;
    table_points = config.starting_points * n();
    round = 1;
    has_result = has_lottery = false;
    last_lottery = Lottery{};
    over = false;
    deal_round();
  }

  void deal_round() {
    number_pile = full_number_pile();
    special_pile = full_special_pile();
    for (auto& hand : hands) hand.fill(0);
    for (auto& held : specials) held.fill(0);
    destination_card = config.fixed_destination == 0;
    int drawn[64];
    for (int seat = 0; seat < n(); ++seat) {
      draw_from(number_pile, config.hand_size, rng, drawn);
      for (int j = 0; j < config.hand_size; ++j) ++hands[static_cast<size_t>(seat)][static_cast<size_t>(drawn[j])];
      draw_from(special_pile, config.specials_per_player, rng, drawn);
      for (int j = 0; j < config.specials_per_player; ++j)
        ++specials[static_cast<size_t>(seat)][static_cast<size_t>(drawn[j])];
    }
    if (destination_card) {
      draw_from(number_pile, 1, rng, drawn);
      destination = drawn[0];
    } else {
      destination = config.fixed_destination;
    }
    pending.fill(-1);
    committed = 0;
    revealed.fill(0);
    turn = 1;
  }

  // -- the GameEngine interface --

  int current_player() const { return over ? kNoPlayer : committed; }

  bool holds(int seat, int action) const {
    const auto& hand = hands[static_cast<size_t>(seat)];
    if (hand[static_cast<size_t>(number_of(action))] <= 0) return false;
    const int special = special_of_slot(slot_of(action));
    return special < 0 || specials[static_cast<size_t>(seat)][static_cast<size_t>(special)] > 0;
  }

  bool is_legal(int action) const {
    return !over && action >= 0 && action < kNumActions && holds(committed, action);
  }

  // legal_actions_for: what ``seat`` may commit this turn, ascending.
  std::vector<int> legal_actions_for(int seat) const {
    std::vector<int> out;
    const auto& hand = hands[static_cast<size_t>(seat)];
    const auto& held = specials[static_cast<size_t>(seat)];
    for (int number = 1; number <= kNumbers; ++number) {
      if (hand[static_cast<size_t>(number)] <= 0) continue;
      const int base = (number - 1) * kNumSlots;
      out.push_back(base);
      for (int slot = 1; slot < kNumSlots; ++slot)
        if (held[static_cast<size_t>(special_of_slot(slot))] > 0) out.push_back(base + slot);
    }
    return out;
  }

  std::vector<int> legal_actions() const {
    if (over) return {};
    return legal_actions_for(committed);
  }

  // legal_masks()[seat] written into ``mask`` (kNumActions entries).
  void mask_for(int seat, int8_t* mask) const {
    const auto& hand = hands[static_cast<size_t>(seat)];
    const auto& held = specials[static_cast<size_t>(seat)];
    int8_t slots[kNumSlots];
    slots[0] = 1;
    for (int slot = 1; slot < kNumSlots; ++slot)
      slots[slot] = held[static_cast<size_t>(special_of_slot(slot))] > 0 ? 1 : 0;
    for (int number = 1; number <= kNumbers; ++number) {
      int8_t* row = mask + (number - 1) * kNumSlots;
      if (hand[static_cast<size_t>(number)] > 0) {
        std::copy(slots, slots + kNumSlots, row);
      } else {
        std::fill(row, row + kNumSlots, int8_t{0});
      }
    }
  }

  // legal_mask(num_actions): the mask of the player to act, zeros when the game is over.
  void write_mask(int8_t* mask, int num_actions) const {
    std::fill(mask, mask + num_actions, int8_t{0});
    if (over) return;
    if (num_actions >= kNumActions) {
      mask_for(committed, mask);
      return;
    }
    int8_t full[kNumActions];
    mask_for(committed, full);
    std::copy(full, full + num_actions, mask);
  }

  void apply_action(int action) {
    if (!is_legal(action)) throw std::invalid_argument("illegal Asrus action");
    const int seat = committed;
    pending[static_cast<size_t>(seat)] = action;
    ++committed;
    if (seat == n() - 1) resolve();
  }

  std::vector<double> scores() const {
    std::vector<double> out;
    for (int s = 0; s < n(); ++s) out.push_back(static_cast<double>(points[static_cast<size_t>(s)]));
    return out;
  }

  std::vector<int> winners() const {
    const int64_t best = *std::max_element(points.begin(), points.begin() + n());
    std::vector<int> out;
    for (int s = 0; s < n(); ++s)
      if (points[static_cast<size_t>(s)] == best) out.push_back(s);
    return out;
  }

  // -- one turn (decide_winner, payment_per_player, settle) --

  struct Outcome {
    int kind;
    int winner;
    int distance;
  };

  // majority_seat: the only Majority played on a major number at a non-zero
  // distance, else -1.
  int majority_seat(const int* numbers, const int* powers, const int* original) const {
    int counts[16] = {0};
    for (int s = 0; s < n(); ++s) ++counts[numbers[s]];
    int most = 0, tied = 0;
    for (int number = 1; number <= kNumbers; ++number) most = std::max(most, counts[number]);
    for (int number = 1; number <= kNumbers; ++number) tied += counts[number] == most ? 1 : 0;
    if (tied > 1 && !config.majority_ties_all) return kNoPlayer;
    int found = kNoPlayer, on_major = 0;
    for (int s = 0; s < n(); ++s) {
      if (powers[s] == MAJORITY && counts[numbers[s]] == most && original[s] > 0) {
        if (on_major == 0) found = s;
        ++on_major;
      }
    }
    return on_major == 1 ? found : kNoPlayer;
  }

  // decide_winner: distances doubled, so Close's half step is a whole one.
  Outcome decide_winner(const int* plays) const {
    int numbers[kMaxPlayers], powers[kMaxPlayers], original[kMaxPlayers], adjusted[kMaxPlayers];
    bool any_majority = false;
    int retrogrades = 0;
    for (int s = 0; s < n(); ++s) {
      numbers[s] = number_of(plays[s]);
      powers[s] = power_of_slot(slot_of(plays[s]));
      if (powers[s] == EXPLOSION) return {EXPLOSION_KIND, kNoPlayer, 0};
      any_majority = any_majority || powers[s] == MAJORITY;
      retrogrades += powers[s] == RETRO ? 1 : 0;
    }
    for (int s = 0; s < n(); ++s) {
      original[s] = std::abs(numbers[s] - destination);
      adjusted[s] = 2 * original[s] - (powers[s] == CLOSE ? 1 : 0);
    }
    if (any_majority) {
      const int seat = majority_seat(numbers, powers, original);
      if (seat != kNoPlayer) return {MAJORITY_WIN, seat, original[seat]};
    }
    const bool reversed_turn =
        retrogrades > 0 && (config.retrogrades_cancel ? retrogrades % 2 == 1 : true);
    int best_seat = kNoPlayer;
    for (int s = 0; s < n(); ++s) {
      if (adjusted[s] <= 0) continue;
      bool unique = true;
      for (int o = 0; o < n() && unique; ++o) unique = o == s || adjusted[o] != adjusted[s];
      if (!unique) continue;
      if (best_seat == kNoPlayer || (reversed_turn ? adjusted[s] > adjusted[best_seat]
                                                   : adjusted[s] < adjusted[best_seat]))
        best_seat = s;
    }
    if (best_seat == kNoPlayer) return {DRAW, kNoPlayer, draw_deposit(original, reversed_turn)};
    return {reversed_turn ? FARTHEST : CLOSEST, best_seat, original[best_seat]};
  }

  // draw_deposit: the smallest non-zero distance, or under retrograde_deposit
  // "farthest" in a reversed turn the largest; 0 when there is none.
  int draw_deposit(const int* original, bool reversed_turn) const {
    if (reversed_turn && config.deposit_farthest) {
      int top = 0;
      for (int s = 0; s < n(); ++s) top = std::max(top, original[s]);
      return top;
    }
    int low = 0;
    for (int s = 0; s < n(); ++s)
      if (original[s] > 0 && (low == 0 || original[s] < low)) low = original[s];
    return low;
  }

  static int64_t payment_per_player(const Outcome& outcome, int play) {
    int64_t amount = outcome.distance;
    const int power = power_of_slot(slot_of(play));
    if (power == DOUBLE) amount *= 2;
    else if (power == TRIPLE) amount *= 3;
    const int number = number_of(play);
    if (number == 1 || number == 15) amount *= 2;
    return amount;
  }

  // settle: the outcome turned into points (deltas, deposit), stored as last_result.
  void settle(const int* plays) {
    const Outcome outcome = decide_winner(plays);
    TurnResult& r = last_result;
    r.destination = destination;
    for (int s = 0; s < n(); ++s) r.plays[static_cast<size_t>(s)] = plays[s];
    r.kind = outcome.kind;
    r.winner = outcome.winner;
    r.distance = outcome.distance;
    r.deposit_before = deposit;
    r.blackhole = false;
    auto& deltas = r.deltas;
    deltas.fill(0);
    if (outcome.kind == DRAW) {
      const int64_t deposited = outcome.distance;
      int64_t paid = 0;
      for (int s = 0; s < n(); ++s) {
        const int64_t p = points[static_cast<size_t>(s)];
        deltas[static_cast<size_t>(s)] = p > deposited ? -deposited : -p;
        paid -= deltas[static_cast<size_t>(s)];
      }
      deposit += paid;
    } else if (outcome.winner != kNoPlayer) {
      const int winner = outcome.winner;
      const int64_t owed = payment_per_player(outcome, plays[winner]);
      int64_t taken = 0;
      for (int s = 0; s < n(); ++s) {
        const int64_t p = points[static_cast<size_t>(s)];
        deltas[static_cast<size_t>(s)] = s == winner ? 0 : (p > owed ? -owed : -p);
        taken -= deltas[static_cast<size_t>(s)];
      }
      for (int s = 0; s < n(); ++s)
        r.blackhole = r.blackhole || power_of_slot(slot_of(plays[s])) == BLACKHOLE;
      if (r.blackhole) {
        deposit += taken;
      } else {
        deltas[static_cast<size_t>(winner)] = taken + deposit;
        deposit = 0;
      }
    }
    for (int s = 0; s < n(); ++s) points[static_cast<size_t>(s)] += deltas[static_cast<size_t>(s)];
    r.deposit_after = deposit;
    has_result = true;
  }

  // _resolve: reveal, settle points, move cards, then end the round or game if due.
  void resolve() {
    int plays[kMaxPlayers];
    for (int s = 0; s < n(); ++s) plays[s] = pending[static_cast<size_t>(s)];
    settle(plays);
    has_lottery = false;
    move_cards(plays, last_result.winner);
    pending.fill(-1);
    committed = 0;
    ++turn;
    if (eliminated()) {
      over = true;
    } else if (hands_empty()) {
      end_round();
    }
  }

  void move_cards(const int* plays, int winner) {
    for (int s = 0; s < n(); ++s) {
      const int number = number_of(plays[s]);
      --hands[static_cast<size_t>(s)][static_cast<size_t>(number)];
      ++revealed[static_cast<size_t>(number)];
      const int special = special_of_slot(slot_of(plays[s]));
      if (special >= 0) {
        --specials[static_cast<size_t>(s)][static_cast<size_t>(special)];
        ++special_pile[static_cast<size_t>(special)];
      }
      if (s != winner) ++number_pile[static_cast<size_t>(number)];
    }
    if (winner != kNoPlayer) {
      if (destination_card) ++number_pile[static_cast<size_t>(destination)];
      destination = number_of(plays[winner]);
      destination_card = true;
    }
  }

  bool hands_empty() const {
    for (int s = 0; s < n(); ++s)
      for (int number = 1; number <= kNumbers; ++number)
        if (hands[static_cast<size_t>(s)][static_cast<size_t>(number)]) return false;
    return true;
  }

  bool eliminated() const {
    if (!config.elimination) return false;
    int broke = 0;
    for (int s = 0; s < n(); ++s) broke += points[static_cast<size_t>(s)] <= 0 ? 1 : 0;
    return broke > 0 && broke >= (n() + 3) / 4;
  }

  void end_round() {
    if (deposit > 0) {
      draw_lottery();
      const int64_t share = last_lottery.share();
      for (int seat : last_lottery.winners) points[static_cast<size_t>(seat)] += share;
      deposit -= share * static_cast<int64_t>(last_lottery.winners.size());
      has_lottery = true;
    }
    const int64_t best = *std::max_element(points.begin(), points.begin() + n());
    const bool target_hit = config.target >= 0 && best >= config.target;
    const bool rounds_done = config.rounds >= 0 && round >= config.rounds;
    if (target_hit || rounds_done) {
      over = true;
      return;
    }
    ++round;
    deal_round();
  }

  // lottery_can_single_out: a card for each contender, and two different numbers.
  bool lottery_can_single_out(int contenders) const {
    int size = 0, kinds = 0;
    for (int count : number_pile) {
      size += count;
      kinds += count ? 1 : 0;
    }
    return size >= contenders && kinds >= 2;
  }

  // draw_lottery: the lowest card drawn takes the deposits; ties draw again.
  void draw_lottery() {
    Lottery lottery;
    std::vector<int> contenders;
    for (int s = 0; s < n(); ++s) contenders.push_back(s);
    int drawn[kMaxPlayers];
    while (contenders.size() > 1 && lottery_can_single_out(static_cast<int>(contenders.size()))) {
      Counts pile = number_pile;
      draw_from(pile, static_cast<int>(contenders.size()), rng, drawn);
      std::vector<std::pair<int, int>> draw;
      int low = 16;
      for (size_t i = 0; i < contenders.size(); ++i) {
        draw.emplace_back(contenders[i], drawn[i]);
        low = std::min(low, drawn[i]);
      }
      std::vector<int> next;
      for (const auto& [seat, card] : draw)
        if (card == low) next.push_back(seat);
      lottery.draws.push_back(std::move(draw));
      contenders = std::move(next);
    }
    lottery.winners = contenders;
    lottery.amount = deposit;
    last_lottery = std::move(lottery);
  }

  // -- the observation vector (observer.py's AsrusObserver.encode) --

  int observation_size() const { return config.observation_size(); }

  void encode(int seat, float* out) const {
    const int count = n();
    std::fill(out, out + observation_size(), 0.0f);
    const auto rel = [&](int s) { return (s - seat + count) % count; };  // seat -> rel
    const auto& hand = hands[static_cast<size_t>(seat)];
    const auto& held = specials[static_cast<size_t>(seat)];
    const float third = static_cast<float>(1.0 / 3.0);
    for (int number = 1; number <= kNumbers; ++number)
      out[number - 1] = static_cast<float>(hand[static_cast<size_t>(number)]) * 0.125f;
    for (int i = 0; i < kSpecialKinds; ++i)
      out[15 + i] = static_cast<float>(held[static_cast<size_t>(i)]) * third;
    int at = 21;
    out[at + destination - 1] = 1.0f;
    at += 15;
    out[at++] = destination_card ? 1.0f : 0.0f;
    int64_t sum_points = 0;
    for (int s = 0; s < count; ++s) sum_points += points[static_cast<size_t>(s)];
    const double total = static_cast<double>(std::max<int64_t>(1, sum_points + deposit));
    out[at++] = static_cast<float>(static_cast<double>(deposit) / total);
    const int points_at = at;
    const int held_at = points_at + count;
    const double deck = static_cast<double>(config.special_deck_size);
    for (int s = 0; s < count; ++s) {
      out[points_at + rel(s)] =
          static_cast<float>(static_cast<double>(points[static_cast<size_t>(s)]) / total);
      int specials_held = 0;
      for (int c : specials[static_cast<size_t>(s)]) specials_held += c;
      out[held_at + rel(s)] = static_cast<float>(static_cast<double>(specials_held) / deck);
    }
    at = held_at + count;
    const auto& first_hand = hands[0];
    int cards_left = 0;
    for (int number = 0; number <= kNumbers; ++number) cards_left += first_hand[static_cast<size_t>(number)];
    out[at++] = static_cast<float>(static_cast<double>(cards_left) /
                                   static_cast<double>(config.max_hand_size));
    const int committed_at = at;
    for (int s = 0; s < count; ++s)
      if (s < committed) out[committed_at + rel(s)] = 1.0f;
    at = committed_at + count;
    const int numbers_at = at;
    const int slots_at = numbers_at + 15 * count;
    const int kind_at = slots_at + kNumSlots * count;
    const int winner_at = kind_at + 5;
    const int blackhole_at = winner_at + count;
    if (has_result) {
      for (int s = 0; s < count; ++s) {
        const int play = last_result.plays[static_cast<size_t>(s)];
        out[numbers_at + 15 * rel(s) + number_of(play) - 1] = 1.0f;
        out[slots_at + kNumSlots * rel(s) + slot_of(play)] = 1.0f;
      }
      out[kind_at + last_result.kind] = 1.0f;
      out[blackhole_at] = last_result.blackhole ? 1.0f : 0.0f;
      if (last_result.winner != kNoPlayer) out[winner_at + rel(last_result.winner)] = 1.0f;
    }
    const int revealed_at = blackhole_at + 1;
    for (int number = 1; number <= kNumbers; ++number)
      if (revealed[static_cast<size_t>(number)])
        out[revealed_at + number - 1] =
            static_cast<float>(static_cast<double>(revealed[static_cast<size_t>(number)]) / 8.0);
    const int progress_at = revealed_at + 15;
    const int hand_size = std::max(1, cards_left - first_hand[0] + turn - 1);
    out[progress_at] = static_cast<float>(
        std::min(1.0, static_cast<double>(turn - 1) / static_cast<double>(hand_size)));
    if (config.rounds > 0)
      out[progress_at + 1] = static_cast<float>(std::min(
          1.0, static_cast<double>(round - 1) / static_cast<double>(config.rounds)));
    const int lottery_at = progress_at + 2;
    if (has_lottery) {
      for (int s : last_lottery.winners) out[lottery_at + rel(s)] = 1.0f;
      out[lottery_at + count] = static_cast<float>(
          static_cast<double>(last_lottery.share() *
                              static_cast<int64_t>(last_lottery.winners.size())) /
          total);
    }
  }
};

}  // namespace asrus
