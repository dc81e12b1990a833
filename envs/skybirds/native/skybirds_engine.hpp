// The Skybirds rules in C++17, decision for decision the Python engine's
// (envs/skybirds/rules.py, the readable reference; every function here names
// the Python function it follows). The Python side (envs/skybirds/native.py)
// builds the configuration, reads and checks saved states and names actions;
// this header holds the state, the legal actions, the moves and the
// observation vector, and draws from numpy's PCG64 exactly as rules.py does.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "numpy_rng.hpp"

namespace skybirds {

using flockgym::NumpyRng;

constexpr int kKinds = 11;  // Garros, then the values 1..10
constexpr int kGarros = 0;
constexpr int kMaxSquadron = 6;
constexpr int kMaxPlayers = 4;
constexpr int kPlusOneTokens = 8;
constexpr int kNoPlayer = -1;
constexpr std::array<int, kKinds> kCardCounts = {1, 5, 5, 5, 5, 5, 5, 3, 3, 2, 1};
constexpr std::array<int, kKinds> kMedallions = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
constexpr std::array<double, 3> kFractionalVp = {0.75, 0.5, 0.25};

// Bonus bits (rules.py RUN .. SIZE).
constexpr int RUN = 1, WILD = 2, UNMATCHED = 4, MEDAL = 8, TWO_MEDALS = 16, EQUAL = 32, SIZE = 64;
constexpr int SHAPE_BITS = RUN | WILD | UNMATCHED;

enum Phase : int { PRE_CAMPAIGN = 0, DOGFIGHT = 1, TAKE = 2, TRADE = 3, OVER = 4 };
enum Step : int { START = 0, TOKENS = 1, CARDS = 2, DECLARE = 3, TARGET = 4, GIVE = 5 };
enum TokenState : uint8_t { MAT = 0, FRONT = 1, BACK = 2 };

using Hand = std::array<int, kKinds>;

inline int hand_size(int n) { return n == 2 ? 16 : n == 3 ? 12 : 10; }
inline int boxed_cards(int n) { return n == 2 ? 8 : n == 3 ? 4 : 0; }
inline int trade_cost(int ribbon) { return ribbon == 3 ? 2 : ribbon == 2 ? 3 : 4; }

// ---- action ids (actions.py) -------------------------------------------------------

struct PlainIds {
  // SET_ID / GARROS_ID by (value, count), -1 where there is none.
  int set_id[11][7];
  int garros_id[11][7];
  // PLAIN_PLAYS: per plain-play id its cards, value and printed Medallions.
  std::vector<std::vector<int>> cards;
  std::vector<int> value, medallions;
  PlainIds() {
    for (auto& row : set_id) std::fill(std::begin(row), std::end(row), -1);
    for (auto& row : garros_id) std::fill(std::begin(row), std::end(row), -1);
    int id = 0;
    for (int v = 1; v <= 10; ++v)
      for (int k = 1; k <= std::min(kCardCounts[v], kMaxSquadron); ++k) {
        set_id[v][k] = id++;
        cards.push_back(std::vector<int>(k, v));
      }
    for (int v = 1; v <= 10; ++v)
      for (int k = 1; k <= std::min(kCardCounts[v], kMaxSquadron - 1); ++k) {
        garros_id[v][k] = id++;
        std::vector<int> c(1, kGarros);
        c.insert(c.end(), k, v);
        cards.push_back(c);
      }
    cards.push_back({kGarros});  // GARROS_ALONE
    for (const auto& c : cards) {
      value.push_back(c.size() == 1 && c[0] == kGarros ? 0 : c.back());
      int m = 0;
      for (int k : c) m += kMedallions[k];
      medallions.push_back(m);
    }
  }
};

inline const PlainIds& plain_ids() {
  static const PlainIds ids;
  return ids;
}

constexpr int GARROS_ALONE = 78;
constexpr int PASS = 79;
constexpr int USE_OFFSET = 80;

struct Layout {
  int n = 4, k = 11;
  int add_offset, done, wild_offset, declare_offset, target_offset, give_offset, take_offset,
      plus_one, trade_offset, size;
  void build(int players, int tokens) {
    n = players;
    k = tokens;
    add_offset = USE_OFFSET + k;
    done = add_offset + kKinds;
    wild_offset = done + 1;
    declare_offset = wild_offset + 10;
    target_offset = declare_offset + 10;
    give_offset = target_offset + n - 1;
    take_offset = give_offset + kKinds;
    plus_one = take_offset + k;
    trade_offset = plus_one + 1;
    size = trade_offset + k;
  }
  int target(int actor, int seat) const { return target_offset + ((seat - actor) % n + n) % n - 1; }
  int target_seat(int actor, int action) const {
    return (actor + action - target_offset + 1) % n;
  }
};

// ---- configuration (SkybirdsConfig) -------------------------------------------------

struct TokenInfo {
  int ribbon = 3, vp_front = 0, vp_back = 0;
  int dogfight_bit = 0;  // BONUS_BITS of its bonus (0: not a Dogfight token)
  int swap_cards = 0;    // SWAP_CARDS of its bonus (0: not a swap)
  bool armistice = false, tiebreaker = false;
  std::vector<int> prerequisites;
  bool needs_all = false;  // after the shorter-game option
};

struct Config {
  int num_players = 4;
  std::vector<TokenInfo> tokens;
  int max_campaigns = 30;
  bool armistice_ends_dogfight = true;
  bool one_token = false;
  double max_vp = 1.0;
  int max_medallions = 1;
  int k() const { return static_cast<int>(tokens.size()); }
};

// ---- Squadrons and moves (rules.py, "Squadrons" and "the moves of one shape") ---------

struct Squadron {
  int player = -1;
  std::vector<int> cards;  // ascending kinds, the wild Ace by its printed value
  int size = 0, value = 0, medallions = 0;
  std::vector<int> tokens;
  int wild = 0, declare = 0;
};

struct Move {
  std::array<int8_t, kMaxSquadron> naturals{};
  int8_t count = 0;  // how many naturals
  int8_t wild = 0, declare = 0, size = 0, value = 0, icons = 0;
  bool same_effect(const Move& o) const {
    return size == o.size && value == o.value && icons == o.icons;
  }
};

struct Table {
  bool present = false;
  int size = 0, medallions = 0, value = 0;
};

inline int extra_medallions(int mods) { return (mods & MEDAL ? 1 : 0) + (mods & TWO_MEDALS ? 2 : 0); }

// fits(): whether a Squadron may meet the table with modifier bits ``mods``,
// every modifier doing something.
inline bool fits(int size, int value, int icons, int mods, const Table& table) {
  const int medallions = icons + extra_medallions(mods);
  if (!table.present) return !(mods & (EQUAL | SIZE));
  const bool size_ok = size == table.size || (size == 1 && medallions >= 1);
  if (mods & SIZE) {
    if (size_ok || std::abs(size - table.size) != 1) return false;
  } else if (!size_ok) {
    return false;
  }
  if (mods & EQUAL) return medallions == table.medallions && value == table.value;
  return medallions > table.medallions ||
         (medallions == table.medallions && value > table.value);
}

inline Move make_move(int g, const int* nat, int count, int wild, int declare, int size, int value,
                      int icons) {
  Move m;
  int at = 0;
  for (int i = 0; i < g; ++i) m.naturals[at++] = 0;
  for (int i = 0; i < count; ++i) m.naturals[at++] = static_cast<int8_t>(nat[i]);
  m.count = static_cast<int8_t>(at);
  m.wild = static_cast<int8_t>(wild);
  m.declare = static_cast<int8_t>(declare);
  m.size = static_cast<int8_t>(size);
  m.value = static_cast<int8_t>(value);
  m.icons = static_cast<int8_t>(icons);
  return m;
}

// _plain
inline void plain_moves(const Hand& hand, int g, std::vector<Move>& out) {
  int nat[kMaxSquadron];
  for (int v = 1; v <= 10; ++v)
    for (int k = 1; k <= std::min(hand[v], kMaxSquadron - g); ++k) {
      for (int i = 0; i < k; ++i) nat[i] = v;
      out.push_back(make_move(g, nat, k, 0, 0, k + g, v, k * kMedallions[v]));
    }
}

// _wild
inline void wild_moves(const Hand& hand, int g, std::vector<Move>& out) {
  int nat[kMaxSquadron];
  for (int w = 1; w <= 10; ++w) {
    if (!hand[w]) continue;
    for (int d = 1; d <= 10; ++d) {
      if (d == w) continue;
      for (int k = 0; k <= std::min(hand[d], kMaxSquadron - 1 - g); ++k) {
        for (int i = 0; i < k; ++i) nat[i] = d;
        const int icons = k * kMedallions[d] + kMedallions[w];
        out.push_back(make_move(g, nat, k, w, d, k + 1 + g, d, icons));
      }
    }
  }
}

// _runs
inline void run_moves(const Hand& hand, bool wild, std::vector<Move>& out) {
  int nat[kMaxSquadron];
  for (int lo = 1; lo <= 9; ++lo)
    for (int hi = lo + 1; hi <= std::min(lo + kMaxSquadron - 1, 10); ++hi) {
      const int len = hi - lo + 1;
      if (!wild) {
        bool all = true;
        int icons = 0;
        for (int v = lo; v <= hi; ++v) {
          all = all && hand[v] > 0;
          icons += kMedallions[v];
          nat[v - lo] = v;
        }
        if (all) out.push_back(make_move(0, nat, len, 0, 0, len, hi, icons));
        continue;
      }
      for (int p = lo; p <= hi; ++p) {
        int count = 0, icons = 0;
        bool all = true;
        for (int v = lo; v <= hi; ++v) {
          if (v == p) continue;
          nat[count++] = v;
          all = all && hand[v] > 0;
          icons += kMedallions[v];
        }
        if (!all) continue;
        for (int w = 1; w <= 10; ++w) {
          const int in_naturals = (w >= lo && w <= hi && w != p) ? 1 : 0;
          if (w != p && hand[w] > in_naturals)
            out.push_back(make_move(0, nat, count, w, p, len, hi, icons + kMedallions[w]));
        }
      }
    }
}

// _multisets: ascending multisets of numbered Aces of ``size`` within ``hand``.
inline void multisets(Hand& hand, int size, int low, std::vector<int>& prefix,
                      std::vector<std::vector<int>>& out) {
  if (size == 0) {
    out.push_back(prefix);
    return;
  }
  for (int v = low; v <= 10; ++v) {
    if (!hand[v]) continue;
    hand[v] -= 1;
    prefix.push_back(v);
    multisets(hand, size - 1, v, prefix, out);
    prefix.pop_back();
    hand[v] += 1;
  }
}

inline std::vector<std::vector<int>> multisets_of(const Hand& hand, int size) {
  Hand h = hand;
  std::vector<int> prefix;
  std::vector<std::vector<int>> out;
  multisets(h, size, 1, prefix, out);
  return out;
}

inline bool all_equal(const std::vector<int>& xs) {
  for (int x : xs)
    if (x != xs[0]) return false;
  return true;
}

// _unmatched
inline void unmatched_moves(const Hand& hand, int g, std::vector<Move>& out) {
  const int sizes[2] = {2, 3};
  const int num_sizes = g ? 1 : 2;
  for (int s = 0; s < num_sizes; ++s) {
    const int size = sizes[s];
    for (const auto& cards : multisets_of(hand, size)) {
      if (all_equal(cards)) continue;
      int icons = 0;
      for (int v : cards) icons += kMedallions[v];
      out.push_back(make_move(g, cards.data(), size, 0, 0, size + g, cards[0], icons));
    }
  }
}

// _unmatched_wild
inline void unmatched_wild_moves(const Hand& hand, int g, std::vector<Move>& out) {
  const int num_counts = g ? 1 : 2;
  for (int count = 1; count <= num_counts; ++count) {
    for (const auto& naturals : multisets_of(hand, count)) {
      Hand rest = hand;
      for (int v : naturals) rest[v] -= 1;
      for (int w = 1; w <= 10; ++w) {
        if (!rest[w]) continue;
        std::vector<int> printed(naturals);
        printed.push_back(w);
        const bool printed_ok = !all_equal(printed);
        int icons = 0;
        for (int v : printed) icons += kMedallions[v];
        const int printed_min = *std::min_element(printed.begin(), printed.end());
        for (int d = 1; d <= 10; ++d) {
          if (d == w) continue;
          std::vector<int> effective(naturals);
          effective.push_back(d);
          if (all_equal(effective)) continue;
          const int value = *std::min_element(effective.begin(), effective.end());
          if (printed_ok && printed_min == value) continue;
          const int size = count + 1 + g;
          out.push_back(make_move(g, naturals.data(), count, w, d, size, value, icons));
        }
      }
    }
  }
}

// shape_moves
inline void shape_moves(const Hand& hand, int shapes, std::vector<Move>& out) {
  out.clear();
  const int g = hand[kGarros] ? 1 : 0;
  if ((shapes & RUN) && ((shapes & UNMATCHED) || g)) return;
  const bool wild = shapes & WILD;
  if (shapes & RUN) {
    run_moves(hand, wild, out);
  } else if (shapes & UNMATCHED) {
    if (wild)
      unmatched_wild_moves(hand, g, out);
    else
      unmatched_moves(hand, g, out);
  } else if (wild) {
    wild_moves(hand, g, out);
  } else {
    plain_moves(hand, g, out);
  }
}

// ---- the game state (SkybirdsGame) ------------------------------------------------

struct Game {
  Config config;
  Layout layout;
  NumpyRng rng;
  int campaign = 1;
  int phase = DOGFIGHT, step = START, actor = 0;
  std::array<Hand, kMaxPlayers> hands{};
  Hand box{}, played{};
  bool has_table = false;
  Squadron table;
  int squadron_size = 0, last_player = -1, passes = 0;
  std::array<bool, kMaxPlayers> passed{};
  int position = 0;
  bool garros_due = false;
  std::vector<int> finish;
  std::array<std::vector<uint8_t>, kMaxPlayers> tokens;
  std::array<int, kMaxPlayers> plus_one{};
  std::array<int, kMaxPlayers> fractional{-1, -1, -1, -1};
  std::vector<int> pool;
  int armistice_by = -1;
  bool over = false, truncated = false;
  std::vector<int> pend_tokens, pend_cards;
  int pend_wild = 0, pend_token = -1, pend_target = -1;
  std::vector<int> pre_queue;
  std::array<int, kMaxPlayers> pre_used{};
  std::vector<int> takes;
  bool campaign_over = false, dogfight_over = false;
  std::vector<int> trade_queue;
  int first_leader = 0, last_winner = -1;
  bool has_last_squadron = false;
  Squadron last_squadron;
  std::array<int, kMaxPlayers> left{};

  // caches, dropped by every change (apply_action, a load)
  bool legal_known = false;
  std::vector<int> legal;
  bool shapes_known[8] = {};
  std::vector<Move> shape_cache[8];

  int n() const { return config.num_players; }

  void set_config(const Config& c) {
    config = c;
    layout.build(c.num_players, c.k());
    for (int s = 0; s < kMaxPlayers; ++s) tokens[s].assign(c.k(), MAT);
  }

  void changed() {
    legal_known = false;
    for (bool& known : shapes_known) known = false;
  }

  void recount() {
    for (int s = 0; s < n(); ++s) {
      int total = 0;
      for (int c : hands[s]) total += c;
      left[s] = total;
    }
  }

  // -- construction --

  // _deal with no scenario hands (a later Campaign, or a plain new game).
  void deal() {
    const int players = n(), size = hand_size(players);
    std::vector<int> pile;
    for (int kind = 1; kind < kKinds; ++kind)
      for (int i = 0; i < kCardCounts[kind]; ++i) pile.push_back(kind);
    rng.shuffle(pile);
    const int boxed = boxed_cards(players);
    std::vector<int> boxv(pile.begin(), pile.begin() + boxed);
    pile.erase(pile.begin(), pile.begin() + boxed);
    const int dealt = size * players;
    pile.push_back(kGarros);
    rng.shuffle(pile);
    const int at = static_cast<int>(std::find(pile.begin(), pile.end(), kGarros) - pile.begin());
    if (at >= dealt) {
      const int other = static_cast<int>(rng.integers(dealt));
      std::swap(pile[at], pile[other]);
    }
    for (int s = 0; s < kMaxPlayers; ++s) hands[s].fill(0);
    for (int s = 0; s < players; ++s)
      for (int i = s * size; i < (s + 1) * size; ++i) hands[s][pile[i]] += 1;
    for (size_t i = dealt; i < pile.size(); ++i) boxv.push_back(pile[i]);
    box.fill(0);
    for (int kind : boxv) box[kind] += 1;
    recount();
    const int holder = garros_holder();
    first_leader = std::max(holder, 0);
  }

  // SkybirdsGame.new without a scenario.
  void new_game() {
    campaign = 1;
    for (int s = 0; s < kMaxPlayers; ++s) {
      tokens[s].assign(config.k(), MAT);
      plus_one[s] = 0;
      fractional[s] = -1;
      pre_used[s] = 0;
    }
    pool = {0, 1, 2};
    armistice_by = -1;
    over = truncated = false;
    deal();
    begin_campaign();
  }

  int garros_holder() const {
    for (int s = 0; s < n(); ++s)
      if (hands[s][kGarros]) return s;
    return -1;
  }

  void begin_campaign() {
    played.fill(0);
    finish.clear();
    takes.clear();
    trade_queue.clear();
    campaign_over = dogfight_over = false;
    has_table = false;
    has_last_squadron = false;
    last_winner = -1;
    squadron_size = 0;
    passes = 0;
    passed.fill(false);
    pre_used.fill(0);
    const int holder = garros_holder();
    garros_due = holder >= 0;
    const int start = holder >= 0 ? holder : first_leader;
    pre_queue.clear();
    for (int i = 0; i < n(); ++i) pre_queue.push_back((start + i) % n());
    next_pre_campaign();
  }

  // -- small queries --

  bool prerequisites_met(int seat, int token) const {
    const auto& info = config.tokens[token];
    if (info.prerequisites.empty()) return true;
    const auto& row = tokens[seat];
    if (info.needs_all) {
      for (int p : info.prerequisites)
        if (row[p] == MAT) return false;
      return true;
    }
    for (int p : info.prerequisites)
      if (row[p] != MAT) return true;
    return false;
  }

  double vp(int seat) const {
    double total = plus_one[seat];
    for (int i = 0; i < config.k(); ++i) {
      if (tokens[seat][i] == FRONT) total += config.tokens[i].vp_front;
      else if (tokens[seat][i] == BACK) total += config.tokens[i].vp_back;
    }
    if (fractional[seat] >= 0) total += kFractionalVp[fractional[seat]];
    return total;
  }

  int next_with_cards(int seat) const {
    for (int step_ = 1; step_ <= n(); ++step_) {
      const int other = (seat + step_) % n();
      if (left[other]) return other;
    }
    return kNoPlayer;
  }

  int place_of(int seat) const {
    return static_cast<int>(std::find(finish.begin(), finish.end(), seat) - finish.begin()) + 1;
  }

  int current_player() const { return over || truncated ? kNoPlayer : actor; }

  std::vector<int> winners() const {
    std::vector<int> out;
    if (!over) return out;
    double best = -1e300;
    for (int s = 0; s < n(); ++s) best = std::max(best, vp(s));
    for (int s = 0; s < n(); ++s)
      if (vp(s) == best) out.push_back(s);
    return out;
  }

  Table table_key() const {
    Table t;
    if (!has_table) return t;
    t.present = true;
    t.size = squadron_size;
    t.medallions = table.medallions;
    t.value = table.value;
    return t;
  }

  // -- legality --

  const std::vector<int>& legal_actions() {
    if (!legal_known) {
      legal.clear();
      compute_legal(legal);
      legal_known = true;
    }
    return legal;
  }

  void compute_legal(std::vector<int>& out) {
    if (over || truncated) return;
    if (phase == DOGFIGHT) {
      if (step == START)
        start_of_turn(out);
      else
        building(out);
      return;
    }
    if (phase == TAKE) {
      take_options(actor, out);
      return;
    }
    if (phase == TRADE) {
      out.push_back(layout.done);
      trade_options(actor, out);
      return;
    }
    pre_campaign_legal(out);
  }

  // _plain_plays
  void plain_plays(const Hand& hand, const Table& t, std::vector<int>& out) const {
    const PlainIds& ids = plain_ids();
    if (!t.present) {  // _leads
      if (hand[kGarros]) {
        for (int v = 1; v <= 10; ++v)
          for (int k = 1; k <= std::min(hand[v], kMaxSquadron - 1); ++k)
            out.push_back(ids.garros_id[v][k]);
        out.push_back(GARROS_ALONE);
        return;
      }
      for (int v = 1; v <= 10; ++v)
        for (int k = 1; k <= hand[v]; ++k) out.push_back(ids.set_id[v][k]);
      return;
    }
    const int size = t.size, medallions = t.medallions, value = t.value;
    const size_t begin = out.size();
    // _sets_beating
    const int low = medallions == 0 ? std::min(value + 1, 9) : 9;
    for (int v = low; v <= 10; ++v) {
      const int m = size * kMedallions[v];
      if (size <= 6 && ids.set_id[v][size] >= 0 &&
          (m > medallions || (m == medallions && v > value)) && hand[v] >= size)
        out.push_back(ids.set_id[v][size]);
    }
    // the Medallion singles of _follow_candidates
    if (size > 1 && medallions <= 1) {
      bool extra = false;
      for (int v = 9; v <= 10; ++v)
        if ((medallions < 1 || v > value) && hand[v]) {
          out.push_back(ids.set_id[v][1]);
          extra = true;
        }
      if (extra) std::sort(out.begin() + begin, out.end());
    }
    out.push_back(PASS);
  }

  std::vector<std::pair<int, int>> usable_tokens(int seat) const {
    std::vector<std::pair<int, int>> usable;
    for (int i = 0; i < config.k(); ++i)
      if (tokens[seat][i] != MAT && config.tokens[i].dogfight_bit)
        usable.emplace_back(i, config.tokens[i].dogfight_bit);
    return usable;
  }

  const std::vector<Move>& moves_of_shape(int shapes) {
    if (!shapes_known[shapes]) {
      shape_moves(hands[actor], shapes, shape_cache[shapes]);
      shapes_known[shapes] = true;
    }
    return shape_cache[shapes];
  }

  // has_move: some Squadron uses exactly the bonuses ``bits`` against the table.
  bool has_move(int bits, const Table& t) {
    const int shapes = bits & SHAPE_BITS, mods = bits & ~SHAPE_BITS;
    for (const Move& m : moves_of_shape(shapes))
      if (fits(m.size, m.value, m.icons, mods, t)) return true;
    return false;
  }

  // first_tokens (through _first_token_plan's order)
  void first_tokens(const std::vector<std::pair<int, int>>& usable, const Table& t,
                    std::vector<int>& out) {
    const bool one = config.one_token;
    for (size_t j = 0; j < usable.size(); ++j) {
      const int later_count = one ? 0 : static_cast<int>(usable.size() - j - 1);
      for (int subset = 0; subset < (1 << later_count); ++subset) {
        int bits = usable[j].second;
        for (int m = 0; m < later_count; ++m)
          if (subset >> m & 1) bits |= usable[j + 1 + m].second;
        if (has_move(bits, t)) {
          out.push_back(USE_OFFSET + usable[j].first);
          break;
        }
      }
    }
  }

  // token_sets
  std::vector<int> token_sets(const std::vector<std::pair<int, int>>& usable, const Table& t) {
    std::vector<int> out;
    const int count = static_cast<int>(usable.size());
    for (int subset = 1; subset < (1 << count); ++subset) {
      if (config.one_token && (subset & (subset - 1))) continue;
      int token_bits = 0, bonus_bits = 0;
      for (int j = 0; j < count; ++j)
        if (subset >> j & 1) {
          token_bits |= 1 << usable[j].first;
          bonus_bits |= usable[j].second;
        }
      if (has_move(bonus_bits, t)) out.push_back(token_bits);
    }
    return out;
  }

  void start_of_turn(std::vector<int>& out) {
    const Table t = table_key();
    plain_plays(hands[actor], t, out);
    const auto usable = usable_tokens(actor);
    if (!usable.empty()) first_tokens(usable, t, out);
  }

  std::pair<int, int> pending_bits() const {
    int token_bits = 0, bonus_bits = 0;
    for (int i : pend_tokens) {
      token_bits |= 1 << i;
      bonus_bits |= config.tokens[i].dogfight_bit;
    }
    return {token_bits, bonus_bits};
  }

  // pending_moves / valid_moves: the moves with exactly the tokens used so far.
  std::vector<Move> pending_moves() {
    const int bonus_bits = pending_bits().second;
    const int shapes = bonus_bits & SHAPE_BITS, mods = bonus_bits & ~SHAPE_BITS;
    const Table t = table_key();
    std::vector<Move> out;
    for (const Move& m : moves_of_shape(shapes))
      if (fits(m.size, m.value, m.icons, mods, t)) out.push_back(m);
    return out;
  }

  static bool prefix_matches(const Move& m, const std::vector<int>& prefix) {
    if (static_cast<int>(prefix.size()) > m.count) return false;
    for (size_t i = 0; i < prefix.size(); ++i)
      if (m.naturals[i] != prefix[i]) return false;
    return true;
  }

  void building(std::vector<int>& out) {
    std::vector<bool> seen(layout.size, false);
    auto add = [&](int a) { seen[a] = true; };
    if (step == TOKENS) {
      const int used = pending_bits().first;
      const int last = pend_tokens.back();
      for (int s : token_sets(usable_tokens(actor), table_key())) {
        const int rest = s & ~used;
        if ((s & used) != used || !rest) continue;
        const int nxt = __builtin_ctz(rest);
        if (nxt > last && (s & ((1 << nxt) - 1)) == used) add(USE_OFFSET + nxt);
      }
    }
    const int depth = static_cast<int>(pend_cards.size());
    const std::vector<Move> moves = pending_moves();
    if (step == DECLARE) {
      for (const Move& m : moves)
        if (m.count == depth && prefix_matches(m, pend_cards) && m.wild == pend_wild)
          add(layout.declare_offset + m.declare - 1);
    } else {
      for (const Move& m : moves) {
        if (!prefix_matches(m, pend_cards)) continue;
        if (m.count > depth)
          add(layout.add_offset + m.naturals[depth]);
        else if (m.wild)
          add(layout.wild_offset + m.wild - 1);
        else if (depth)
          add(layout.done);
      }
    }
    for (int a = 0; a < layout.size; ++a)
      if (seen[a]) out.push_back(a);
  }

  void pre_campaign_legal(std::vector<int>& out) const {
    const int seat = actor;
    if (step == START) {
      for (int i : pre_campaign_options(seat)) out.push_back(USE_OFFSET + i);
      out.push_back(layout.done);
      return;
    }
    const int need = config.tokens[pend_token].swap_cards;
    if (step == TARGET) {
      for (int other = 0; other < n(); ++other)
        if (other != seat && left[other] >= need) out.push_back(layout.target(seat, other));
      std::sort(out.begin(), out.end());
      return;
    }
    const Hand& hand = hands[seat];
    auto chosen_count = [&](int kind) {
      return static_cast<int>(std::count(pend_cards.begin(), pend_cards.end(), kind));
    };
    const int low = pend_cards.empty() ? 0 : pend_cards.back();
    const int still = need - static_cast<int>(pend_cards.size());
    int available = -chosen_count(low);
    for (int kind = low; kind < kKinds; ++kind) available += hand[kind];
    for (int kind = low; kind < kKinds; ++kind) {
      const int free_ = hand[kind] - chosen_count(kind);
      if (free_ >= 1 && available >= still) out.push_back(layout.give_offset + kind);
      available -= free_;
    }
  }

  std::vector<int> pre_campaign_options(int seat) const {
    std::vector<int> out;
    const auto& row = tokens[seat];
    const int mine = left[seat];
    for (int i = 0; i < config.k(); ++i) {
      const int need = config.tokens[i].swap_cards;
      if (!need || row[i] == MAT || (pre_used[seat] >> i & 1) || mine < need) continue;
      for (int o = 0; o < n(); ++o)
        if (o != seat && left[o] >= need) {
          out.push_back(i);
          break;
        }
    }
    return out;
  }

  void take_options(int seat, std::vector<int>& out) const {
    const int place = place_of(seat);
    if (place < n() || n() == 2) {
      const auto& row = tokens[seat];
      for (int i = 0; i < config.k(); ++i)
        if (row[i] == MAT && config.tokens[i].ribbon >= place && prerequisites_met(seat, i))
          out.push_back(layout.take_offset + i);
    }
    if (plus_one[seat] < kPlusOneTokens) out.push_back(layout.plus_one);
  }

  void trade_options(int seat, std::vector<int>& out) const {
    const auto& row = tokens[seat];
    for (int i = 0; i < config.k(); ++i) {
      const auto& info = config.tokens[i];
      if (row[i] == MAT && !info.armistice && trade_cost(info.ribbon) <= plus_one[seat] &&
          prerequisites_met(seat, i))
        out.push_back(layout.trade_offset + i);
    }
  }

  bool is_legal(int action) {
    const auto& l = legal_actions();
    return std::binary_search(l.begin(), l.end(), action);
  }

  // -- applying --

  void apply_action(int action) {
    if (over || truncated) throw std::invalid_argument("the Great War is over; no action can be applied");
    if (!is_legal(action))
      throw std::invalid_argument("illegal action " + std::to_string(action) + " for seat " +
                                  std::to_string(actor));
    const int seat = actor;
    if (phase == DOGFIGHT) {
      if (action == PASS)
        pass(seat);
      else if (action < PASS)
        play_plain(seat, action);
      else
        dogfight_action(seat, action);
    } else if (phase == TAKE) {
      takes.erase(takes.begin());
      take(seat, action);
      run_takes();
    } else if (phase == TRADE) {
      trade_action(seat, action);
    } else {
      pre_campaign_action(seat, action);
    }
    changed();
  }

  void dogfight_action(int seat, int action) {
    if (action < layout.add_offset) {
      pend_tokens.push_back(action - USE_OFFSET);
      step = TOKENS;
      for (bool& known : shapes_known) known = false;
    } else if (action < layout.done) {
      pend_cards.push_back(action - layout.add_offset);
      step = CARDS;
    } else if (action == layout.done) {
      play_move(seat, 0, 0);
    } else if (action < layout.declare_offset) {
      pend_wild = action - layout.wild_offset + 1;
      step = DECLARE;
    } else {
      play_move(seat, pend_wild, action - layout.declare_offset + 1);
    }
  }

  void clear_pending() {
    pend_tokens.clear();
    pend_cards.clear();
    pend_wild = 0;
    pend_token = -1;
    pend_target = -1;
  }

  void pass(int seat) {
    passes += 1;
    passed[seat] = true;
    position = seat;
    clear_pending();
    next_turn();
  }

  void play_plain(int seat, int action) {
    const PlainIds& ids = plain_ids();
    Squadron s;
    s.player = seat;
    s.cards = ids.cards[action];
    for (int kind : s.cards) {
      hands[seat][kind] -= 1;
      played[kind] += 1;
    }
    s.size = static_cast<int>(s.cards.size());
    left[seat] -= s.size;
    s.value = ids.value[action];
    s.medallions = ids.medallions[action];
    after_squadron(seat, s);
  }

  void play_move(int seat, int wild, int declare) {
    const std::vector<Move> moves = pending_moves();
    const Move* move = nullptr;
    for (const Move& m : moves)
      if (m.count == static_cast<int>(pend_cards.size()) && prefix_matches(m, pend_cards) &&
          m.wild == wild && m.declare == declare) {
        move = &m;
        break;
      }
    if (move == nullptr) throw std::logic_error("no pending move matches");
    const int bonus_bits = pending_bits().second;
    for (int token : pend_tokens) use_token(seat, token);
    Squadron s;
    s.player = seat;
    s.cards.assign(pend_cards.begin(), pend_cards.end());
    if (wild) s.cards.push_back(wild);
    for (int kind : s.cards) {
      hands[seat][kind] -= 1;
      played[kind] += 1;
    }
    left[seat] -= static_cast<int>(s.cards.size());
    std::sort(s.cards.begin(), s.cards.end());
    s.size = move->size;
    s.value = move->value;
    s.medallions = move->icons + extra_medallions(bonus_bits);
    s.tokens = pend_tokens;
    s.wild = wild;
    s.declare = declare;
    after_squadron(seat, s);
  }

  void use_token(int seat, int token) {
    auto& state = tokens[seat][token];
    state = state == FRONT ? BACK : MAT;
  }

  void after_squadron(int seat, const Squadron& s) {
    clear_pending();
    if (s.cards[0] == kGarros) garros_due = false;
    if (!has_table) squadron_size = s.size;
    table = s;
    has_table = true;
    last_player = seat;
    position = seat;
    passes = 0;
    passed.fill(false);
    if (s.value == 0) dogfight_over = true;
    if (!left[seat]) {
      finish.push_back(seat);
      takes.push_back(seat);
      int with_cards = 0, first = -1;
      for (int o = 0; o < n(); ++o)
        if (left[o]) {
          if (first < 0) first = o;
          ++with_cards;
        }
      if (with_cards <= 1) {
        campaign_over = true;
        if (with_cards) {
          finish.push_back(first);
          takes.push_back(first);
        }
      }
    }
    if (!takes.empty())
      run_takes();
    else if (campaign_over || dogfight_over)
      resume();
    else
      next_turn();
  }

  void run_takes() {
    std::vector<int> options;
    while (!takes.empty()) {
      const int seat = takes[0];
      options.clear();
      take_options(seat, options);
      if (options.size() > 1) {
        phase = TAKE;
        step = START;
        actor = seat;
        return;
      }
      takes.erase(takes.begin());
      if (!options.empty()) take(seat, options[0]);
    }
    resume();
  }

  void take(int seat, int action) {
    if (action == layout.plus_one) {
      plus_one[seat] += 1;
    } else {
      const int token = action - layout.take_offset;
      acquire(seat, token);
      if (config.tokens[token].armistice) {
        armistice_by = seat;
        const int place = place_of(seat) - 1;
        for (int i = 0; i < place; ++i) claim_fractional(finish[i]);
      }
    }
    if (armistice_by >= 0) claim_fractional(seat);
  }

  void acquire(int seat, int token) {
    tokens[seat][token] = FRONT;
    if (config.tokens[token].tiebreaker) claim_fractional(seat);
  }

  void claim_fractional(int seat) {
    if (fractional[seat] < 0 && !pool.empty()) {
      fractional[seat] = pool.front();
      pool.erase(pool.begin());
    }
  }

  void resume() {
    if (campaign_over)
      end_campaign();
    else if (dogfight_over)
      end_dogfight();
    else
      next_turn();
  }

  void next_turn() {
    int zero = 0;
    for (int s = 0; s < n(); ++s)
      if (!left[s]) ++zero;
    const int others = n() - zero - (left[last_player] ? 1 : 0);
    if (passes >= others) {
      end_dogfight();
      return;
    }
    phase = DOGFIGHT;
    step = START;
    for (int step_ = 1; step_ <= n(); ++step_) {
      const int seat = (position + step_) % n();
      if (left[seat]) {
        actor = seat;
        return;
      }
    }
    actor = kNoPlayer;
  }

  void end_dogfight() {
    last_winner = last_player;
    has_last_squadron = has_table;
    last_squadron = table;
    has_table = false;
    dogfight_over = false;
    if (armistice_by >= 0 && config.armistice_ends_dogfight) {
      end_war();
      return;
    }
    const int winner = last_player;
    const int leader = left[winner] ? winner : next_with_cards(winner);
    new_dogfight(leader);
  }

  void new_dogfight(int leader) {
    clear_pending();
    has_table = false;
    squadron_size = 0;
    passes = 0;
    passed.fill(false);
    last_player = position = leader;
    phase = DOGFIGHT;
    step = START;
    actor = leader;
  }

  void end_campaign() {
    if (armistice_by >= 0) {
      end_war();
      return;
    }
    if (campaign >= config.max_campaigns) {
      truncated = true;
      phase = OVER;
      actor = kNoPlayer;
      return;
    }
    trade_queue = finish;
    next_trade();
  }

  void end_war() {
    std::vector<int> holding;
    for (int s = 0; s < n(); ++s)
      if (std::find(finish.begin(), finish.end(), s) == finish.end()) holding.push_back(s);
    const int by = armistice_by, players = n();
    std::stable_sort(holding.begin(), holding.end(), [&](int a, int b) {
      const int ka = left[a], kb = left[b];
      if (ka != kb) return ka < kb;
      return ((a - by) % players + players) % players < ((b - by) % players + players) % players;
    });
    for (int seat : holding) claim_fractional(seat);
    has_table = false;
    over = true;
    phase = OVER;
    step = START;
    actor = kNoPlayer;
  }

  void next_trade() {
    std::vector<int> options;
    while (!trade_queue.empty()) {
      const int seat = trade_queue[0];
      options.clear();
      trade_options(seat, options);
      if (!options.empty()) {
        phase = TRADE;
        step = START;
        actor = seat;
        return;
      }
      trade_queue.erase(trade_queue.begin());
    }
    next_campaign();
  }

  void trade_action(int seat, int action) {
    if (action == layout.done) {
      trade_queue.erase(trade_queue.begin());
    } else {
      const int token = action - layout.trade_offset;
      plus_one[seat] -= trade_cost(config.tokens[token].ribbon);
      acquire(seat, token);
    }
    next_trade();
  }

  void next_campaign() {
    campaign += 1;
    first_leader = 0;
    deal();
    begin_campaign();
  }

  void next_pre_campaign() {
    while (!pre_queue.empty()) {
      const int seat = pre_queue[0];
      if (!pre_campaign_options(seat).empty()) {
        phase = PRE_CAMPAIGN;
        step = START;
        actor = seat;
        return;
      }
      pre_queue.erase(pre_queue.begin());
    }
    const int holder = garros_holder();
    garros_due = holder >= 0;
    new_dogfight(holder >= 0 ? holder : first_leader);
  }

  void pre_campaign_action(int seat, int action) {
    if (step == START) {
      if (action == layout.done) {
        pre_queue.erase(pre_queue.begin());
        next_pre_campaign();
        return;
      }
      pend_token = action - USE_OFFSET;
      step = TARGET;
      return;
    }
    if (step == TARGET) {
      pend_target = layout.target_seat(seat, action);
      step = GIVE;
      return;
    }
    pend_cards.push_back(action - layout.give_offset);
    if (static_cast<int>(pend_cards.size()) == config.tokens[pend_token].swap_cards) swap(seat);
  }

  void swap(int seat) {
    const int target = pend_target, token = pend_token;
    const std::vector<int> given = pend_cards;
    std::vector<int> theirs;
    for (int k = 0; k < kKinds; ++k)
      for (int i = 0; i < hands[target][k]; ++i) theirs.push_back(k);
    const auto picks = rng.choice_without_replacement(static_cast<int64_t>(theirs.size()),
                                                      static_cast<int64_t>(given.size()));
    std::vector<int> drawn;
    for (auto i : picks) drawn.push_back(theirs[static_cast<size_t>(i)]);
    for (int kind : given) {
      hands[seat][kind] -= 1;
      hands[target][kind] += 1;
    }
    for (int kind : drawn) {
      hands[target][kind] -= 1;
      hands[seat][kind] += 1;
    }
    pre_used[seat] |= 1 << token;
    use_token(seat, token);
    clear_pending();
    step = START;
    if (pre_campaign_options(seat).empty()) {
      pre_queue.erase(pre_queue.begin());
      next_pre_campaign();
    }
  }

  // ---- the observation (observer.py's field table, gathered for one seat) ----------

  int observation_size() const {
    const int players = n(), k = config.k();
    return 64 + 10 * players + players * players + 2 * k + 3 * players * k;
  }

  // Writes the observation of ``seat`` (observation_size() floats, zeroed first).
  // Each entry is the Python observer's double expression rounded to float32.
  void encode(int seat, float* out) const {
    const int players = n(), k = config.k();
    std::fill(out, out + observation_size(), 0.0f);
    float* at = out;
    const bool done = phase == OVER;
    if (!done) {
      at[phase] = 1.0f;
      at[4 + step] = 1.0f;
    }
    at += 10;
    at[0] = static_cast<float>(static_cast<double>(campaign) / config.max_campaigns);
    at[1] = armistice_by >= 0 ? 1.0f : 0.0f;
    at[2] = garros_due ? 1.0f : 0.0f;
    at += 3;
    if (has_table) {
      at[0] = 1.0f;
      at[1] = static_cast<float>(table.size / 6.0);
      at[2] = static_cast<float>(table.value / 10.0);
      at[3] = static_cast<float>(table.medallions * (1.0 / config.max_medallions));
      at[4] = static_cast<float>(squadron_size / 6.0);
    }
    at += 5;
    for (int kind = 0; kind < kKinds; ++kind)
      at[kind] = static_cast<float>(static_cast<double>(played[kind]) / kCardCounts[kind]);
    at += kKinds;
    for (int f : pool) at[f] = 1.0f;
    at += 3;
    const int acting = done ? -1 : actor;
    auto per_seat = [&](int width, auto write) {
      for (int rel = 0; rel < players; ++rel) write((seat + rel) % players, at + rel * width);
      at += players * width;
    };
    per_seat(1, [&](int s, float* p) { p[0] = s == acting ? 1.0f : 0.0f; });
    per_seat(1, [&](int s, float* p) { p[0] = has_table && table.player == s ? 1.0f : 0.0f; });
    per_seat(1, [&](int s, float* p) { p[0] = passed[s] ? 1.0f : 0.0f; });
    const double hand_scale = 1.0 / hand_size(players);
    per_seat(1, [&](int s, float* p) { p[0] = static_cast<float>(left[s] * hand_scale); });
    per_seat(players, [&](int s, float* p) {
      for (size_t place = 0; place < finish.size(); ++place)
        if (finish[place] == s) p[place] = 1.0f;
    });
    per_seat(2 * k, [&](int s, float* p) {
      for (int i = 0; i < k; ++i) {
        p[2 * i] = tokens[s][i] == FRONT ? 1.0f : 0.0f;
        p[2 * i + 1] = tokens[s][i] == BACK ? 1.0f : 0.0f;
      }
    });
    per_seat(k, [&](int s, float* p) {
      for (int i = 0; i < k; ++i) p[i] = (pre_used[s] >> i & 1) ? 1.0f : 0.0f;
    });
    per_seat(1, [&](int s, float* p) {
      p[0] = static_cast<float>(static_cast<double>(plus_one[s]) / kPlusOneTokens);
    });
    per_seat(3, [&](int s, float* p) {
      if (fractional[s] >= 0) p[fractional[s]] = 1.0f;
    });
    const double vp_scale = 1.0 / config.max_vp;
    per_seat(1, [&](int s, float* p) { p[0] = static_cast<float>(vp(s) * vp_scale); });
    // the private block
    for (int kind = 0; kind < kKinds; ++kind)
      at[kind] = static_cast<float>(static_cast<double>(hands[seat][kind]) / kCardCounts[kind]);
    at += kKinds;
    const bool pending = !done && seat == actor &&
                         (!pend_tokens.empty() || !pend_cards.empty() || pend_token >= 0);
    if (pending)
      for (int t : pend_tokens) at[t] = 1.0f;
    at += k;
    if (pending)
      for (int kind = 0; kind < kKinds; ++kind) {
        const int count = static_cast<int>(std::count(pend_cards.begin(), pend_cards.end(), kind));
        if (count) at[kind] = static_cast<float>(static_cast<double>(count) / kCardCounts[kind]);
      }
    at += kKinds;
    if (pending && pend_wild) at[pend_wild - 1] = 1.0f;
    at += 10;
    if (pending && pend_token >= 0) at[pend_token] = 1.0f;
    at += k;
    if (pending && pend_target >= 0) at[((pend_target - seat) % players + players) % players] = 1.0f;
  }
};

}  // namespace skybirds
