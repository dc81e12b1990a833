// The heuristic bot of envs/astrobirdz/bots.py, compiled.
//
// Each function reads as its namesake in bots.py (win_chance, _no_hit,
// beating_masks, _lead_win_chance, _guess, _play, ...), with the same
// floating-point operations in the same order and the same tie-breaks (the
// first of equal keys, as Python's min and max keep it), so from the same seed
// it makes the same choice at every decision. It reads the engine's state
// where bots.py reads the seat's view: only what that view shows (its own
// hand, Nitro's peeked cards, guesses, tricks held, scores).
#pragma once

#include <cmath>
#include <vector>

#include "astrobirdz_engine.hpp"

namespace astrobirdz {

constexpr double kLowTrumpWin = 0.25;
constexpr int kSurfetteTradeBelow = 4;

inline bool is_trumpish(int card, int trump, const Effect& e) {
  return colour_of(card) == trump || (e.protected_numbers >> number_of(card) & 1);
}

inline double win_chance(int card, int trump, const Effect& e, int players) {
  const double value = card_value(card, e);
  const double crowd = 4.0 / std::max(2, players);
  const int key = static_cast<int>(std::min(value, 9.0));
  if (is_trumpish(card, trump, e)) {
    double chance;
    switch (key) {
      case 9: chance = 0.95; break;
      case 8: chance = 0.85; break;
      case 7: chance = 0.7; break;
      case 6: chance = 0.55; break;
      case 5: chance = 0.45; break;
      case 4: chance = 0.35; break;
      default: chance = value >= 1 ? kLowTrumpWin : 0.1;
    }
    return std::min(0.98, chance * (0.85 + 0.15 * crowd));
  }
  double chance;
  switch (key) {
    case 9: chance = 0.55; break;
    case 8: chance = 0.3; break;
    case 7: chance = 0.12; break;
    default: chance = 0.03;
  }
  return std::min(0.9, chance * crowd);
}

inline double no_hit(int pool, int hits, int drawn) {
  double chance = 1.0;
  for (int i = 0; i < drawn; ++i) {
    if (pool - i <= 0) break;
    chance *= std::max(0.0, static_cast<double>(pool - hits - i) / (pool - i));
  }
  return chance;
}

inline std::array<Mask, kNumCards> beating_masks(int trump, const Effect& e) {
  std::array<Mask, kNumCards> masks{};
  for (int card = 0; card < kNumCards; ++card) {
    const int led = colour_of(card);
    for (int u = 0; u < kNumCards; ++u) {
      // trick_trump of the two-card trick [card, u]
      const int changes = e.trump_change_numbers;
      const bool changed =
          changes && ((changes >> number_of(card) & 1) || (changes >> number_of(u) & 1));
      const int this_trump = changed ? e.trump_change_to : trump;
      if (card_rank(u, led, this_trump, e) > card_rank(card, led, this_trump, e))
        masks[card] |= bit(u);
    }
  }
  return masks;
}

inline bool beats_it(int card, Mask hand, Mask beating) {
  const Mask follow = hand & colour_mask(colour_of(card));
  return ((follow ? follow : hand) & beating) != 0;
}

inline double lead_win_chance(int card, Mask unknown, Mask beating, int opponents, int per_hand,
                              const std::vector<Mask>& known) {
  for (Mask hand : known)
    if (beats_it(card, hand, beating)) return 0.0;
  opponents -= static_cast<int>(known.size());
  const Mask colour = colour_mask(colour_of(card));
  const int same = popcount(unknown & colour);
  const Mask beaters = unknown & beating;
  const int beat_same = popcount(beaters & colour);
  const int beat_other = popcount(beaters) - beat_same;
  const int pool = popcount(unknown);
  const double follows_and_beats = 1.0 - no_hit(pool, beat_same, per_hand);
  const double void_chance = no_hit(pool, same, per_hand);
  const double trumps_in = 1.0 - no_hit(pool - same, beat_other, per_hand);
  const double beaten = std::min(1.0, follows_and_beats + void_chance * trumps_in);
  return std::pow(1.0 - beaten, static_cast<double>(opponents));
}

inline double strength(int card, int trump, const Effect& e) {
  return card_value(card, e) + (is_trumpish(card, trump, e) ? 20.0 : 0.0);
}

// The first card of the least (or greatest) strength, as Python's min / max.
inline int weakest(const std::vector<int>& cards, int trump, const Effect& e) {
  int best = cards[0];
  for (int c : cards)
    if (strength(c, trump, e) < strength(best, trump, e)) best = c;
  return best;
}
inline int strongest(const std::vector<int>& cards, int trump, const Effect& e) {
  int best = cards[0];
  for (int c : cards)
    if (strength(c, trump, e) > strength(best, trump, e)) best = c;
  return best;
}

struct HeuristicBot {
  flockgym::NumpyRng rng;

  // AstrobirdzHeuristicBot.act for the engine's player to act.
  int act(const Game& g) {
    const auto legal = g.legal_actions();
    if (legal.empty()) throw std::invalid_argument("the game is over: no decision to make");
    const int choice = decide(g, legal);
    if (choice < 0 || std::find(legal.begin(), legal.end(), choice) == legal.end()) {
      auto sorted = legal;  // bots.py: rng.choice(sorted(legal))
      std::sort(sorted.begin(), sorted.end());
      return sorted[static_cast<size_t>(rng.integers(0, static_cast<int64_t>(sorted.size())))];
    }
    return choice;
  }

  static bool has(const std::vector<int>& legal, int action) {
    return std::find(legal.begin(), legal.end(), action) != legal.end();
  }

  int decide(const Game& g, const std::vector<int>& legal) {
    const Config& c = *g.config;
    const int seat = g.actor, n = g.n();
    const auto hand = bits(g.hands[seat]);
    const Effect& e = g.effect();
    const int trump = g.trump;
    switch (g.phase) {
      case PLAY: return play(g, hand, trump, e, n, legal);
      case GUESS: return kGuessOffset + guess(g, hand, trump, e, n);
      case CHOOSE_TRUMP: return kTrumpOffset + best_colour(hand, e);
      case DISCARD:
      case PASS_LEFT:
      case PASS_RIGHT:
      case SURFETTE_CARDS: return choose_card(g, hand, trump, e, legal);
      case NITRO_PEEK: return peek_target(g, seat);
      case SURFETTE_PARTNER:
        if (weak_cards(hand, trump, e).empty()) return c.decline();
        return g.player_action(seat, (seat + 1) % n);
      case ASTROBOARD: return astroboard(g, seat, legal, trump, e);
      case ASTROBOARD_TRICK: return astroboard_trick(g, seat, legal, trump, e);
      default: return -1;
    }
  }

  int guess(const Game& g, const std::vector<int>& hand, int trump, const Effect& e, int n) {
    const int seat = g.actor;
    Mask peeked = 0;
    if (g.peeked >= 0 && g.birds[seat] == NITRO) peeked = g.known[seat][g.peeked];
    const Mask seen = mask_of(hand) | peeked | bit(g.trump_card);
    const Mask unknown = ((Mask{1} << kNumCards) - 1) & ~seen;
    std::vector<Mask> known;
    if (peeked) known.push_back(peeked);
    if (trump < 0) return 0;
    const auto beating = beating_masks(trump, e);
    const int per_hand = static_cast<int>(hand.size());
    double expected = 0.0;
    for (int card : hand)
      expected += lead_win_chance(card, unknown, beating[card], n - 1, per_hand, known);
    const int rounded = static_cast<int>(std::nearbyint(expected));  // Python's round: half to even
    return std::max(0, std::min(static_cast<int>(hand.size()), rounded));
  }

  int peek_target(const Game& g, int seat) {
    for (int s : g.guess_order)
      if (s != seat && g.guesses[s] < 0) return g.player_action(seat, s);
    return g.player_action(seat, (seat + 1) % g.n());
  }

  int best_colour(const std::vector<int>& hand, const Effect& e) {
    std::array<double, kNumColours> totals{};
    for (int card : hand) totals[colour_of(card)] += 1.0 + card_value(card, e) / 10.0;
    int best = 0;
    for (int k = 1; k < kNumColours; ++k)
      if (totals[k] > totals[best]) best = k;
    return best;
  }

  std::vector<int> weak_cards(const std::vector<int>& hand, int trump, const Effect& e) {
    std::vector<int> out;
    for (int c : hand)
      if (!is_trumpish(c, trump, e) && card_value(c, e) < kSurfetteTradeBelow) out.push_back(c);
    return out;
  }

  int choose_card(const Game& g, const std::vector<int>& hand, int trump, const Effect& e,
                  const std::vector<int>& legal) {
    const Config& c = *g.config;
    std::vector<int> candidates;
    for (int card : hand)
      if (has(legal, c.choose_offset() + card)) candidates.push_back(card);
    if (g.phase == SURFETTE_CARDS && !g.chosen[g.actor].empty()) {
      std::vector<int> weak;
      for (int card : weak_cards(hand, trump, e))
        if (std::find(candidates.begin(), candidates.end(), card) != candidates.end())
          weak.push_back(card);
      if (weak.empty()) return c.decline();
      candidates = weak;
    }
    if (candidates.empty()) return -1;
    return c.choose_offset() + weakest(candidates, trump, e);
  }

  static int trick_points(const Game& g, size_t k, int trump, const Effect& e) {
    return card_points(g.finished[k], trump, e);
  }

  int astroboard(const Game& g, int seat, const std::vector<int>& legal, int trump,
                 const Effect& e) {
    const int n = g.n();
    std::vector<int> partners;
    for (int s = 0; s < n; ++s)
      if (s != seat && has(legal, g.player_action(seat, s))) partners.push_back(s);
    if (partners.empty()) return g.config->decline();
    const bool taking = std::max(0, g.guesses[seat]) > g.tricks_won(seat);
    auto worth = [&](int partner) {
      int best = 0;
      if (taking)
        for (size_t k = 0; k < g.holders.size(); ++k)
          if (g.holders[k] == partner) best = std::max(best, trick_points(g, k, trump, e));
      return std::make_pair(best, -g.scores[partner]);
    };
    int chosen = partners[0];
    auto chosen_worth = worth(chosen);
    for (int p : partners) {
      const auto w = worth(p);
      if (w > chosen_worth) {
        chosen = p;
        chosen_worth = w;
      }
    }
    return g.player_action(seat, chosen);
  }

  int astroboard_trick(const Game& g, int seat, const std::vector<int>& legal, int trump,
                       const Effect& e) {
    std::vector<int> choices;
    for (size_t k = 0; k < g.holders.size(); ++k)
      if (has(legal, g.config->trick_offset() + static_cast<int>(k)))
        choices.push_back(static_cast<int>(k));
    if (choices.empty()) return -1;
    const int sign = g.holders[choices[0]] == seat ? -1 : 1;
    int best = choices[0];
    auto key = [&](int k) { return std::make_pair(sign * trick_points(g, k, trump, e), -k); };
    for (int k : choices)
      if (key(k) > key(best)) best = k;
    return g.config->trick_offset() + best;
  }

  static std::vector<int> winners(const std::vector<int>& trick, const std::vector<int>& playable,
                                  int trump, const Effect& e) {
    std::vector<int> out;
    if (e.trump_change_numbers) {
      std::vector<int> with = trick;
      for (int c : playable) {
        with.push_back(c);
        if (trick_winner(with, trump, e) == static_cast<int>(trick.size())) out.push_back(c);
        with.pop_back();
      }
      return out;
    }
    const int led = colour_of(trick[0]);
    Rank best = card_rank(trick[0], led, trump, e);
    for (int c : trick) {
      const Rank r = card_rank(c, led, trump, e);
      if (r > best) best = r;
    }
    for (int c : playable)
      if (card_rank(c, led, trump, e) > best) out.push_back(c);
    return out;
  }

  int play(const Game& g, const std::vector<int>& hand, int trump, const Effect& e, int n,
           const std::vector<int>& legal) {
    const int seat = g.actor;
    std::vector<int> playable;
    for (int c : hand)
      if (has(legal, c)) playable.push_back(c);
    const int need = std::max(0, g.guesses[seat]) - g.tricks_won(seat);
    const auto& trick = g.trick;
    if (trick.empty())
      return need > 0 ? strongest(playable, trump, e) : weakest(playable, trump, e);
    const bool last = static_cast<int>(trick.size()) == n - 1;
    const auto win = winners(trick, playable, trump, e);
    if (need > 0) {
      if (!win.empty()) {
        const int cheapest = weakest(win, trump, e);
        const bool strong = win_chance(cheapest, trump, e, n) >= 0.5;
        if (last || strong) return cheapest;
        return strongest(win, trump, e);
      }
      return weakest(playable, trump, e);
    }
    std::vector<int> losers;
    for (int c : playable)
      if (std::find(win.begin(), win.end(), c) == win.end()) losers.push_back(c);
    if (!losers.empty()) return strongest(losers, trump, e);
    return last ? strongest(playable, trump, e) : weakest(playable, trump, e);
  }
};

}  // namespace astrobirdz
