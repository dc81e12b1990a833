// The Arena's heuristic bot (envs/arena/bots.py) in C++17, choice for choice:
// it reads from the engine what the Python bot reads from its seat's view
// (observer.bot_view), adds up its chances in the same order, breaks ties the
// way Python's max/min do (the first best in the same order), keeps the same
// count of Nebula Slides per turn, and draws its fallback pick as
// Generator.choice does. Each function names the Python method it mirrors.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arena_engine.hpp"
#include "numpy_rng.hpp"

namespace arena {

constexpr double kTrophyCost = 0.15;      // TROPHY_COST
constexpr double kManeuverValue = 1.0;    // MANEUVER_VALUE
constexpr double kWorldValue = 3.5;       // WORLD_VALUE
constexpr double kMedalCardValue = 0.35;  // MEDAL_CARD_VALUE
constexpr double kPortalValue = 0.45;     // PORTAL_VALUE
constexpr double kGymPassValue = 0.12;    // GYM_PASS_VALUE
constexpr int kSlidesPerTurn = 3;         // SLIDES_PER_TURN
constexpr double kTrainShort = 0.5, kTrainValue = 0.25;

// What the bot reads of the box beyond the engine's Box (observer's box_tables).
struct BotBox {
  std::vector<std::string> card_names;
  std::vector<std::pair<int, int>> space_at;  // each space's (row, column)
  std::vector<int> character_rank;            // place in HEURISTIC_CHARACTER_ORDER
};

using Dist = std::vector<double>;

// dice.distribution: dist[s] = chance that `count` dice read by `table` add up to s.
inline Dist dice_distribution(const std::vector<int>& table, int count) {
  const int sides = static_cast<int>(table.size()) - 1;
  const int top = *std::max_element(table.begin(), table.end());
  Dist dist{1.0};
  for (int i = 0; i < count; ++i) {
    Dist next(dist.size() + static_cast<size_t>(top), 0.0);
    for (size_t total = 0; total < dist.size(); ++total) {
      const double p = dist[total];
      if (p == 0.0) continue;
      for (int face = 1; face <= sides; ++face) next[total + table[face]] += p / sides;
    }
    dist = std::move(next);
  }
  return dist;
}

// bots.beats: chance that my sum exceeds theirs by more than `margin`.
inline double beats(const Dist& mine, const Dist& theirs, int margin) {
  std::vector<double> cumulative(theirs.size() + 1);
  double run = 0.0;
  cumulative[0] = 0.0;
  for (size_t i = 0; i < theirs.size(); ++i) cumulative[i + 1] = run += theirs[i];
  double total = 0.0;
  const long n = static_cast<long>(theirs.size());
  for (size_t s = 0; s < mine.size(); ++s) {
    const double p = mine[s];
    const long limit = static_cast<long>(s) - margin;
    if (p != 0.0 && limit > 0) total += p * cumulative[std::min(limit, n)];
  }
  return total;
}

class HeuristicBot {
 public:
  explicit HeuristicBot(flockgym::NumpyRng rng) : rng(std::move(rng)) {}

  flockgym::NumpyRng rng;
  // (the turn: round and seat on turn, slides gone through in it): bots.py's `slides`
  bool slide_turn_known = false;
  int slide_round = 0, slide_seat = 0, slide_count = 0;

  // ArenaHeuristicBot.act for the seat to act.
  int act(const Game& game, const BotBox& bb) {
    Game& g = const_cast<Game&>(game);
    const std::vector<int>& legal_list = g.legal_actions();
    if (legal_list.empty()) throw std::invalid_argument("the heuristic bot has no legal action");
    Decision d(*this, game, bb, legal_list);
    const int choice = d.choose();
    if (d.legal(choice)) return choice;
    return legal_list[static_cast<size_t>(rng.integers(static_cast<int64_t>(legal_list.size())))];
  }

 private:
  // the chances of one player's roll (bots.Roller)
  struct Roller {
    int sides = 6, count = 0;
    bool dark = false;
    int dark_value = 2;
    std::vector<int> table;
    const Dist* dist = nullptr;
  };

  std::map<std::pair<std::vector<int>, int>, Dist> dist_cache_;

  const Dist& distribution(const std::vector<int>& table, int count) {
    auto key = std::make_pair(table, count);
    auto it = dist_cache_.find(key);
    if (it == dist_cache_.end()) it = dist_cache_.emplace(key, dice_distribution(table, count)).first;
    return it->second;
  }

  // One decision: bots.View and the phase methods.
  class Decision {
   public:
    Decision(HeuristicBot& bot, const Game& g, const BotBox& bb, const std::vector<int>& legal_list)
        : bot(bot), g(g), box(g.box()), bb(bb), L(g.layout), legal_list(legal_list),
          me(g.actor), n(g.n()), tv(box.trophy_value) {
      is_legal.assign(static_cast<size_t>(L.size), 0);
      for (int a : legal_list) is_legal[static_cast<size_t>(a)] = 1;
      landing_memo.assign(static_cast<size_t>(box.num_spaces()), 0.0);
      landing_known.assign(static_cast<size_t>(box.num_spaces()), 0);
      stop_memo = landing_memo;
      stop_known = landing_known;
      rollers.resize(static_cast<size_t>(n));
      roller_known.assign(static_cast<size_t>(n), 0);
      crowded.assign(static_cast<size_t>(box.num_spaces()), 0);
      for (int s = 0; s < n; ++s)
        if (s != me && g.positions[s] >= 0) crowded[static_cast<size_t>(g.positions[s])] = 1;
    }

    bool legal(int action) const {
      return action >= 0 && action < L.size && is_legal[static_cast<size_t>(action)];
    }

    int choose() {
      switch (g.phase) {
        case WISH: return wish();
        case CORNER: return corner();
        case PRE_ROLL: return pre_roll();
        case MOVE_SPEND: return move_spend();
        case MOVE: return move();
        case ACTION: return action();
        case CHALLENGE_SPEND: return challenge_spend();
        case DEFEND_SPEND: return defend_spend();
        case GYM_CARD: return L.train;
        default: return pick();
      }
    }

   private:
    HeuristicBot& bot;
    const Game& g;
    const Box& box;
    const BotBox& bb;
    const Layout& L;
    const std::vector<int>& legal_list;
    std::vector<char> is_legal;
    int me, n, tv;
    std::vector<double> landing_memo, stop_memo;
    std::vector<char> landing_known, stop_known;
    std::unordered_map<long, double> best_memo;
    bool slide_known = false;
    double slide_worth_value = 0.0;
    std::vector<Roller> rollers;
    std::vector<char> roller_known;
    std::vector<char> crowded;

    // ---- the view's facts ----

    int medal_level(int s) const {
      const auto& m = g.medals[s];
      return m[2] ? 3 : m[1] ? 2 : m[0] ? 1 : 0;
    }
    int bonus(int s, int kind) const {  // View.bonus
      const auto& c = box.characters[g.characters[s]];
      const int form = g.forms[s];
      return c.bonus_kind[form] == kind ? c.bonus_amount[form] : 0;
    }
    int card_bonus(int s, int card) const {  // View.card_bonus
      const CardInfo& c = box.cards[card];
      return c.bonus_form >= 0 && c.bonus_form == g.forms[s] ? c.bonus_amount : 0;
    }
    int card_challenge(int card) const {  // box_tables' "challenge"
      const CardInfo& c = box.cards[card];
      return c.is_world && g.config.world_printed ? c.number : c.challenge;
    }
    std::vector<int> sorted_of(const std::vector<int>& v) const {
      std::vector<int> out(v);
      std::sort(out.begin(), out.end());
      return out;
    }
    bool defended_by(int card, int s) const { return g.defended[card] == s; }
    int relative(int other) const { return ((other - me) % n + n) % n; }
    int card_on(int space) const {  // the view's "card" of a space, or -1
      const int kind = box.kind_of[space];
      if (kind != K_MANEUVER && kind != K_WORLD) return -1;
      const int item = g.space_item[space];
      return item >= 0 && item < box.num_cards() ? item : -1;
    }
    bool medal_card_on(int space) const {
      const int kind = box.kind_of[space];
      if (kind != K_MANEUVER && kind != K_WORLD) return false;
      return g.space_item[space] >= box.num_cards();
    }
    int gym_power_cards(int space) const {  // a gym space's "gym_power_cards"
      const int corner = box.corner_index[space];
      if (corner < 0 || g.gym_at.empty()) return 0;
      return g.gym_cards[g.gym_at[corner]];
    }
    int gym_trophies(int space) const {
      const int corner = box.corner_index[space];
      return corner < 0 ? 0 : g.gym_trophies[corner];
    }
    bool gym_with_trophies(int space) const {  // View.move_facts' gyms.get(space, 0) > 0
      return box.kind_of[space] == K_GYM && box.corner_index[space] >= 0 && gym_trophies(space) > 0;
    }
    std::vector<int> others_on(int space) const {
      std::vector<int> out;
      for (int s = 0; s < n; ++s)
        if (s != me && g.positions[s] == space) out.push_back(s);
      return out;
    }
    std::vector<int> held_medal_cards(int s) const {
      std::vector<int> out;
      for (int k = 0; k < box.num_medal_cards(); ++k)
        if (g.medal_holder[k] == s) out.push_back(k);
      return out;
    }

    const Roller& roller(int s) {  // View.roller
      if (!roller_known[s]) {
        Roller& r = rollers[s];
        r.sides = box.challenge_die[g.forms[s]];
        r.count = box.challenge_dice + g.roll_extra[s];
        const int level = g.roll_gold[s] ? 3 : medal_level(s);
        r.dark = g.dark[s] > 0;
        r.dark_value = box.dark_matter_value;
        r.table.assign(1, 0);
        for (int face = 1; face <= r.sides; ++face) {
          if (level && face <= box.medal_levels[level - 1].below)
            r.table.push_back(box.medal_levels[level - 1].reads);
          else
            r.table.push_back(face);
        }
        r.dist = nullptr;
        roller_known[s] = 1;
      }
      return rollers[s];
    }
    double at_least(const Roller& r, int need) {  // Roller.at_least and bots.tail
      if (r.dark) return r.dark_value * r.count >= need ? 1.0 : 0.0;
      if (need <= 0) return 1.0;
      const Dist& dist = bot.distribution(r.table, r.count);
      if (need >= static_cast<int>(dist.size())) return 0.0;
      double total = 0.0;
      for (size_t i = static_cast<size_t>(need); i < dist.size(); ++i) total += dist[i];
      return total;
    }
    double any_at_least(const Roller& r, int target) const {  // Roller.any_at_least
      if (r.dark) return r.dark_value >= target ? 1.0 : 0.0;
      int misses = 0;
      for (int face = 1; face <= r.sides; ++face)
        if (r.table[face] < target) ++misses;
      return 1.0 - std::pow(static_cast<double>(misses) / r.sides, static_cast<double>(r.count));
    }
    Dist roll_distribution(const Roller& r) {  // Roller.distribution
      if (r.dark) {
        Dist dist(static_cast<size_t>(r.dark_value * r.count + 1), 0.0);
        dist.back() = 1.0;
        return dist;
      }
      return bot.distribution(r.table, r.count);
    }

    // ---- values (ArenaHeuristicBot) ----

    double prize(bool world, bool medal) const {
      if (world) {
        if (static_cast<int>(g.worlds_of[me].size()) + 1 >= box.win_worlds) return 100.0;
        return kWorldValue;
      }
      if (medal) return kMedalCardValue;
      const int count = static_cast<int>(g.maneuvers_of[me].size()) + 1;
      double value = kManeuverValue;
      if (count == box.maneuvers_for_worlds) value += 0.7;
      if (count == 3 || count == 5 || count == 7) value += 0.3;
      return value;
    }

    // best_spend: (expected gain, trophies) for chance(extra) of winning value
    template <class Chance>
    std::pair<double, int> best_spend(const Chance& chance, double value, int trophies) {
      double best = chance(0) * value;
      int best_k = 0;
      for (int k = 1; k <= trophies; ++k) {
        const double gain = chance(k * tv) * value - kTrophyCost * k;
        if (gain > best + 1e-9) {
          best = gain;
          best_k = k;
        }
      }
      return {best, best_k};
    }

    // challenge_chance, as a closure over the numbers it reads
    struct Chance {
      int mode = 0;  // 0 at_least(need - e), 1 any_at_least(need - e), 2 beats
      int need = 0;
      Decision* d = nullptr;
      const Roller* roller = nullptr;
      Dist mine, theirs;
      double operator()(int extra) const {
        if (mode == 0) return d->at_least(*roller, need - extra);
        if (mode == 1) return d->any_at_least(*roller, need - extra);
        return beats(mine, theirs, need - extra);
      }
    };

    // kind: CH_MANEUVER, CH_WORLD, CH_MEDAL or -1 for a player's card
    Chance challenge_chance(int kind, int item, int defender) {
      Chance c;
      c.d = this;
      const Roller& r = roller(me);
      c.roller = &r;
      const int waiting = g.bonus_trophies[me] * tv + g.roll_bonus[me];
      if (kind == CH_MEDAL) {
        c.mode = 1;
        c.need = box.medal_target - bonus(me, B_MEDAL) - waiting;
        return c;
      }
      const CardInfo& card = box.cards[item];
      int b = card_bonus(me, item) + waiting;
      if (kind == CH_MANEUVER || kind == CH_WORLD) {
        c.need = card_challenge(item) - bonus(me, kind == CH_WORLD ? B_WORLD : B_MANEUVER) - b;
        return c;
      }
      b += bonus(me, B_ATTACK);
      if (card.character >= 0 && card.character == g.characters[me]) {
        c.need = card.number - b;
        return c;
      }
      const Roller& theirs = roller(defender);
      int their_mod = bonus(defender, B_DEFENCE) + card_bonus(defender, item);
      their_mod += g.trophies[defender] / 2 * tv;
      c.mode = 2;
      c.mine = roll_distribution(r);
      c.theirs = roll_distribution(theirs);
      c.need = their_mod - b;
      return c;
    }

    struct Option {
      double value;
      int kind;  // 0 end, 1 train, 2 card, 3 medal, 4 player
      int card, other;
    };

    std::vector<Option> action_options(int space) {
      std::vector<Option> out{{0.0, 0, -1, -1}};
      const int trophies = g.trophies[me];
      if (box.kind_of[space] == K_GYM && gym_power_cards(space) > 0) {
        const bool first = g.first_turn[me] || g.rounds + 1 == 1;
        const bool first_home = first && g.start_corner[me] == space;
        if (!first_home) out.push_back({trophies < 2 ? kTrainShort : kTrainValue, 1, -1, -1});
      }
      const int card = card_on(space);
      if (card >= 0) {
        const bool world = box.cards[card].is_world;
        if (!world || static_cast<int>(g.maneuvers_of[me].size()) >= box.maneuvers_for_worlds) {
          const Chance c = challenge_chance(world ? CH_WORLD : CH_MANEUVER, card, -1);
          out.push_back({best_spend(c, prize(world, false), trophies).first, 2, card, -1});
        }
      }
      if (medal_card_on(space)) {
        const Chance c = challenge_chance(CH_MEDAL, -1, -1);
        out.push_back({best_spend(c, kMedalCardValue, trophies).first, 3, -1, -1});
      }
      for (int other : others_on(space)) {
        for (int kind_world = 0; kind_world < 2; ++kind_world) {
          const auto& held = kind_world ? g.worlds_of[other] : g.maneuvers_of[other];
          for (int name : sorted_of(held)) {
            if (kind_world && defended_by(name, other)) continue;
            const double value = prize(kind_world, false) + (kind_world ? 0.5 : 0.2);
            const Chance c = challenge_chance(-1, name, other);
            out.push_back({best_spend(c, value, trophies).first, 4, name, other});
          }
        }
      }
      return out;
    }

    double landing_value(int space) {
      if (box.kind_of[space] == K_PORTAL) return kPortalValue;
      double best = 0.0;
      bool first = true;
      for (const Option& o : action_options(space)) {
        if (first || o.value > best) best = o.value;
        first = false;
      }
      return best;
    }

    double stop_value(int space) {
      double best = -1.0;
      bool any = false;
      for (const Option& o : action_options(space)) {
        if (o.kind != 4) continue;
        if (!any || o.value > best) best = o.value;
        any = true;
      }
      return best;
    }

    int slides_this_turn() const {
      const int seat = g.over ? -1 : g.turn_seat;
      return bot.slide_turn_known && bot.slide_round == g.rounds && bot.slide_seat == seat
                 ? bot.slide_count
                 : 0;
    }

    double slide_value() {
      if (slides_this_turn() >= kSlidesPerTurn) return -1e9;
      if (!slide_known) {
        slide_worth_value = slide_worth();
        slide_known = true;
      }
      return slide_worth_value;
    }

    double slide_worth() const {
      bool others_trophies = false, others_worlds = false;
      for (int s = 0; s < n; ++s) {
        if (s == me) continue;
        others_trophies = others_trophies || g.trophies[s] > 0;
        others_worlds = others_worlds || !g.worlds_of[s].empty();
      }
      const int sides = box.slide_die[g.forms[me]];
      double total = 0.0;
      int count = 0;
      for (int r = 1; r <= sides; ++r) {
        bool ok = true;
        double x = 0.0;
        switch (r) {
          case 1: ok = !g.maneuvers_of[me].empty(); x = -0.9; break;
          case 2: ok = !g.worlds_of[me].empty(); x = -kWorldValue; break;
          case 3: ok = g.trophies[me] > 0; x = -kTrophyCost; break;
          case 4: ok = others_trophies; x = kTrophyCost; break;
          case 5: ok = others_worlds; x = kWorldValue; break;
          case 6: x = 0.6; break;
          case 7: ok = !g.medals[me][2]; x = 1.0; break;
          case 8: x = 0.45; break;
          default: throw std::out_of_range("a Nebula Slide die beyond 8");
        }
        if (ok) {
          total += x;
          ++count;
        }
      }
      return total / count;
    }

    double best(int space, int left, bool moved, double slide) {
      const long key = (static_cast<long>(space) * 100000 + left) * 2 + (moved ? 1 : 0);
      auto it = best_memo.find(key);
      if (it != best_memo.end()) return it->second;
      double value = 0.0;
      bool any = false;
      auto offer = [&](double x) {
        if (!any || x > value) value = x;
        any = true;
      };
      if (left == 0) {
        if (!landing_known[space]) {
          landing_memo[space] = landing_value(space);
          landing_known[space] = 1;
        }
        offer(landing_memo[space]);
      } else {
        for (int nxt : box.next_of[space]) {
          const double gain = gym_with_trophies(nxt) ? kGymPassValue : 0.0;
          offer(best(nxt, left - 1, true, slide) + gain);
        }
        if (moved && crowded[space]) {
          if (!stop_known[space]) {
            stop_memo[space] = stop_value(space);
            stop_known[space] = 1;
          }
          offer(stop_memo[space]);
        }
      }
      if (moved && box.kind_of[space] == K_SLIDE) offer(slide);
      if (!any) throw std::runtime_error("max() arg is an empty sequence");
      best_memo[key] = value;
      return value;
    }

    double move_value(int start, int steps, bool entered) {
      const double slide = slide_value();
      return best(start, steps, entered, slide);
    }

    // ---- phases ----

    int wish() {
      std::vector<int> order(static_cast<size_t>(box.num_characters()));
      for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return bb.character_rank[a] < bb.character_rank[b];
      });
      for (int i : order)
        if (legal(L.wish + i)) return L.wish + i;
      return legal_list.front();
    }

    int corner() {
      const int sides = box.first_turn_die;
      int best_index = 0;
      double best_score = 0.0;
      for (size_t c = 0; c < box.corners.size(); ++c) {
        double score = 0.0;
        for (int r = 1; r <= sides; ++r) score += move_value(box.corners[c], r, false);
        if (c == 0 || score > best_score) {
          best_score = score;
          best_index = static_cast<int>(c);
        }
      }
      return L.corner + best_index;
    }

    int pre_roll() {
      for (int gym = 0; gym < box.num_gyms(); ++gym) {
        if (g.powers[me][gym] <= 0) continue;
        const int kind = box.gyms[gym].kind;
        if (legal(L.use + gym) && (kind == P_TRANSFORM || kind == P_TROPHIES)) return L.use + gym;
      }
      for (int k : held_medal_cards(me))
        if (legal(L.add + k) && box.medal_cards[k].extra_die == 1) return L.add + k;
      return L.roll;
    }

    int move_spend() {
      const int here = g.positions[me], roll = g.steps_left;
      for (int gym = 0; gym < box.num_gyms(); ++gym)
        if (g.powers[me][gym] > 0 && legal(L.use + gym) && box.gyms[gym].kind == P_TROPHIES)
          return L.use + gym;
      int best_k = 0;
      double best_value = move_value(here, roll, false);
      for (int k = 1; k <= g.trophies[me]; ++k) {
        const double value = move_value(here, roll + k * tv, false) - kTrophyCost * k;
        if (value > best_value + 0.05) {
          best_value = value;
          best_k = k;
        }
      }
      return L.spend + best_k;
    }

    int move() {
      const int here = g.positions[me], left = g.steps_left;
      std::vector<std::pair<double, int>> options;
      for (int nxt : box.next_of[here]) {
        const int a = L.to + nxt;
        if (legal(a)) {
          const double gain = gym_with_trophies(nxt) ? kGymPassValue : 0.0;
          options.emplace_back(move_value(nxt, left - 1, true) + gain, a);
        }
      }
      if (legal(L.stop)) options.emplace_back(stop_value(here), L.stop);
      if (legal(L.slide)) options.emplace_back(slide_value(), L.slide);
      if (legal(L.stay)) options.emplace_back(landing_value(here), L.stay);
      if (options.empty()) throw std::runtime_error("max() arg is an empty sequence");
      const int choice = std::max_element(options.begin(), options.end())->second;
      if (choice == L.slide) {
        for (int gym = 0; gym < box.num_gyms(); ++gym)
          if (legal(L.use + gym)) return L.use + gym;
        const int count = slides_this_turn() + 1;
        bot.slide_turn_known = true;
        bot.slide_round = g.rounds;
        bot.slide_seat = g.over ? -1 : g.turn_seat;
        bot.slide_count = count;
      }
      return choice;
    }

    int action() {
      double best_value = -1e9;
      int best_action = legal_list.front();
      for (const Option& o : action_options(g.positions[me])) {
        int a;
        switch (o.kind) {
          case 0: a = L.end; break;
          case 1: a = L.train; break;
          case 3: a = L.challenge_medal; break;
          case 2: a = L.challenge + o.card; break;
          default: a = L.challenge_player + (relative(o.other) - 1) * box.num_cards() + o.card;
        }
        if (legal(a) && o.value > best_value) {
          best_value = o.value;
          best_action = a;
        }
      }
      return best_action;
    }

    template <class ChanceFn>
    int spend_or_power(const ChanceFn& chance, double value) {
      const int trophies = g.trophies[me];
      const auto [base, k] = best_spend(chance, value, trophies);
      double best_gain = base;
      int best_action = L.spend + k;
      for (int gym = 0; gym < box.num_gyms(); ++gym) {
        if (g.powers[me][gym] <= 0) continue;
        const int a = L.use + gym;
        if (!legal(a)) continue;
        const GymInfo& power = box.gyms[gym];
        if (power.kind == P_TRANSFORM || power.kind == P_TROPHIES) return a;
        if (power.kind == P_BONUS) {
          const int amount = power.amount;
          auto boosted = [&](int e) { return chance(e + amount); };
          const double gain = best_spend(boosted, value, trophies).first;
          if (gain - 0.2 > best_gain) {
            best_gain = gain - 0.2;
            best_action = a;
          }
        }
      }
      for (int m : held_medal_cards(me))
        if (legal(L.add + m) && base < 0.8 * value) return L.add + m;
      for (int gym = 0; gym < box.num_gyms(); ++gym) {
        if (g.powers[me][gym] <= 0) continue;
        const int kind = box.gyms[gym].kind;
        if (legal(L.use + gym) && (kind == P_GOLD_READING || kind == P_EXTRA_DIE) &&
            base < 0.7 * value)
          return L.use + gym;
      }
      return best_action;
    }

    int challenge_spend() {
      const int kind = g.ch_kind;
      if (kind == CH_MANEUVER || kind == CH_WORLD) {
        const Chance c = challenge_chance(kind, g.ch_item, -1);
        return spend_or_power(c, prize(kind == CH_WORLD, false));
      }
      if (kind == CH_MEDAL) return spend_or_power(challenge_chance(CH_MEDAL, -1, -1), kMedalCardValue);
      const Chance c = challenge_chance(-1, g.ch_item, g.ch_defender);
      return spend_or_power(c, prize(box.cards[g.ch_item].is_world, false) + 0.3);
    }

    int defend_spend() {
      const int challenger = g.turn_seat, item = g.ch_item;
      const bool world = box.cards[item].is_world;
      double value = world ? kWorldValue + 1.0 : kManeuverValue;
      if (world) {
        int defended = 0;
        for (int w : g.worlds_of[me]) defended += defended_by(w, me);
        if (defended + 1 >= box.win_defended) value = 100.0;
      }
      const Dist theirs = roll_distribution(roller(challenger));
      int their_mod = g.ch_spent[0] * tv + bonus(challenger, B_ATTACK);
      their_mod += card_bonus(challenger, item) + g.roll_bonus[challenger];
      their_mod += g.bonus_trophies[challenger] * tv;
      const Dist mine = roll_distribution(roller(me));
      int my_mod = bonus(me, B_DEFENCE) + card_bonus(me, item) + g.roll_bonus[me];
      my_mod += g.bonus_trophies[me] * tv;
      auto keep = [&](int extra) { return 1.0 - beats(theirs, mine, my_mod + extra - their_mod); };
      return spend_or_power(keep, value);
    }

    // ---- table picks ----

    std::tuple<int, int, int> leader_key(int s) const {
      return {static_cast<int>(g.worlds_of[s].size()), static_cast<int>(g.maneuvers_of[s].size()),
              g.trophies[s]};
    }
    std::vector<int> others() const {
      std::vector<int> out;
      for (int s = 0; s < n; ++s)
        if (s != me) out.push_back(s);
      return out;
    }
    std::vector<int> legal_in(int offset, int size) const {  // sorted(legal) in a segment
      std::vector<int> out;
      for (int a : legal_list)
        if (a >= offset && a < offset + size) out.push_back(a - offset);
      return out;
    }

    int pick() {
      const int task = g.task;
      if (task == T_SLIDE_LOSE_MANEUVER || task == T_ASTEROID_DISCARD) {
        int easiest = -1;
        for (int m : sorted_of(g.maneuvers_of[me]))
          if (easiest < 0 || card_challenge(m) < card_challenge(easiest)) easiest = m;
        if (easiest < 0) throw std::runtime_error("min() arg is an empty sequence");
        return L.pick + easiest;
      }
      if (task == T_SLIDE_LOSE_WORLD) {
        const std::vector<int> worlds = sorted_of(g.worlds_of[me]);
        for (int w : worlds)
          if (!defended_by(w, me)) return L.pick + w;
        if (worlds.empty()) throw std::out_of_range("list index out of range");
        return L.pick + worlds.front();
      }
      if (task == T_SLIDE_RETURN) {
        // every legal action, as bots.py reads them (sorted), less the place offset
        int best_space = 0, best_distance = 0;
        bool any = false;
        for (int a : legal_list) {
          const int s = a - L.place;
          const int d = distance_from_others(s);
          if (!any || d > best_distance) {
            best_distance = d;
            best_space = s;
          }
          any = true;
        }
        return L.place + best_space;
      }
      if (task == T_SLIDE_TAKE_TROPHY || task == T_DARK_MATTER_OTHER ||
          task == T_WORMHOLE_PLAYER || task == T_NOVA_TURN_BACK) {
        int target = -1;
        for (int a : others()) {
          if (!legal(L.player + relative(a) - 1)) continue;
          if (target < 0) {
            target = a;
          } else if (task == T_SLIDE_TAKE_TROPHY ? g.trophies[a] > g.trophies[target]
                                                 : leader_key(a) > leader_key(target)) {
            target = a;
          }
        }
        if (target < 0) return L.end;
        return L.player + relative(target) - 1;
      }
      if (task == T_SLIDE_TAKE_WORLD) {
        bool any = false;
        std::tuple<int, int, int> best_key;
        bool best_defended = false;
        int best_world = -1;
        for (int a : others()) {
          for (int w : sorted_of(g.worlds_of[a])) {
            const auto key = leader_key(a);
            const bool defended = defended_by(w, a);
            bool better = !any;
            if (any) {
              if (key != best_key) {
                better = key > best_key;
              } else if (defended != best_defended) {
                better = defended;
              } else {
                better = bb.card_names[w] > bb.card_names[best_world];
              }
            }
            if (better) {
              best_key = key;
              best_defended = defended;
              best_world = w;
            }
            any = true;
          }
        }
        if (!any) throw std::runtime_error("max() arg is an empty sequence");
        return L.pick + best_world;
      }
      if (task == T_BLACK_HOLE_WORLD || task == T_ZOOMINIUM_WORLD ||
          task == T_DARK_MATTER_MANEUVER || task == T_SPACE_TIME_MANEUVER ||
          task == T_ZOOMINIUM_MANEUVER) {
        int hardest = -1;
        for (int c = 0; c < box.num_cards(); ++c)
          if (legal(L.pick + c) && (hardest < 0 || card_challenge(c) > card_challenge(hardest)))
            hardest = c;
        if (hardest < 0) throw std::runtime_error("max() arg is an empty sequence");
        return L.pick + hardest;
      }
      if (task == T_WORMHOLE_PLACE) {
        int best_space = 0;
        double best_prospect = 0.0;
        bool any = false;
        for (int a : legal_list) {
          const int s = a - L.place;
          const double p = space_prospect(s);
          if (!any || p < best_prospect) {
            best_prospect = p;
            best_space = s;
          }
          any = true;
        }
        return L.place + best_space;
      }
      if (task == T_STAR_CLUSTER_BECOME || task == T_NOVA_BECOME) {
        int chosen = -1;
        std::pair<int, int> chosen_key;
        for (int c = 0; c < box.num_characters(); ++c) {
          if (!legal(L.become + c)) continue;
          const auto key = character_key(c);
          if (chosen < 0 || key < chosen_key) {
            chosen = c;
            chosen_key = key;
          }
        }
        if (chosen < 0) throw std::runtime_error("min() arg is an empty sequence");
        return L.become + chosen;
      }
      if (task == T_SPACE_TIME_TARGET) {
        int target = -1;
        for (int a : others())
          if (legal(L.player + relative(a) - 1) && (target < 0 || leader_key(a) > leader_key(target)))
            target = a;
        if (target < 0) throw std::runtime_error("max() arg is an empty sequence");
        return L.player + relative(target) - 1;
      }
      const std::vector<int> spaces = legal_in(L.to, box.num_spaces());
      if (spaces.empty()) throw std::runtime_error("max() arg is an empty sequence");
      int chosen = spaces.front();
      if (task == T_SLIDE_GYM || task == T_NOVA_GYM) {
        auto key = [&](int s) { return std::make_pair(gym_power_cards(s), gym_trophies(s)); };
        for (int s : spaces)
          if (key(s) > key(chosen)) chosen = s;
        return L.to + chosen;
      }
      if (task == T_SLIDE_NEW_TURN) {
        double best_p = space_prospect(chosen);
        for (int s : spaces) {
          const double p = space_prospect(s);
          if (p > best_p) {
            best_p = p;
            chosen = s;
          }
        }
        return L.to + chosen;
      }
      double best_v = landing_value(chosen);
      for (int s : spaces) {
        const double v = landing_value(s);
        if (v > best_v) {
          best_v = v;
          chosen = s;
        }
      }
      return L.to + chosen;
    }

    double space_prospect(int space) {  // _space_prospect: a d6 roll's mean
      double total = 0.0;
      for (int r = 1; r <= 6; ++r) total += move_value(space, r, false);
      return total / 6;
    }

    int distance_from_others(int space) const {
      const auto at = bb.space_at[space];
      int best = 0;
      bool any = false;
      const int spaces = box.num_spaces();
      for (int s = 0; s < n; ++s) {
        if (s == me) continue;
        int pos = g.positions[s];
        if (pos < 0) pos += spaces;  // Python's index -1: the last space
        const auto spot = bb.space_at[pos];
        const int d = std::abs(at.first - spot.first) + std::abs(at.second - spot.second);
        if (!any || d < best) best = d;
        any = true;
      }
      return best;
    }

    std::pair<int, int> character_key(int c) const {  // _best_character's key
      static const int order[] = {2, 0, 6, 1, 3, 4, 5};  // per BonusKind
      const CharacterInfo& info = box.characters[c];
      const int form = info.invazorz ? INVAZORZ : BERZERKERBIRDZ;
      return {order[info.bonus_kind[form]], -info.bonus_amount[form]};
    }
  };
};

}  // namespace arena
