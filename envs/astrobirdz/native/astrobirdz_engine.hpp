// The Astrobirdz rules of envs/astrobirdz/rules.py, compiled.
//
// Every function here is a line-by-line reading of its namesake in rules.py
// (``_after_deal``, ``_replace_cards``, ``_move_cards``, ``trick_winner``,
// ``score_turn``, ...): the same fields, the same order of generator draws,
// so the two engines agree at every decision
// (tests/astrobirdz/test_astrobirdz_native.py compares them). The 54 rule
// cards are not repeated: the Python side hands over the Effect of each card
// as the config resolves it (native.py's config_fields), so a new house rule
// is still one row of data.py. ``encode`` writes observer.py's vector from
// the state at once (the Python observer keeps it up to date by events; the
// values are the same).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <vector>

#include "numpy_rng.hpp"

namespace astrobirdz {

constexpr int kMaxPlayers = 6;
constexpr int kNumCards = 54;
constexpr int kNumColours = 6;
constexpr int kMaxHand = 10;
constexpr int kNumGuesses = kMaxHand + 1;
constexpr int kNumTricks = kMaxHand;
constexpr int kGuessOffset = 54;
constexpr int kTrumpOffset = kGuessOffset + kNumGuesses;    // 65
constexpr int kPlayerOffset = kTrumpOffset + kNumColours;  // 71
constexpr int kNumPhases = 11;
constexpr int kMaxTurns = 8;
constexpr int kNoPlayer = -1;
constexpr double kScoreScale = 500.0;

enum Phase : int {
  CHOOSE_TRUMP = 0, DISCARD, PASS_RIGHT, PASS_LEFT, SURFETTE_PARTNER, SURFETTE_CARDS,
  NITRO_PEEK, GUESS, PLAY, ASTROBOARD, ASTROBOARD_TRICK, OVER
};

enum Bird : int { NO_BIRD = 0, ZOOM, MAX, SPEEDSTER, TURBO, NITRO, SURFETTE };
constexpr int kBirdPoints[7] = {0, 2, 3, 4, 0, 6, 7};

enum PassRight : int { PASS_NONE = 0, PASS_LOWEST, PASS_HIGHEST };
enum Chooser : int { CHOOSER_NONE = 0, CHOOSER_DEALER, CHOOSER_YOUNGEST, CHOOSER_OLDEST,
                     CHOOSER_LOWEST_BIRD };
enum PointKind : int { POINTS_COLOUR = 0, POINTS_NUMBER, POINTS_TRUMP };
enum Parity : int { PARITY_NONE = 0, PARITY_EVEN, PARITY_ODD };

using Mask = uint64_t;

inline int colour_of(int card) { return card / 9; }
inline int number_of(int card) { return card % 9 + 1; }
inline Mask bit(int card) { return Mask{1} << card; }
inline Mask colour_mask(int colour) { return ((Mask{1} << 9) - 1) << (9 * colour); }
inline int popcount(Mask m) { return __builtin_popcountll(m); }

// Card ids of a bitmask, ascending (rules.bits).
inline std::vector<int> bits(Mask mask) {
  std::vector<int> out;
  while (mask) {
    out.push_back(__builtin_ctzll(mask));
    mask &= mask - 1;
  }
  return out;
}

inline Mask mask_of(const std::vector<int>& cards) {
  Mask m = 0;
  for (int c : cards) m |= bit(c);
  return m;
}

// data.Effect: what a rule card changes for its turn (numbers as bitmasks of 1..9).
struct CardPoints {
  int kind = 0, what = 0, points = 0;
};

struct Effect {
  std::vector<CardPoints> card_points;
  int trump_change_numbers = 0;  // bit k: number k
  int trump_change_to = -1;
  std::vector<std::pair<int, int>> values;
  int protected_numbers = 0;
  bool protected_beat_trump = false;
  bool eights_beat_nines = false;
  int extra_draws = 0;
  int replace_numbers = 0;
  bool rotate_berzerkerbirdz = false;
  bool discard_one = false;
  int pass_right = PASS_NONE;
  int trump_chooser = CHOOSER_NONE;
  int multiplier = 1;
  int parity_kind = PARITY_NONE;
  int parity_points = 0;
  int first_trick_bonus = 0;
  int last_trick_bonus = 0;
  int trick_value = 1;
};

// AstrobirdzConfig, resolved: the rule of each trump card (all "no rule"
// without trump rules), the youngest and oldest seats, the chart's turns.
struct Config {
  int num_players = 4;
  bool berzerkerbirdz = true;
  bool pass_cards = false;
  bool highest_overall = false;  // highest_bonus == "highest_overall"
  bool ties_all = false;         // highest_bonus_ties == "all"
  int youngest = 0, oldest = 3;
  int turns = 6;
  int max_hand = 6;
  std::array<Effect, kNumCards> rules;

  int choose_offset() const { return kPlayerOffset + num_players - 1; }
  int decline() const { return choose_offset() + kNumCards; }
  int trick_offset() const { return decline() + 1; }
  int num_actions() const { return trick_offset() + kNumTricks; }
  int observation_size() const {
    const int n = num_players;
    return kNumPhases + kMaxTurns + 1 + kNumCards + 3 * kNumColours + n * (kNumCards + n) +
           kNumCards + kNumTricks * (kNumCards + n) + n * kNumGuesses + n * 2 + n * 6 + n * 5 +
           1 + 3 * kNumCards + (n - 1) * kNumCards;
  }
};

inline int cards_to_pass(int hand_size) {
  static const int chart[4][2] = {{2, 1}, {3, 2}, {4, 2}, {5, 3}};
  int passed = 0;
  for (const auto& row : chart)
    if (hand_size >= row[0]) passed = row[1];
  return passed;
}

// ---- tricks and scoring (rules.py's pure functions) ----

inline int trick_trump(const std::vector<int>& plays, int trump, const Effect& e) {
  if (e.trump_change_numbers)
    for (int c : plays)
      if (e.trump_change_numbers >> number_of(c) & 1) return e.trump_change_to;
  return trump;
}

inline double card_value(int card, const Effect& e) {
  const int number = number_of(card);
  for (const auto& [printed, counted] : e.values)
    if (number == printed) return counted;
  if (e.eights_beat_nines && number == 8) return 9.5;
  return number;
}

struct Rank {
  int group;
  double value;
  bool real;
  bool operator>(const Rank& o) const {
    if (group != o.group) return group > o.group;
    if (value != o.value) return value > o.value;
    return real > o.real;
  }
};

inline Rank card_rank(int card, int led, int trump, const Effect& e) {
  const int colour = colour_of(card);
  const bool real = colour == trump;
  const double value = card_value(card, e);
  if (e.protected_numbers >> number_of(card) & 1)
    return {e.protected_beat_trump ? 3 : 2, value, real};
  if (real) return {2, value, true};
  return {colour == led ? 1 : 0, value, false};
}

inline int trick_winner(const std::vector<int>& plays, int trump, const Effect& e) {
  const int this_trump = trick_trump(plays, trump, e);
  const int led = colour_of(plays[0]);
  int best = 0;
  Rank best_rank = card_rank(plays[0], led, this_trump, e);
  for (size_t i = 1; i < plays.size(); ++i) {
    const Rank rank = card_rank(plays[i], led, this_trump, e);
    if (rank > best_rank) {
      best = static_cast<int>(i);
      best_rank = rank;
    }
  }
  return best;
}

inline int card_points(const std::vector<int>& cards, int trump, const Effect& e) {
  int total = 0;
  for (const auto& p : e.card_points)
    for (int c : cards)
      if ((p.kind == POINTS_COLOUR && colour_of(c) == p.what) ||
          (p.kind == POINTS_NUMBER && number_of(c) == p.what) ||
          (p.kind == POINTS_TRUMP && colour_of(c) == trump))
        total += p.points;
  return total;
}

// rules.TurnScore, item by item in its field order.
struct TurnScore {
  int64_t guess, tricks, trick_points, exact, highest, astroboard, turbo, card_points,
      berzerkerbird, first_last, penalty, floored, parity, multiplier, total;
};

// ---- who does what, in which order ----

inline int seat_with_bird(const std::array<int, kMaxPlayers>& birds, int n, int number) {
  for (int s = 0; s < n; ++s)
    if (birds[s] == number) return s;
  return -1;
}

inline std::vector<int> from_left_of(int seat, int n) {
  std::vector<int> out(n);
  for (int i = 0; i < n; ++i) out[i] = (seat + 1 + i) % n;
  return out;
}

inline void move_to_end(std::vector<int>& order, int seat) {
  auto it = std::find(order.begin(), order.end(), seat);
  order.erase(it);
  order.push_back(seat);
}

inline std::vector<int> guess_order_of(int dealer, const std::array<int, kMaxPlayers>& birds,
                                       int n) {
  std::vector<int> order = from_left_of(dealer, n);
  const int max_seat = seat_with_bird(birds, n, MAX);
  if (max_seat >= 0) move_to_end(order, max_seat);
  return order;
}

inline int first_leader_of(int dealer, const std::array<int, kMaxPlayers>& birds, int n) {
  const int zoom = seat_with_bird(birds, n, ZOOM);
  return zoom >= 0 ? zoom : (dealer + 1) % n;
}

inline std::vector<int> play_order_of(int leader, const std::array<int, kMaxPlayers>& birds,
                                      int n) {
  const int speedster = seat_with_bird(birds, n, SPEEDSTER);
  if (leader == speedster) leader = (leader + 1) % n;
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = (leader + i) % n;
  if (speedster >= 0) move_to_end(order, speedster);
  return order;
}

inline int astroboard_holder_of(const std::array<int, kMaxPlayers>& guesses,
                                const std::vector<int>& guess_order,
                                const std::array<int, kMaxPlayers>& birds, int n) {
  int top = guesses[0];
  for (int s = 1; s < n; ++s) top = std::max(top, guesses[s]);
  std::vector<int> tied;
  for (int s : guess_order)
    if (guesses[s] == top) tied.push_back(s);
  bool any_bird = false;
  for (int s = 0; s < n; ++s) any_bird = any_bird || birds[s] != 0;
  if (tied.size() > 1 && any_bird) {
    for (int s : tied)
      if (birds[s] == TURBO) return s;
    int best = tied[0];
    for (int s : tied)
      if (birds[s] > birds[best]) best = s;
    return best;
  }
  return tied[0];
}

// ---- the game state (rules.AstrobirdzGame's fields) ----

struct Game {
  std::shared_ptr<const Config> config;
  flockgym::NumpyRng rng;
  int turn = 1;
  std::array<int64_t, kMaxPlayers> scores{};
  std::array<int, kMaxPlayers> birds{};
  int dealer = 0;
  std::array<Mask, kMaxPlayers> hands{};
  std::vector<int> deck, discards;
  int trump_card = 0, trump = 0;
  int phase = GUESS, actor = 0;
  std::vector<int> choosers;
  std::array<int, kMaxPlayers> need{};
  std::array<Mask, kMaxPlayers> allowed{};
  std::array<std::vector<int>, kMaxPlayers> chosen;
  int partner = -1, traded = 0;
  std::vector<int> guess_order;
  std::array<int, kMaxPlayers> guesses{};
  int peeked = -1, astroboard = -1;
  std::vector<int> trick, trick_order;
  std::vector<std::vector<int>> finished, finished_orders;
  std::vector<int> trick_winners, holders;
  Mask played = 0;
  std::array<std::array<Mask, kMaxPlayers>, kMaxPlayers> known{};
  bool known_any = false;
  std::array<Mask, kMaxPlayers> discarded{};
  int hand_size = 0;
  int astro_partner = -1;
  std::vector<int> transfer;
  bool has_last_turn = false;
  std::vector<TurnScore> last_turn;
  std::vector<int> last_trick_winners;
  bool over = false;

  int n() const { return config->num_players; }
  int observation_size() const { return config->observation_size(); }
  const Effect& effect() const { return config->rules[trump_card]; }

  // -- the GameEngine interface --

  int current_player() const { return over ? kNoPlayer : actor; }

  std::vector<int> legal_actions() const {
    std::vector<int> out;
    if (over) return out;
    const Config& c = *config;
    const int seat = actor;
    switch (phase) {
      case PLAY: {
        Mask hand = hands[seat];
        if (!trick.empty()) {
          const Mask follow = hand & colour_mask(colour_of(trick[0]));
          if (follow) hand = follow;
        }
        return bits(hand);
      }
      case GUESS:
        for (int k = 0; k <= hand_size; ++k) out.push_back(kGuessOffset + k);
        return out;
      case DISCARD:
      case PASS_RIGHT:
      case PASS_LEFT:
      case SURFETTE_CARDS: {
        const Mask left = allowed[seat] & ~mask_of(chosen[seat]);
        for (int card : bits(left)) out.push_back(c.choose_offset() + card);
        if (phase == SURFETTE_CARDS && !chosen[seat].empty()) out.push_back(c.decline());
        return out;
      }
      case CHOOSE_TRUMP:
        for (int k = 0; k < kNumColours; ++k) out.push_back(kTrumpOffset + k);
        return out;
      case NITRO_PEEK:
        for (int a = kPlayerOffset; a < c.choose_offset(); ++a) out.push_back(a);
        return out;
      case SURFETTE_PARTNER:
        for (int a = kPlayerOffset; a < c.choose_offset(); ++a) out.push_back(a);
        out.push_back(c.decline());
        return out;
      case ASTROBOARD: {
        for (int p : astroboard_partners()) out.push_back(player_action(seat, p));
        std::sort(out.begin(), out.end());
        out.push_back(c.decline());
        return out;
      }
      case ASTROBOARD_TRICK:
        for (int k : movable_tricks(astro_partner)) out.push_back(c.trick_offset() + k);
        return out;
      default:
        return out;
    }
  }

  bool is_legal(int action) const {
    const auto legal = legal_actions();
    return std::find(legal.begin(), legal.end(), action) != legal.end();
  }

  void apply_action(int action) {
    if (!is_legal(action)) throw std::invalid_argument("illegal action");
    const Config& c = *config;
    switch (phase) {
      case PLAY: play(action); break;
      case GUESS: guess(action - kGuessOffset); break;
      case DISCARD:
      case PASS_RIGHT:
      case PASS_LEFT: choose(action - c.choose_offset()); break;
      case CHOOSE_TRUMP: choose_trump(action - kTrumpOffset); break;
      case NITRO_PEEK: peek(target(actor, action)); break;
      case SURFETTE_PARTNER: surfette_partner(action); break;
      case SURFETTE_CARDS: surfette_card(action); break;
      case ASTROBOARD: astroboard_partner(action); break;
      case ASTROBOARD_TRICK: astroboard_trick(action - c.trick_offset()); break;
      default: break;
    }
  }

  std::vector<int> winners() const {
    int64_t best = scores[0];
    for (int s = 1; s < n(); ++s) best = std::max(best, scores[s]);
    std::vector<int> out;
    for (int s = 0; s < n(); ++s)
      if (scores[s] == best) out.push_back(s);
    return out;
  }

  int player_action(int actor_seat, int target_seat) const {
    return kPlayerOffset + ((target_seat - actor_seat) % n() + n()) % n() - 1;
  }
  int target(int actor_seat, int action) const {
    return (actor_seat + action - kPlayerOffset + 1) % n();
  }

  // -- setting up --

  // AstrobirdzGame.new from turn ``first_turn`` (scenarios that place cards,
  // birds or scores are dealt in Python).
  void new_game(int first_turn = 1) {
    turn = first_turn;
    scores.fill(0);
    last_turn.clear();
    has_last_turn = false;
    last_trick_winners.clear();
    over = false;
    start_turn();
  }

  void start_turn() {
    const int nn = n();
    reset_turn_state();
    deal_berzerkerbirdz();
    if (config->berzerkerbirdz) {
      dealer = 0;
      for (int s = 1; s < nn; ++s)
        if (birds[s] < birds[dealer]) dealer = s;
    } else {
      dealer = (turn - 1) % nn;
    }
    deal_cards();
    hand_size = turn;
    after_deal();
  }

  void reset_turn_state() {
    discards.clear();
    choosers.clear();
    need.fill(0);
    allowed.fill(0);
    for (auto& c : chosen) c.clear();
    partner = -1;
    traded = 0;
    guesses.fill(-1);
    guess_order.clear();
    peeked = astroboard = -1;
    trick.clear();
    trick_order.clear();
    finished.clear();
    finished_orders.clear();
    played = 0;
    trick_winners.clear();
    holders.clear();
    for (auto& row : known) row.fill(0);
    known_any = false;
    discarded.fill(0);
    astro_partner = -1;
    transfer.clear();
  }

  void deal_berzerkerbirdz() {
    birds.fill(NO_BIRD);
    if (!config->berzerkerbirdz) return;
    const auto order = rng.permutation(6);
    for (int s = 0; s < n(); ++s) birds[s] = static_cast<int>(order[s]) + 1;
  }

  void deal_cards() {
    std::vector<int64_t> rest(kNumCards);
    for (int c = 0; c < kNumCards; ++c) rest[c] = c;
    rng.shuffle(rest);
    deck.assign(rest.begin(), rest.end());
    hands.fill(0);
    const auto order = from_left_of(dealer, n());
    for (int k = 0; k < turn; ++k)
      for (int seat : order) hands[seat] |= bit(pop_deck());
    trump_card = pop_deck();
    trump = colour_of(trump_card);
  }

  int pop_deck() {
    const int card = deck.back();
    deck.pop_back();
    return card;
  }

  void after_deal() {
    const Effect& e = effect();
    const int nn = n();
    const auto order = from_left_of(dealer, nn);
    if (e.extra_draws) {
      const int extra = std::min<int>(e.extra_draws, static_cast<int>(deck.size()) / nn);
      for (int k = 0; k < extra; ++k)
        for (int seat : order) hands[seat] |= bit(pop_deck());
      hand_size += extra;
    }
    if (e.replace_numbers) replace_cards(e.replace_numbers, order);
    if (e.rotate_berzerkerbirdz && config->berzerkerbirdz) {
      const auto old = birds;
      for (int s = 0; s < nn; ++s) birds[s] = old[(s - 1 + nn) % nn];
    }
    if (e.discard_one && hand_size > 1) {
      begin_choice(DISCARD, order, 1, hands);
      return;
    }
    if (e.pass_right) {
      begin_pass_right(e.pass_right, order);
      return;
    }
    if (e.trump_chooser) {
      begin_trump_choice(e.trump_chooser);
      return;
    }
    begin_pass_left();
  }

  void replace_cards(int numbers, const std::vector<int>& order) {
    std::array<int, kMaxPlayers> lost{};
    for (int seat : order) {
      Mask out = 0;
      for (int c : bits(hands[seat]))
        if (numbers >> number_of(c) & 1) {
          out |= bit(c);
          discards.push_back(c);
        }
      hands[seat] &= ~out;
      discarded[seat] |= out;
      lost[seat] = popcount(out);
    }
    for (int seat : order)
      for (int k = 0; k < lost[seat]; ++k) {
        if (deck.empty()) {
          const auto perm = rng.permutation(static_cast<int64_t>(discards.size()));
          deck.clear();
          for (auto i : perm) deck.push_back(discards[i]);
          discards.clear();
        }
        hands[seat] |= bit(pop_deck());
      }
    const Mask still = mask_of(discards);
    for (int s = 0; s < n(); ++s) discarded[s] &= still;
  }

  // needs: every seat of ``order`` chooses ``count`` cards (rules._begin_choice).
  void begin_choice(int new_phase, const std::vector<int>& order, int count,
                    const std::array<Mask, kMaxPlayers>& allowed_cards) {
    phase = new_phase;
    choosers.clear();
    need.fill(0);
    if (count > 0)
      for (int s : order) {
        choosers.push_back(s);
        need[s] = count;
      }
    allowed = allowed_cards;
    for (auto& c : chosen) c.clear();
    if (!choosers.empty())
      actor = choosers[0];
    else
      finish_choice();
  }

  void begin_pass_right(int which, const std::vector<int>& order) {
    std::array<Mask, kMaxPlayers> candidates{};
    for (int seat = 0; seat < n(); ++seat) {
      const auto cards = bits(hands[seat]);
      int target_number = which == PASS_LOWEST ? 10 : 0;
      for (int c : cards)
        target_number = which == PASS_LOWEST ? std::min(target_number, number_of(c))
                                             : std::max(target_number, number_of(c));
      for (int c : cards)
        if (number_of(c) == target_number) candidates[seat] |= bit(c);
    }
    begin_choice(PASS_RIGHT, order, 1, candidates);
  }

  void choose(int card) {
    const int seat = actor;
    chosen[seat].push_back(card);
    if (static_cast<int>(chosen[seat].size()) < need[seat]) return;
    choosers.erase(choosers.begin());
    if (!choosers.empty())
      actor = choosers[0];
    else
      finish_choice();
  }

  struct Move {
    int giver, receiver;
    std::vector<int> cards;
  };

  void finish_choice() {
    const int nn = n();
    const int was = phase;
    if (was == DISCARD) {
      for (int seat = 0; seat < nn; ++seat)
        for (int card : chosen[seat]) {
          hands[seat] &= ~bit(card);
          discarded[seat] |= bit(card);
          discards.push_back(card);
        }
      hand_size -= 1;
    } else {
      std::vector<Move> moves;
      for (int s = 0; s < nn; ++s)
        moves.push_back({s, was == PASS_RIGHT ? (s - 1 + nn) % nn : (s + 1) % nn, chosen[s]});
      move_cards(moves);
    }
    for (auto& c : chosen) c.clear();
    allowed.fill(0);
    need.fill(0);
    if (was == PASS_LEFT)
      begin_surfette();
    else
      begin_pass_left();
  }

  void move_cards(const std::vector<Move>& moves) {
    update_onlookers(moves);
    for (const auto& m : moves) hands[m.giver] &= ~mask_of(m.cards);
    for (const auto& m : moves) {
      const Mask given = mask_of(m.cards);
      hands[m.receiver] |= given;
      known[m.giver][m.receiver] |= given;
      known_any = true;
      for (int other = 0; other < n(); ++other) known[m.receiver][other] &= ~given;
    }
  }

  void update_onlookers(const std::vector<Move>& moves) {
    if (!known_any) return;
    const auto seen_before = known;
    for (const auto& m : moves) {
      if (m.cards.empty()) continue;
      const bool whole_hand = mask_of(m.cards) == hands[m.giver];
      for (int onlooker = 0; onlooker < n(); ++onlooker) {
        const Mask seen = seen_before[onlooker][m.giver];
        if (!seen || onlooker == m.giver || onlooker == m.receiver) continue;
        known[onlooker][m.giver] &= ~seen;
        if (whole_hand) known[onlooker][m.receiver] |= seen;
      }
    }
  }

  void begin_trump_choice(int chooser) {
    int seat = dealer;
    if (chooser == CHOOSER_YOUNGEST)
      seat = config->youngest;
    else if (chooser == CHOOSER_OLDEST)
      seat = config->oldest;
    phase = CHOOSE_TRUMP;
    actor = seat;
    trump = -1;
  }

  void choose_trump(int colour) {
    trump = colour;
    begin_pass_left();
  }

  void begin_pass_left() {
    const int count = config->pass_cards ? cards_to_pass(hand_size) : 0;
    if (count)
      begin_choice(PASS_LEFT, from_left_of(dealer, n()), count, hands);
    else
      begin_surfette();
  }

  void begin_surfette() {
    const int seat = seat_with_bird(birds, n(), SURFETTE);
    if (seat < 0) {
      begin_guesses();
      return;
    }
    phase = SURFETTE_PARTNER;
    actor = seat;
  }

  void surfette_partner(int action) {
    if (action == config->decline()) {
      begin_guesses();
      return;
    }
    const int seat = actor;
    partner = target(seat, action);
    phase = SURFETTE_CARDS;
    need[seat] = std::min(2, hand_size);
    allowed[seat] = hands[seat];
    chosen[seat].clear();
  }

  void surfette_card(int action) {
    const int seat = actor;
    if (action != config->decline()) {
      chosen[seat].push_back(action - config->choose_offset());
      if (static_cast<int>(chosen[seat].size()) < need[seat]) return;
    }
    trade();
  }

  void trade() {
    const int seat = actor;
    const std::vector<int> given = chosen[seat];
    const auto theirs = bits(hands[partner]);
    const auto perm = rng.permutation(static_cast<int64_t>(theirs.size()));
    std::vector<int> drawn;
    for (size_t i = 0; i < given.size() && i < perm.size(); ++i) drawn.push_back(theirs[perm[i]]);
    move_cards({{seat, partner, given}, {partner, seat, drawn}});
    traded = static_cast<int>(given.size());
    chosen[seat].clear();
    allowed[seat] = 0;
    need[seat] = 0;
    begin_guesses();
  }

  void begin_guesses() {
    guess_order = guess_order_of(dealer, birds, n());
    next_guesser();
  }

  void next_guesser() {
    for (int seat : guess_order)
      if (guesses[seat] < 0) {
        actor = seat;
        phase = birds[seat] == NITRO && peeked < 0 ? NITRO_PEEK : GUESS;
        return;
      }
    astroboard = astroboard_holder_of(guesses, guess_order, birds, n());
    begin_trick(first_leader_of(dealer, birds, n()));
  }

  void peek(int seat) {
    peeked = seat;
    known[actor][seat] = hands[seat];
    known_any = true;
    phase = GUESS;
  }

  void guess(int tricks) {
    guesses[actor] = tricks;
    next_guesser();
  }

  void begin_trick(int leader) {
    trick.clear();
    trick_order = play_order_of(leader, birds, n());
    phase = PLAY;
    actor = trick_order[0];
  }

  void play(int card) {
    const int seat = actor;
    const Mask b = bit(card);
    hands[seat] &= ~b;
    if (known_any)
      for (int o = 0; o < n(); ++o) known[o][seat] &= ~b;
    trick.push_back(card);
    const size_t position = trick.size() - 1;
    if (position + 1 < trick_order.size()) {
      actor = trick_order[position + 1];
      return;
    }
    const int winner = trick_order[trick_winner(trick, trump, effect())];
    finished.push_back(trick);
    finished_orders.push_back(trick_order);
    trick_winners.push_back(winner);
    holders.push_back(winner);
    played |= mask_of(trick);
    trick.clear();
    if (hands[winner])
      begin_trick(winner);
    else
      after_tricks();
  }

  int tricks_won(int seat) const {
    return static_cast<int>(std::count(holders.begin(), holders.end(), seat));
  }

  std::vector<int> astroboard_partners() const {
    std::vector<int> out;
    if (astroboard < 0) return out;
    const int holder = astroboard;
    const int short_by = guesses[holder] - tricks_won(holder);
    if (short_by != 1 && short_by != -1) return out;
    for (int s = 0; s < n(); ++s)
      if (s != holder && tricks_won(s) - guesses[s] == short_by) out.push_back(s);
    return out;
  }

  int astroboard_giver(int with) const {
    return guesses[astroboard] - tricks_won(astroboard) == 1 ? with : astroboard;
  }

  std::vector<int> movable_tricks(int with) const {
    const int giver = astroboard_giver(with);
    std::vector<int> out;
    for (size_t k = 0; k < holders.size(); ++k)
      if (holders[k] == giver) out.push_back(static_cast<int>(k));
    return out;
  }

  void after_tricks() {
    trick_order.clear();
    if (!astroboard_partners().empty()) {
      phase = ASTROBOARD;
      actor = astroboard;
    } else {
      score();
    }
  }

  void astroboard_partner(int action) {
    if (action == config->decline()) {
      score();
      return;
    }
    astro_partner = target(astroboard, action);
    phase = ASTROBOARD_TRICK;
  }

  void astroboard_trick(int index) {
    const int holder = astroboard, with = astro_partner;
    const int giver = astroboard_giver(with);
    const int receiver = giver == with ? holder : with;
    holders[index] = receiver;
    transfer = {giver, receiver, index};
    astro_partner = -1;
    score();
  }

  // rules.highest_bonus_seats
  std::vector<int> highest_bonus_seats(const std::array<int, kMaxPlayers>& tricks) const {
    std::vector<int> correct;
    for (int s : guess_order)
      if (tricks[s] == guesses[s]) correct.push_back(s);
    if (correct.empty()) return {};
    int top = -1;
    for (int s : correct) top = std::max(top, guesses[s]);
    int overall = guesses[0];
    for (int s = 1; s < n(); ++s) overall = std::max(overall, guesses[s]);
    if (config->highest_overall && top != overall) return {};
    std::vector<int> tied;
    for (int s : correct)
      if (guesses[s] == top) tied.push_back(s);
    if (config->ties_all || tied.size() == 1) return tied;
    int best = tied[0];
    for (int s : tied)  // fewest points, then the highest bird, then the first to guess
      if (scores[s] < scores[best] || (scores[s] == scores[best] && birds[s] > birds[best]))
        best = s;
    return {best};
  }

  void score() {
    const int nn = n();
    const Effect& e = effect();
    std::array<int, kMaxPlayers> tricks{};
    for (int s = 0; s < nn; ++s) tricks[s] = tricks_won(s);
    const auto bonus = highest_bonus_seats(tricks);
    last_turn.assign(nn, TurnScore{});
    for (int s = 0; s < nn; ++s) {
      TurnScore& item = last_turn[s];
      const int g = guesses[s], t = tricks[s];
      item.guess = g;
      item.tricks = t;
      item.exact = g == t ? 5 : 0;
      item.highest = std::find(bonus.begin(), bonus.end(), s) != bonus.end() ? 5 : 0;
      item.astroboard = item.highest && s == astroboard ? 5 : 0;
      item.turbo = item.astroboard && birds[s] == TURBO ? 5 : 0;
      item.berzerkerbird = kBirdPoints[birds[s]];
      item.first_last = 0;
      if (!trick_winners.empty() && trick_winners.front() == s)
        item.first_last += e.first_trick_bonus;
      if (!trick_winners.empty() && trick_winners.back() == s)
        item.first_last += e.last_trick_bonus;
      item.trick_points = static_cast<int64_t>(t) * e.trick_value;
      std::vector<int> won;
      for (size_t k = 0; k < finished.size(); ++k)
        if (holders[k] == s) won.insert(won.end(), finished[k].begin(), finished[k].end());
      item.card_points = card_points(won, trump, e);
      item.penalty = std::abs(g - t);
      const int64_t raw = item.trick_points + item.exact + item.highest + item.astroboard +
                          item.turbo + item.card_points + item.berzerkerbird + item.first_last -
                          item.penalty;
      item.floored = std::max<int64_t>(0, raw);
      item.parity = 0;
      if (e.parity_kind && (item.floored % 2 == 0) == (e.parity_kind == PARITY_EVEN))
        item.parity = e.parity_points;
      item.multiplier = e.multiplier;
      item.total = (item.floored + item.parity) * e.multiplier;
    }
    has_last_turn = true;
    last_trick_winners = trick_winners;
    for (int s = 0; s < nn; ++s) scores[s] += last_turn[s].total;
    if (turn >= config->turns) {
      over = true;
      phase = OVER;
      actor = kNoPlayer;
      return;
    }
    turn += 1;
    start_turn();
  }

  // -- the observation (observer.py's field table, from the observer's seat) --

  void encode(int seat, float* out) const {
    const int nn = n();
    const int size = config->observation_size();
    std::fill(out, out + size, 0.0f);
    auto rel = [&](int s) { return ((s - seat) % nn + nn) % nn; };
    const double scale = static_cast<double>(config->max_hand);
    float* at = out;
    if (phase < kNumPhases) at[phase] = 1.0f;
    at += kNumPhases;
    at[turn - 1] = 1.0f;
    at += kMaxTurns;
    at[0] = static_cast<float>(hand_size / scale);
    at += 1;
    at[trump_card] = 1.0f;
    at += kNumCards;
    if (trump >= 0) {
      at[trump] = 1.0f;
      at[kNumColours + trick_trump(trick, trump, effect())] = 1.0f;
    }
    at += 2 * kNumColours;
    if (!trick.empty()) at[colour_of(trick[0])] = 1.0f;
    at += kNumColours;
    const int slot = kNumCards + nn;
    for (size_t p = 0; p < trick.size(); ++p) {
      at[p * slot + trick[p]] = 1.0f;
      at[p * slot + kNumCards + rel(trick_order[p])] = 1.0f;
    }
    at += nn * slot;
    for (int c : bits(played)) at[c] = 1.0f;
    at += kNumCards;
    for (size_t k = 0; k < finished.size(); ++k) {
      for (int c : finished[k]) at[k * slot + c] = 1.0f;
      at[k * slot + kNumCards + rel(holders[k])] = 1.0f;
    }
    at += kNumTricks * slot;
    for (int s = 0; s < nn; ++s)
      if (guesses[s] >= 0) at[rel(s) * kNumGuesses + guesses[s]] = 1.0f;
    at += nn * kNumGuesses;
    for (int s = 0; s < nn; ++s) at[rel(s)] = static_cast<float>(tricks_won(s) / scale);
    at += nn;
    for (int s = 0; s < nn; ++s) {
      const double shown = static_cast<double>(std::max<int64_t>(0, scores[s])) / kScoreScale;
      at[rel(s)] = static_cast<float>(std::min(1.0, shown));
    }
    at += nn;
    for (int s = 0; s < nn; ++s)
      if (birds[s]) at[rel(s) * 6 + birds[s] - 1] = 1.0f;
    at += nn * 6;
    for (int marked : {astroboard, astro_partner, dealer, peeked, partner}) {
      if (marked >= 0) at[rel(marked)] = 1.0f;
      at += nn;
    }
    at[0] = static_cast<float>(traded / 2.0);
    at += 1;
    for (int c : bits(hands[seat])) at[c] = 1.0f;
    at += kNumCards;
    for (int c : chosen[seat]) at[c] = 1.0f;
    at += kNumCards;
    for (int r = 1; r < nn; ++r) {
      for (int c : bits(known[seat][(seat + r) % nn])) at[c] = 1.0f;
      at += kNumCards;
    }
    for (int c : bits(discarded[seat])) at[c] = 1.0f;
  }
};

}  // namespace astrobirdz
