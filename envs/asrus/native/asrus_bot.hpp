// The Asrus heuristic bot (envs/asrus/bots.py) in C++17, choice for choice:
// it reads from the engine only what the Python bot reads from its seat's
// view (its hand and specials, the destination, the cards revealed this round,
// the deck, how many specials each player holds) and the legal actions, and
// computes every probability with the same floating-point operations in the
// same order (dicts walked in their insertion order, numpy's pairwise sum), so
// that its weighted draw (numpy's Generator.choice with p) picks the same card.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "asrus_engine.hpp"
#include "numpy_rng.hpp"

namespace asrus {

constexpr double kClosenessDecay = 0.55;        // CLOSENESS_DECAY
constexpr double kMajorityCrowdThreshold = 0.9;  // MAJORITY_CROWD_THRESHOLD
constexpr double kBlackholeMaxWinChance = 0.08;  // BLACKHOLE_MAX_WIN_CHANCE

// numpy's pairwise summation of float64 (what ndarray.sum() does), for the
// lengths a hand can have.
inline double numpy_sum(const std::vector<double>& a) {
  const size_t n = a.size();
  if (n < 8) {
    double res = -0.0;
    for (double x : a) res += x;
    return res;
  }
  double r[8];
  for (size_t j = 0; j < 8; ++j) r[j] = a[j];
  size_t i = 8;
  for (; i < n - (n % 8); i += 8)
    for (size_t j = 0; j < 8; ++j) r[j] += a[i + j];
  double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  for (; i < n; ++i) res += a[i];
  return res;
}

// Candidate: one way to play this turn (slot as in actions.SLOTS).
struct Candidate {
  int number;
  int slot;
  double win_chance;
  double gain;
  double loss_avoided;
  double value() const { return win_chance * (gain + loss_avoided); }
  int power() const { return power_of_slot(slot); }
  int action() const { return (number - 1) * kNumSlots + slot; }
};

// WinModel: the distance probabilities as a dict walked in insertion order.
struct WinModel {
  std::vector<int> order;           // distances, in the dict's insertion order
  std::array<double, 16> probs{};   // by distance
  std::array<bool, 16> known{};     // distance in probs
  std::array<double, 16> nobody_alone{};
  int opponents = 0;
  double retro = 0.0;

  double prob(double distance) const {
    const double whole = std::floor(distance);
    if (whole != distance || distance < 0 || distance > 15) return 0.0;
    const int d = static_cast<int>(whole);
    return known[static_cast<size_t>(d)] ? probs[static_cast<size_t>(d)] : 0.0;
  }

  double chance(double distance, bool farthest) const {
    if (distance <= 0) return 0.0;
    double value = std::pow(1.0 - prob(distance), static_cast<double>(opponents));
    for (int other : order) {
      const double o = static_cast<double>(other);
      if (farthest ? o > distance : (0 < o && o < distance))
        value *= nobody_alone[static_cast<size_t>(other)];
    }
    return value;
  }

  double mixed(double distance) const {
    const double closest = chance(distance, false);
    if (retro <= 0) return closest;
    return (1.0 - retro) * closest + retro * chance(distance, true);
  }
};

struct HeuristicBot {
  flockgym::NumpyRng rng;

  // AsrusHeuristicBot.act for the engine's player to act.
  int act(const Game& g) {
    const int seat = g.current_player();
    if (seat == kNoPlayer) throw std::invalid_argument("the game is over; nobody is to act");
    const std::vector<int> legal = g.legal_actions_for(seat);
    std::vector<Candidate> candidates;
    for (const Candidate& c : evaluate(g, seat))
      if (std::binary_search(legal.begin(), legal.end(), c.action())) candidates.push_back(c);
    if (candidates.empty())
      return legal[static_cast<size_t>(rng.integers(static_cast<int64_t>(legal.size())))];
    std::vector<const Candidate*> plain, specials;
    for (const Candidate& c : candidates) (c.slot == 0 ? plain : specials).push_back(&c);
    const Candidate* best_plain = mixed_choice(plain);
    const Candidate* choice = best_plain;
    if (!specials.empty()) {
      const Candidate* best_special = specials[0];
      for (const Candidate* c : specials)
        if (c->value() > best_special->value()) best_special = c;
      if (best_special->value() > best_plain->value() * 1.15 || specials_expiring(g, seat))
        choice = best_special->value() >= best_plain->value() ? best_special : choice;
      const Candidate* spoiler = blackhole(best_plain, candidates);
      if (spoiler != nullptr && choice == best_plain) choice = spoiler;
    }
    return choice->action();
  }

  // _mixed_choice: a card drawn with probability in proportion to its value.
  const Candidate* mixed_choice(const std::vector<const Candidate*>& plain) {
    const Candidate* best = plain[0];
    for (const Candidate* c : plain)
      if (c->value() > best->value()) best = c;
    if (best->value() <= 0) return best;
    std::vector<double> weights;
    for (const Candidate* c : plain) weights.push_back(std::max(c->value(), 0.0));
    const double total = numpy_sum(weights);
    for (double& w : weights) w /= total;
    return plain[static_cast<size_t>(rng.choice_weighted(weights))];
  }

  static const Candidate* blackhole(const Candidate* best,
                                    const std::vector<Candidate>& candidates) {
    if (best->win_chance > kBlackholeMaxWinChance) return nullptr;
    for (const Candidate& c : candidates)
      if ((c.power() == BLACKHOLE || c.power() == EXPLOSION) && c.number == best->number) return &c;
    return nullptr;
  }

  static int hand_left(const Game& g, int seat) {
    int left = 0;
    for (int number = 1; number <= kNumbers; ++number)
      left += g.hands[static_cast<size_t>(seat)][static_cast<size_t>(number)];
    return left;
  }

  static int specials_count(const Game& g, int seat) {
    int count = 0;
    for (int c : g.specials[static_cast<size_t>(seat)]) count += c;
    return count;
  }

  static bool specials_expiring(const Game& g, int seat) {
    return specials_count(g, seat) >= hand_left(g, seat);
  }

  // unseen_counts: the deck less this seat's hand, the revealed cards and the
  // destination card (when it was not revealed this round).
  static std::array<double, 16> unseen_counts(const Game& g, int seat) {
    std::array<double, 16> counts{};
    const auto& hand = g.hands[static_cast<size_t>(seat)];
    for (int number = 1; number <= kNumbers; ++number) {
      const size_t k = static_cast<size_t>(number);
      counts[k] = static_cast<double>(g.config.number_counts[k]) - hand[k] - g.revealed[k];
    }
    if (g.destination_card && g.revealed[static_cast<size_t>(g.destination)] == 0)
      counts[static_cast<size_t>(g.destination)] -= 1;
    for (double& c : counts) c = std::max(0.0, c);
    return counts;
  }

  // opponent_distance_probabilities, into the model's ordered dict.
  static void distance_probabilities(const std::array<double, 16>& unseen, int destination,
                                     int left, WinModel& model) {
    double pool = 0.0;
    for (double c : unseen) pool += c;
    pool = std::max(1.0, pool);
    std::array<double, 16> weights{};
    for (int number = 1; number <= kNumbers; ++number) {
      const double u = unseen[static_cast<size_t>(number)];
      if (u <= 0) continue;
      const int distance = std::abs(number - destination);
      const double holds =
          1.0 - std::pow(1.0 - u / pool, static_cast<double>(std::max(1, left)));
      const double preference =
          distance == 0 ? 0.05 : std::pow(kClosenessDecay, static_cast<double>(distance));
      const size_t d = static_cast<size_t>(distance);
      if (!model.known[d]) {
        model.known[d] = true;
        model.order.push_back(distance);
        weights[d] = 0.0 + holds * preference;
      } else {
        weights[d] = weights[d] + holds * preference;
      }
    }
    double total = 0.0;
    for (int d : model.order) total += weights[static_cast<size_t>(d)];
    if (total == 0.0) total = 1.0;
    for (int d : model.order) model.probs[static_cast<size_t>(d)] = weights[static_cast<size_t>(d)] / total;
  }

  // number_probabilities: per number, its share of its distance's probability.
  static std::array<double, 16> number_probabilities(const std::array<double, 16>& unseen,
                                                     int destination, const WinModel& model) {
    std::array<double, 16> result{};
    for (int number = 1; number <= kNumbers; ++number) {
      const int distance = std::abs(number - destination);
      const int twin = number > destination ? destination - distance : destination + distance;
      const double share_twin = (1 <= twin && twin <= 15 && twin != number)
                                    ? unseen[static_cast<size_t>(twin)]
                                    : 0.0;
      const double both = unseen[static_cast<size_t>(number)] + share_twin;
      if (both > 0 && model.known[static_cast<size_t>(distance)])
        result[static_cast<size_t>(number)] = model.probs[static_cast<size_t>(distance)] *
                                              unseen[static_cast<size_t>(number)] / both;
    }
    return result;
  }

  // retrograde_chance: some opponent plays Retrograde this turn.
  static double retrograde_chance(const Game& g, int seat) {
    const int left = std::max(1, hand_left(g, seat));
    double none = 1.0;
    for (int s = 0; s < g.n(); ++s) {
      if (s == seat) continue;
      const double share = static_cast<double>(specials_count(g, s)) / static_cast<double>(left);
      none *= 1.0 - std::min(1.0, share) / 5.0;
    }
    return 1.0 - none;
  }

  // candidates: every card in hand, alone and with each special held, valued.
  static std::vector<Candidate> evaluate(const Game& g, int seat) {
    const int destination = g.destination;
    const int opponents = g.n() - 1;
    const int left = hand_left(g, seat);
    const auto unseen = unseen_counts(g, seat);
    WinModel model;
    distance_probabilities(unseen, destination, left, model);
    const auto per_number = number_probabilities(unseen, destination, model);
    model.opponents = opponents;
    model.retro = retrograde_chance(g, seat);
    for (int d : model.order) {
      const double p = model.probs[static_cast<size_t>(d)];
      const double alone = static_cast<double>(opponents) * p *
                           std::pow(1.0 - p, static_cast<double>(std::max(0, opponents - 1)));
      model.nobody_alone[static_cast<size_t>(d)] = 1.0 - std::min(1.0, alone);
    }
    double typical_loss = 0.0;
    bool first = true;
    for (int d : model.order) {
      const double term = static_cast<double>(d) * model.probs[static_cast<size_t>(d)];
      typical_loss = first ? term : typical_loss + term;
      first = false;
    }
    std::vector<int> slots;  // _powers_held: the specials C B D M R held, then the joker's 7
    const auto& held = g.specials[static_cast<size_t>(seat)];
    for (int slot = 1; slot <= 5; ++slot)
      if (held[static_cast<size_t>(slot - 1)] > 0) slots.push_back(slot);
    if (held[kJoker] > 0)
      for (int slot = 6; slot < kNumSlots; ++slot) slots.push_back(slot);
    std::vector<Candidate> result;
    const auto& hand = g.hands[static_cast<size_t>(seat)];
    for (int number = 1; number <= kNumbers; ++number) {
      if (hand[static_cast<size_t>(number)] <= 0) continue;
      const int distance = std::abs(number - destination);
      const int base_gain = distance * opponents * ((number == 1 || number == 15) ? 2 : 1);
      const double plain = model.mixed(distance);
      result.push_back({number, 0, plain, static_cast<double>(base_gain), typical_loss});
      for (int slot : slots) {
        double chance = 0.0, gain = 0.0;
        with_power(power_of_slot(slot), number, distance, base_gain, plain, model, per_number,
                   opponents, chance, gain);
        result.push_back({number, slot, chance, gain, typical_loss});
      }
    }
    return result;
  }

  // _with_power: (win chance, points if won) of ``number`` with ``power``.
  static void with_power(int power, int number, int distance, int base_gain, double plain,
                         const WinModel& model, const std::array<double, 16>& per_number,
                         int opponents, double& chance, double& gain) {
    gain = static_cast<double>(base_gain);
    switch (power) {
      case CLOSE:
        chance = model.mixed(static_cast<double>(distance) - 0.5);
        return;
      case DOUBLE:
        chance = plain;
        gain = static_cast<double>(2 * base_gain);
        return;
      case TRIPLE:
        chance = plain;
        gain = static_cast<double>(3 * base_gain);
        return;
      case RETRO:
        chance = model.chance(static_cast<double>(distance), true);
        return;
      case MAJORITY: {
        const double crowd = per_number[static_cast<size_t>(number)] * opponents;
        if (distance == 0 || crowd < kMajorityCrowdThreshold) {
          chance = 0.0;
          return;
        }
        chance = std::min(0.9, crowd / (1.0 + crowd));
        return;
      }
      default:  // Blackhole and Explosion never win a turn by themselves
        chance = 0.0;
        gain = 0.0;
    }
  }
};

}  // namespace asrus
