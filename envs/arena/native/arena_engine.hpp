// The Arena's rules in C++: the same state machine as envs/arena/rules.py and
// its chapters (setup.py, movement.py, encounters.py, challenges.py, dice.py),
// function for function, so that every decision, roll and state is the same
// (checked by tests/arena/test_arena_compiled.py against the Python engine).
//
// A scenario's setup stays in Python (it runs once a game): a game enters here
// from the Python engine's state dict, and plays on from any decision,
// including the wishes, the deal, the corners and the first player's roll.
// Each function names the Python function it mirrors; read that one for why.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "numpy_rng.hpp"

namespace arena {

// ---- the box (data.py), flattened --------------------------------------------------

enum Form { ASTROBIRDZ = 0, BERZERKERBIRDZ = 1, INVAZORZ = 2 };
enum SpaceKind { K_GYM = 0, K_MANEUVER, K_WORLD, K_PORTAL, K_SLIDE, K_ENTRANCE };
enum BonusKind { B_MANEUVER = 0, B_WORLD, B_MEDAL, B_ATTACK, B_DEFENCE, B_MOVEMENT, B_GYM_TROPHY };
enum PowerKind { P_TRANSFORM = 0, P_BONUS, P_TROPHIES, P_GOLD_READING, P_EXTRA_DIE };
enum RollKind { R_MOVEMENT = 0, R_CHALLENGE, R_DEFENCE, R_NONE };

struct MedalLevel {
  int maneuvers, below, reads;
};

struct CardInfo {
  bool is_world;
  int number, challenge;
  int character;  // the character the card names (-1: none of the box's)
  int bonus_form, bonus_amount;  // bonus_form -1: no bonus
};

struct CharacterInfo {
  bool invazorz;
  std::array<int, 3> bonus_kind, bonus_amount;  // the card in use, per form
};

struct GymInfo {
  int kind, roll, amount;
};

struct MedalCardInfo {
  int trophy;
  int extra_die;  // bit per use: 1 movement, 2 challenge, 4 defence
};

struct Box {
  int trophies, start_trophies, gym_trophies, gym_power_cards;
  std::array<int, 3> medal_supply;
  int challenge_dice, maneuvers_for_worlds, medal_target, trophy_value;
  int dark_matter_turns, dark_matter_value, transform_on, win_worlds, win_defended;
  std::vector<MedalLevel> medal_levels;
  std::array<int, 3> movement_die, challenge_die, slide_die;
  int first_turn_die;
  std::vector<int> kind_of;
  std::vector<std::vector<int>> next_of;
  std::vector<int> corners, maneuver_spaces, world_spaces, inside_spaces;
  int slide_a, slide_b, portal_front, portal_exit_outside, portal_exit_inside;
  std::vector<CardInfo> cards;
  std::vector<CharacterInfo> characters;
  std::vector<GymInfo> gyms;
  std::vector<MedalCardInfo> medal_cards;
  std::vector<int> corner_index;  // per space: its index in corners, or -1

  int num_spaces() const { return static_cast<int>(kind_of.size()); }
  int num_cards() const { return static_cast<int>(cards.size()); }
  int num_characters() const { return static_cast<int>(characters.size()); }
  int num_gyms() const { return static_cast<int>(gyms.size()); }
  int num_medal_cards() const { return static_cast<int>(medal_cards.size()); }
};

// ---- phases, places, names (phases.py) ---------------------------------------------

enum Phase {
  CORNER = 0, PRE_ROLL, MOVE_SPEND, MOVE, ACTION, CHALLENGE_SPEND, DEFEND_SPEND, PICK_CARD,
  PICK_SPACE, PICK_PLAYER, PICK_CHARACTER, GYM_CARD, WISH, OVER
};
constexpr int BOARD = -1, BOX = -2, DISCARD = -3;
constexpr int ON_BOARD = -1, IN_STACK = -2;
constexpr int NO_PLAYER = -1;
constexpr int KEEP_ROLLS = 8;

// CHALLENGE_KINDS of rules.py.
enum ChallengeKind { CH_NONE = 0, CH_MANEUVER, CH_WORLD, CH_MEDAL, CH_HOMEWORLD, CH_FAVOURITE, CH_STANDARD };

// Roll purposes: fixed ones, then one per AstroPortal table, then "character <name>".
enum Purpose {
  PU_MOVEMENT = 0, PU_DEFENCE, PU_CH_MANEUVER, PU_CH_WORLD, PU_CH_MEDAL, PU_CH_HOMEWORLD,
  PU_CH_FAVOURITE, PU_CH_STANDARD, PU_TRANSFORMATION, PU_NEBULA_SLIDE, PU_ASTROPORTAL,
  PU_STAR_CLUSTER_TROPHIES, PU_FIRST_PLAYER, PU_TABLE_BASE /* + table 1..8 */,
  PU_CHARACTER_BASE = PU_TABLE_BASE + 9 /* + character id */,
  PU_OTHER_BASE = 1 << 20 /* + index of a purpose string only a loaded state had */
};

// The tasks of encounters.TASKS, in that order.
enum Task {
  T_NONE = -1, T_SLIDE_LOSE_MANEUVER = 0, T_SLIDE_LOSE_WORLD, T_SLIDE_RETURN, T_SLIDE_TAKE_TROPHY,
  T_SLIDE_TAKE_WORLD, T_SLIDE_NEW_TURN, T_SLIDE_GYM, T_ASTEROID_DISCARD, T_NOVA_TURN_BACK,
  T_NOVA_BECOME, T_NOVA_GYM, T_BLACK_HOLE_INSIDE, T_BLACK_HOLE_WORLD, T_BLACK_HOLE_PLACE,
  T_DARK_MATTER_OTHER, T_DARK_MATTER_MANEUVER, T_WORMHOLE_ANYWHERE, T_WORMHOLE_PLAYER,
  T_WORMHOLE_PLACE, T_WORMHOLE_INSIDE, T_STAR_CLUSTER_BECOME, T_SPACE_TIME_TARGET,
  T_SPACE_TIME_MANEUVER, T_ZOOMINIUM_ANYWHERE, T_ZOOMINIUM_MANEUVER, T_ZOOMINIUM_WORLD,
  NUM_TASKS
};
enum Segment { S_PICK = 0, S_PLACE, S_PLAYER, S_TO, S_BECOME };

struct Config {
  int num_players = 4;
  int max_rounds = 40;
  bool world_printed = false;  // world_challenge == "printed"
  bool dark_medals = false;    // dark_matter == "medals"
  bool nova_become = false;    // nova_invazorz == "become"
  bool fifth_won = false;      // fifth_world == "won"
};

// actions.ActionLayout's offsets.
struct Layout {
  int corner, roll, spend, to, stop, slide, stay, train, challenge, challenge_medal,
      challenge_player, end, pick, place, player, become, use, add, wish, size;
  int n, num_cards;
  Layout() = default;
  Layout(const Box& box, int num_players) : n(num_players), num_cards(box.num_cards()) {
    int at = 0;
    auto take = [&](int& field, int size_) { field = at; at += size_; };
    take(corner, static_cast<int>(box.corners.size()));
    take(roll, 1);
    take(spend, box.trophies + 1);
    take(to, box.num_spaces());
    take(stop, 1);
    take(slide, 1);
    take(stay, 1);
    take(train, 1);
    take(challenge, box.num_cards());
    take(challenge_medal, 1);
    take(challenge_player, (n - 1) * box.num_cards());
    take(end, 1);
    take(pick, box.num_cards());
    take(place, box.num_spaces());
    take(player, n - 1);
    take(become, box.num_characters());
    take(use, box.num_gyms());
    take(add, box.num_medal_cards());
    take(wish, box.num_characters());
    size = at;
  }
  int segment_offset(int segment) const {
    switch (segment) {
      case S_PICK: return pick;
      case S_PLACE: return place;
      case S_PLAYER: return player;
      case S_TO: return to;
      default: return become;
    }
  }
  int relative(int actor, int target) const { return ((target - actor) % n + n) % n; }
  int seat_at(int actor, int k) const { return (actor + k) % n; }
  int challenge_player_id(int actor, int target, int card) const {
    return challenge_player + (relative(actor, target) - 1) * num_cards + card;
  }
  int player_id(int actor, int target) const { return player + relative(actor, target) - 1; }
};

struct Roll {
  int seat, purpose, sides, value;
};

struct ChallengeRecord {
  bool present = false;
  int challenger = 0, kind = 0, item = -1, defender = -1;
  std::vector<int> dice;
  int modifier = 0, need = 0;
  bool standard = false;
  std::vector<int> defender_dice;
  int defender_modifier = 0, defender_total = 0;
  int total = 0;
  bool success = false;
};

// A forced die result the die cannot show (rules.ForcedDiceError).
struct ForcedDiceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A die rolled while the game's dice come from outside (Game::outside_dice)
// with no face left to show: the step stops here (the OpenSpiel bridge's
// chance node; the game is left mid-step, for the caller to discard).
// ``fed`` is true when a face was there but the die has more than
// ``outside_max_sides`` faces.
struct OutsideDieNeeded : std::runtime_error {
  int seat, sides, purpose;
  bool fed;
  OutsideDieNeeded(int seat_, int sides_, int purpose_, bool fed_)
      : std::runtime_error(std::to_string(seat_) + "|" + std::to_string(sides_) + "|" +
                           std::to_string(purpose_) + "|" + (fed_ ? "1" : "0")),
        seat(seat_), sides(sides_), purpose(purpose_), fed(fed_) {}
};

inline bool contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
inline void remove_value(std::vector<int>& v, int x) {
  auto it = std::find(v.begin(), v.end(), x);
  if (it != v.end()) v.erase(it);
}

struct TaskInfo {
  int phase, segment;
  bool optional;
};

inline const std::array<TaskInfo, NUM_TASKS>& task_table() {
  static const std::array<TaskInfo, NUM_TASKS> table = {{
      {PICK_CARD, S_PICK, false},      // slide_lose_maneuver
      {PICK_CARD, S_PICK, false},      // slide_lose_world
      {PICK_SPACE, S_PLACE, false},    // slide_return
      {PICK_PLAYER, S_PLAYER, false},  // slide_take_trophy
      {PICK_CARD, S_PICK, false},      // slide_take_world
      {PICK_SPACE, S_TO, false},       // slide_new_turn
      {PICK_SPACE, S_TO, false},       // slide_gym
      {PICK_CARD, S_PICK, false},      // asteroid_discard
      {PICK_PLAYER, S_PLAYER, true},   // nova_turn_back
      {PICK_CHARACTER, S_BECOME, false},  // nova_become
      {PICK_SPACE, S_TO, false},       // nova_gym
      {PICK_SPACE, S_TO, false},       // black_hole_inside
      {PICK_CARD, S_PICK, false},      // black_hole_world
      {PICK_SPACE, S_TO, false},       // black_hole_place
      {PICK_PLAYER, S_PLAYER, false},  // dark_matter_other
      {PICK_CARD, S_PICK, false},      // dark_matter_maneuver
      {PICK_SPACE, S_TO, false},       // wormhole_anywhere
      {PICK_PLAYER, S_PLAYER, false},  // wormhole_player
      {PICK_SPACE, S_PLACE, false},    // wormhole_place
      {PICK_SPACE, S_TO, false},       // wormhole_inside
      {PICK_CHARACTER, S_BECOME, false},  // star_cluster_become
      {PICK_PLAYER, S_PLAYER, false},  // space_time_target
      {PICK_CARD, S_PICK, false},      // space_time_maneuver
      {PICK_SPACE, S_TO, false},       // zoominium_anywhere
      {PICK_CARD, S_PICK, false},      // zoominium_maneuver
      {PICK_CARD, S_PICK, false},      // zoominium_world
  }};
  return table;
}

// ---- the game ------------------------------------------------------------------------

class Game {
 public:
  std::shared_ptr<const Box> box_ptr;
  Config config;
  Layout layout;
  flockgym::NumpyRng rng;

  std::vector<int> characters, forms, positions, trophies, bonus_trophies;
  std::vector<std::array<int, 3>> medals;
  std::vector<std::vector<int>> powers;
  std::vector<int> lost_turns;
  std::vector<char> upside_down;
  std::vector<int> dark;
  std::vector<char> first_turn;
  std::vector<int> wishes, worlds_won, start_corner;
  int supply = 0;
  std::array<int, 3> medal_supply{};
  std::vector<int> gym_at, gym_trophies, gym_cards, space_item, card_holder, card_space, defended;
  std::vector<int> medal_stack, medal_holder, medal_space;
  int preset_first = -1, first_player = 0, turn_seat = 0, rounds = 0;
  int phase = CORNER, actor = 0, task = T_NONE;
  std::vector<int> task_args;
  int steps_left = 0;
  bool entered = false, stopped = false;
  int forced_target = -1, move_total = 0, new_turns = 0;
  std::vector<int> roll_bonus;
  std::vector<char> roll_gold;
  std::vector<int> roll_extra;
  std::vector<std::vector<int>> roll_cards;
  int ch_kind = CH_NONE, ch_item = -1, ch_defender = -1;
  std::array<int, 2> ch_spent{0, 0};
  ChallengeRecord last_challenge;
  std::vector<int> last_encounter;
  std::vector<Roll> roll_log;
  int64_t log_start = 0;
  std::vector<int64_t> seen;
  std::vector<int> forced;
  size_t forced_next = 0;  // forced[forced_next:] are still to come
  // Dice from outside (the OpenSpiel bridge's chance nodes, set around one
  // step, never saved): each die shows the next of ``outside`` through the
  // forced queue, as rules.py's roll_die does under the bridge, or stops the
  // step (OutsideDieNeeded) when none is left.
  bool dice_from_outside = false;
  std::vector<int> outside;
  size_t outside_next = 0;
  int outside_max_sides = 0;
  int64_t rolls_made = 0;
  bool over = false;
  std::string win_reason;
  std::vector<int> winners;
  std::vector<std::vector<int>> maneuvers_of, worlds_of;

  Game(std::shared_ptr<const Box> box, const Config& cfg)
      : box_ptr(std::move(box)), config(cfg), layout(*box_ptr, cfg.num_players) {}

  const Box& box() const { return *box_ptr; }
  int n() const { return config.num_players; }

  // ---- the GameEngine interface (rules.ArenaGame) ----

  int current_player() const { return over ? NO_PLAYER : actor; }

  const std::vector<int>& legal_actions() {
    if (!legal_valid_) {
      legal_.clear();
      if (!over) {
        options(legal_);
        std::sort(legal_.begin(), legal_.end());
      }
      legal_valid_ = true;
    }
    return legal_;
  }

  bool is_legal(int action) {
    const auto& legal = legal_actions();
    return std::binary_search(legal.begin(), legal.end(), action);
  }

  // apply_action: the caller has checked the action is legal.
  void apply_action(int action) {
    if (forced_next < forced.size()) {
      Game saved = *this;  // a forced die may turn out impossible mid-step
      try {
        step(action);
      } catch (const ForcedDiceError&) {
        *this = saved;
        throw;
      }
    } else {
      step(action);
    }
  }

  // Game::new's last part (the scenario's setup is the Python engine's).
  void settle() {
    while (!over) {
      const auto& legal = legal_actions();
      if (legal.size() != 1) {
        if (legal.empty()) throw std::runtime_error("Arena engine left a player no legal action");
        return;
      }
      apply(legal[0]);
    }
    legal_valid_ = false;
  }

  std::vector<double> scores() const {
    std::vector<double> out;
    for (const auto& w : worlds_of) out.push_back(static_cast<double>(w.size()));
    return out;
  }

  // A random legal game from here (the benchmark's and the search's rollouts):
  // uniform picks from ``picker``, a generator of its own. Returns the decisions made.
  int64_t play_random(flockgym::NumpyRng& picker, int64_t max_steps) {
    int64_t steps = 0;
    while (!over && steps < max_steps) {
      const auto& legal = legal_actions();
      const int pick = legal[static_cast<size_t>(picker.integers(0, static_cast<int64_t>(legal.size())))];
      apply_action(pick);
      ++steps;
    }
    return steps;
  }

  void forget_legal() { legal_valid_ = false; }

  // Rebuild what the state dict leaves out (state.validate_state): the cards
  // each seat holds, from card_holder, and what lies on each space, from
  // card_space and medal_space.
  void rebuild_holdings() {
    space_item.assign(static_cast<size_t>(box().num_spaces()), -1);
    for (int card = 0; card < box().num_cards(); ++card)
      if (card_holder[static_cast<size_t>(card)] == BOARD)
        space_item[static_cast<size_t>(card_space[static_cast<size_t>(card)])] = card;
    for (int k = 0; k < box().num_medal_cards(); ++k)
      if (medal_holder[static_cast<size_t>(k)] == ON_BOARD)
        space_item[static_cast<size_t>(medal_space[static_cast<size_t>(k)])] = box().num_cards() + k;
    maneuvers_of.assign(static_cast<size_t>(n()), {});
    worlds_of.assign(static_cast<size_t>(n()), {});
    for (int card = 0; card < box().num_cards(); ++card) {
      const int holder = card_holder[static_cast<size_t>(card)];
      if (holder >= 0) (box().cards[static_cast<size_t>(card)].is_world ? worlds_of : maneuvers_of)[static_cast<size_t>(holder)].push_back(card);
    }
  }

 private:
  std::vector<int> legal_;
  bool legal_valid_ = false;

  void step(int action) {
    seen[static_cast<size_t>(actor)] = log_start + static_cast<int64_t>(roll_log.size());
    apply(action);
    settle();
    if (roll_log.size() > 96) trim_log();
  }

  void trim_log() {
    int64_t oldest = *std::min_element(seen.begin(), seen.end());
    oldest = std::min(oldest, log_start + static_cast<int64_t>(roll_log.size()) - KEEP_ROLLS);
    const int64_t drop = oldest - log_start;
    if (drop > 64) {
      roll_log.erase(roll_log.begin(), roll_log.begin() + drop);
      log_start = oldest;
    }
  }

  // ---- dice (rules.roll_die, dice.py) ----

  int roll_die(int seat, int sides, int purpose) {
    if (dice_from_outside) feed_outside_die(seat, sides, purpose);
    ++rolls_made;
    int value;
    if (forced_next < forced.size()) {
      value = forced[forced_next++];
      if (value < 1 || value > sides) throw ForcedDiceError(forced_message(seat, sides, purpose, value));
    } else {
      value = static_cast<int>(rng.next_raw() % static_cast<uint64_t>(sides)) + 1;
    }
    roll_log.push_back({seat, purpose, sides, value});
    return value;
  }

  // The bridge's roll (openspiel._step_with_faces): the generator moves on as
  // under an unforced die (rules.draw_for_die), then the face joins the end
  // of the forced queue, whose next die roll_die shows.
  void feed_outside_die(int seat, int sides, int purpose) {
    if (outside_next >= outside.size()) throw OutsideDieNeeded(seat, sides, purpose, false);
    if (sides > outside_max_sides) throw OutsideDieNeeded(seat, sides, purpose, true);
    rng.next_raw();
    if (forced_next == forced.size()) {  // all used up: keep the queue short
      forced.clear();
      forced_next = 0;
    }
    forced.push_back(outside[outside_next++]);
  }

  std::string forced_message(int seat, int sides, int purpose, int value) const {
    // The words are the Python engine's; the purpose is named by the wrapper.
    return std::to_string(rolls_made) + "|" + std::to_string(seat) + "|" + std::to_string(purpose) +
           "|" + std::to_string(sides) + "|" + std::to_string(value);
  }

  int medal_level(int seat) const {
    const auto& m = medals[static_cast<size_t>(seat)];
    return m[2] ? 3 : m[1] ? 2 : m[0] ? 1 : 0;
  }

  int read_table(int face, int level) const {
    if (level > 0) {
      const MedalLevel& medal = box().medal_levels[static_cast<size_t>(level - 1)];
      if (face <= medal.below) return medal.reads;
    }
    return face;
  }

  void roll_dice(int seat, int sides, int count, int purpose, std::vector<int>& out) {
    out.clear();
    const int level = roll_gold[static_cast<size_t>(seat)] ? 3 : medal_level(seat);
    if (dark[static_cast<size_t>(seat)] > 0) {
      for (int i = 0; i < count; ++i) {
        roll_die(seat, sides, purpose);
        const int face = box().dark_matter_value;
        out.push_back(config.dark_medals ? read_table(face, level) : face);
      }
      return;
    }
    for (int i = 0; i < count; ++i) out.push_back(read_table(roll_die(seat, sides, purpose), level));
  }

  int use_up_roll(int seat) {
    const size_t s = static_cast<size_t>(seat);
    const int bonus = bonus_trophies[s] * box().trophy_value;
    supply += bonus_trophies[s];
    bonus_trophies[s] = 0;
    for (int k : roll_cards[s]) {
      medal_holder[static_cast<size_t>(k)] = IN_STACK;
      medal_stack.push_back(k);
    }
    roll_cards[s].clear();
    roll_extra[s] = roll_bonus[s] = 0;
    roll_gold[s] = 0;
    return bonus;
  }

  // ---- deciding (rules.py) ----

  void decide(int phase_, int seat, int task_ = T_NONE, std::vector<int> args = {}) {
    if (over) return;
    phase = phase_;
    actor = seat;
    task = task_;
    task_args = std::move(args);
    legal_valid_ = false;
  }

  void options(std::vector<int>& out) {
    switch (phase) {
      case MOVE: move_options(out); return;
      case ACTION: action_options(out); return;
      case PRE_ROLL: case MOVE_SPEND: case CHALLENGE_SPEND: case DEFEND_SPEND: spend_options(out); return;
      case CORNER:
        for (size_t i = 0; i < box().corners.size(); ++i) out.push_back(layout.corner + static_cast<int>(i));
        return;
      case GYM_CARD: out.push_back(layout.train); out.push_back(layout.end); return;
      case WISH: {
        std::vector<int> pool;
        wish_pool(actor, pool);
        for (int c : pool) out.push_back(layout.wish + c);
        return;
      }
      default: task_options(out); return;
    }
  }

  void apply(int action) {
    legal_valid_ = false;
    switch (phase) {
      case MOVE: apply_move(action); return;
      case ACTION: apply_action_choice(action); return;
      case PRE_ROLL: case MOVE_SPEND: case CHALLENGE_SPEND: case DEFEND_SPEND: apply_spend(action); return;
      case CORNER: {
        const int corner = box().corners[static_cast<size_t>(action - layout.corner)];
        positions[static_cast<size_t>(actor)] = start_corner[static_cast<size_t>(actor)] = corner;
        next_corner_chooser();
        return;
      }
      case WISH: apply_wish(action - layout.wish); return;
      case GYM_CARD:
        if (action == layout.train) take_gym_card(actor, corner_gym(positions[static_cast<size_t>(actor)]));
        end_turn();
        return;
      default: apply_task(action); return;
    }
  }

  // ---- turns ----

  void start_turn(int seat) {
    turn_seat = seat;
    clear_turn();
    new_turns = 0;
    const size_t s = static_cast<size_t>(seat);
    if (lost_turns[s] > 0) {
      lost_turns[s] -= 1;
      upside_down[s] = 0;
      end_turn();
      return;
    }
    begin_movement();
  }

  void new_turn() {
    new_turns += 1;
    first_turn[static_cast<size_t>(turn_seat)] = 0;
    clear_turn();
    begin_movement();
  }

  void clear_turn() {
    steps_left = move_total = 0;
    entered = stopped = false;
    forced_target = -1;
    ch_kind = CH_NONE;
    ch_item = -1;
    ch_defender = -1;
    ch_spent = {0, 0};
    task = T_NONE;
    task_args.clear();
  }

  void end_turn() {
    if (over) return;
    const int seat = turn_seat;
    const size_t s = static_cast<size_t>(seat);
    if (dark[s] > 0) dark[s] -= 1;
    first_turn[s] = 0;
    const int nxt = (seat + 1) % n();
    if (nxt == first_player) {
      rounds += 1;
      if (rounds >= config.max_rounds) {
        time_victory();
        return;
      }
    }
    start_turn(nxt);
  }

  void time_victory() {
    size_t best = 0;
    for (const auto& w : worlds_of) best = std::max(best, w.size());
    std::vector<int> top;
    for (int s = 0; s < n(); ++s)
      if (worlds_of[static_cast<size_t>(s)].size() == best) top.push_back(s);
    finish(top, "most worlds at time");
  }

  void finish(std::vector<int> who, const char* reason) {
    if (over) return;
    over = true;
    win_reason = reason;
    winners = std::move(who);
    clear_turn();
    phase = OVER;
    actor = NO_PLAYER;
    legal_valid_ = false;
  }

  // ---- cards ----

  void set_card(int card, int holder, int space = -1) {
    const size_t c = static_cast<size_t>(card);
    const int old = card_holder[c];
    const bool is_world = box().cards[c].is_world;
    if (old >= 0) {
      remove_value((is_world ? worlds_of : maneuvers_of)[static_cast<size_t>(old)], card);
    } else if (old == BOARD) {
      space_item[static_cast<size_t>(card_space[c])] = -1;
      card_space[c] = -1;
    }
    defended[c] = -1;
    card_holder[c] = holder;
    if (holder >= 0) {
      (is_world ? worlds_of : maneuvers_of)[static_cast<size_t>(holder)].push_back(card);
    } else if (holder == BOARD) {
      space_item[static_cast<size_t>(space)] = card;
      card_space[c] = space;
    }
  }

  int corner_gym(int space) const {
    return gym_at[static_cast<size_t>(box().corner_index[static_cast<size_t>(space)])];
  }

  bool holds_medal_card(int seat) const { return contains(medal_holder, seat); }
  bool any_power(int seat) const {
    for (int p : powers[static_cast<size_t>(seat)])
      if (p) return true;
    return false;
  }

  // ---- setup (setup.py) ----

  void wish_pool(int seat, std::vector<int>& out) const {
    const int form = forms[static_cast<size_t>(seat)];
    for (int c = 0; c < box().num_characters(); ++c) {
      if (contains(characters, c)) continue;
      if (form < 0 || box().characters[static_cast<size_t>(c)].invazorz == (form == INVAZORZ)) out.push_back(c);
    }
  }

 public:
  // setup.set_up with an empty scenario (every seat wishes; the board is dealt
  // when the wishes are settled), then ArenaGame.new's settle. The caller checks
  // the box has a character for every seat.
  void set_up_plain() {
    const Box& b = box();
    const size_t n_ = static_cast<size_t>(n());
    const int corners = static_cast<int>(b.corners.size());
    trophies.assign(n_, b.start_trophies);
    bonus_trophies.assign(n_, 0);
    medals.assign(n_, {0, 0, 0});
    powers.assign(n_, std::vector<int>(static_cast<size_t>(b.num_gyms()), 0));
    lost_turns.assign(n_, 0);
    upside_down.assign(n_, 0);
    dark.assign(n_, 0);
    first_turn.assign(n_, 1);
    start_corner.assign(n_, -1);
    positions.assign(n_, -1);
    roll_bonus.assign(n_, 0);
    roll_gold.assign(n_, 0);
    roll_extra.assign(n_, 0);
    roll_cards.assign(n_, {});
    seen.assign(n_, 0);
    medal_supply = b.medal_supply;
    maneuvers_of.assign(n_, {});
    worlds_of.assign(n_, {});
    characters.assign(n_, -1);
    forms.assign(n_, -1);
    wishes.assign(n_, -1);
    gym_trophies.assign(static_cast<size_t>(corners), b.gym_trophies);
    supply = b.trophies - b.start_trophies * n() - b.gym_trophies * corners;
    gym_at.clear();
    gym_cards.assign(static_cast<size_t>(b.num_gyms()), 0);
    space_item.assign(static_cast<size_t>(b.num_spaces()), -1);
    card_holder.assign(static_cast<size_t>(b.num_cards()), BOX);
    card_space.assign(static_cast<size_t>(b.num_cards()), -1);
    defended.assign(static_cast<size_t>(b.num_cards()), -1);
    medal_stack.clear();
    for (int k = 0; k < b.num_medal_cards(); ++k) medal_stack.push_back(k);
    medal_holder.assign(static_cast<size_t>(b.num_medal_cards()), IN_STACK);
    medal_space.assign(static_cast<size_t>(b.num_medal_cards()), -1);
    worlds_won.assign(n_, 0);
    rounds = 0;
    preset_first = -1;
    next_wisher();
    settle();
  }

  void next_wisher() {
    for (int seat = 0; seat < n(); ++seat) {
      if (characters[static_cast<size_t>(seat)] < 0 && wishes[static_cast<size_t>(seat)] < 0) {
        decide(WISH, seat);
        return;
      }
    }
    for (int c : characters) {
      if (c < 0) {
        settle_wishes();
        next_wisher();
        return;
      }
    }
    if (gym_at.empty()) {
      deal_board();
      give_scenario_items();
    }
    next_corner_chooser();
  }

 private:
  void apply_wish(int character) {
    wishes[static_cast<size_t>(actor)] = character;
    next_wisher();
  }

  void settle_wishes() {
    for (int c = 0; c < box().num_characters(); ++c) {
      std::vector<int> seats;
      for (int s = 0; s < n(); ++s)
        if (wishes[static_cast<size_t>(s)] == c) seats.push_back(s);
      if (seats.empty()) continue;
      const int winner = roll_off(seats, PU_CHARACTER_BASE + c);
      characters[static_cast<size_t>(winner)] = c;
      if (forms[static_cast<size_t>(winner)] < 0)
        forms[static_cast<size_t>(winner)] = box().characters[static_cast<size_t>(c)].invazorz ? INVAZORZ : ASTROBIRDZ;
    }
    std::fill(wishes.begin(), wishes.end(), -1);
  }

  int roll_off(std::vector<int> seats, int purpose) {
    while (seats.size() > 1) {
      std::vector<int> rolls;
      for (int s : seats) rolls.push_back(roll_die(s, 6, purpose));
      const int top = *std::max_element(rolls.begin(), rolls.end());
      std::vector<int> next;
      for (size_t i = 0; i < seats.size(); ++i)
        if (rolls[i] == top) next.push_back(seats[i]);
      seats = std::move(next);
    }
    return seats[0];
  }

  // setup._deal_board with an empty scenario (the wishes' end).
  void deal_board() {
    const Box& b = box();
    const int corners = static_cast<int>(b.corners.size());
    supply = b.trophies - b.start_trophies * n() - b.gym_trophies * corners;
    std::fill(trophies.begin(), trophies.end(), b.start_trophies);
    gym_trophies.assign(static_cast<size_t>(corners), b.gym_trophies);
    const auto order = rng.permutation(b.num_gyms());
    gym_at.assign(order.begin(), order.begin() + corners);
    gym_cards.assign(static_cast<size_t>(b.num_gyms()), 0);
    for (int g : gym_at) gym_cards[static_cast<size_t>(g)] = b.gym_power_cards;
    space_item.assign(static_cast<size_t>(b.num_spaces()), -1);
    card_holder.assign(static_cast<size_t>(b.num_cards()), BOX);
    card_space.assign(static_cast<size_t>(b.num_cards()), -1);
    defended.assign(static_cast<size_t>(b.num_cards()), -1);
    for (int kind = 0; kind < 2; ++kind) {
      const bool world = kind == 1;
      const auto& spaces = world ? b.world_spaces : b.maneuver_spaces;
      std::vector<int> pool;
      for (int c = 0; c < b.num_cards(); ++c)
        if (b.cards[static_cast<size_t>(c)].is_world == world && card_holder[static_cast<size_t>(c)] == BOX) pool.push_back(c);
      const auto perm = rng.permutation(static_cast<int64_t>(pool.size()));
      const size_t count = std::min(spaces.size(), perm.size());
      for (size_t i = 0; i < count; ++i) set_card(pool[static_cast<size_t>(perm[i])], BOARD, spaces[i]);
    }
    const auto medal_order = rng.permutation(b.num_medal_cards());
    medal_stack.assign(medal_order.begin(), medal_order.end());
    medal_holder.assign(static_cast<size_t>(b.num_medal_cards()), IN_STACK);
    medal_space.assign(static_cast<size_t>(b.num_medal_cards()), -1);
  }

  void give_scenario_items() {
    for (int seat = 0; seat < n(); ++seat) check_medals(seat);
    for (int seat = 0; seat < n(); ++seat)
      worlds_won[static_cast<size_t>(seat)] = static_cast<int>(worlds_of[static_cast<size_t>(seat)].size());
  }

  void next_corner_chooser() {
    for (int seat = 0; seat < n(); ++seat) {
      if (positions[static_cast<size_t>(seat)] < 0) {
        decide(CORNER, seat);
        return;
      }
    }
    int first = preset_first;
    if (first < 0) {
      std::vector<int> all;
      for (int s = 0; s < n(); ++s) all.push_back(s);
      first = roll_off(all, PU_FIRST_PLAYER);
    }
    first_player = first;
    start_turn(first);
  }

  // ---- movement.py ----

  void begin_movement() {
    const int seat = turn_seat;
    if (any_power(seat) || holds_medal_card(seat)) {
      decide(PRE_ROLL, seat);
    } else {
      roll_movement();
    }
  }

  static int context_of(int phase_) {
    // 0 pre, 1 post, 2 challenge, 3 defence, 4 slide
    switch (phase_) {
      case PRE_ROLL: return 0;
      case MOVE_SPEND: return 1;
      case CHALLENGE_SPEND: return 2;
      default: return 3;
    }
  }

  void spend_options(std::vector<int>& out) {
    const int seat = actor;
    const size_t s = static_cast<size_t>(seat);
    const int ctx = context_of(phase);
    if (ctx == 0) {
      out.push_back(layout.roll);
    } else {
      for (int k = 0; k <= trophies[s]; ++k) out.push_back(layout.spend + k);
    }
    const auto& held = powers[s];
    for (int gym = 0; gym < box().num_gyms(); ++gym)
      if (held[static_cast<size_t>(gym)] && power_usable(seat, gym, ctx)) out.push_back(layout.use + gym);
    if (ctx != 1 && !(ctx == 0 && first_turn[s]) && holds_medal_card(seat)) {
      const int use_bit = ctx == 0 ? 1 : ctx == 2 ? 2 : 4;
      const auto& added = roll_cards[s];
      for (int k = 0; k < box().num_medal_cards(); ++k) {
        if (medal_holder[static_cast<size_t>(k)] == seat && !contains(added, k) &&
            (box().medal_cards[static_cast<size_t>(k)].extra_die & use_bit))
          out.push_back(layout.add + k);
      }
    }
  }

  bool power_usable(int seat, int gym, int ctx) const {
    const GymInfo& power = box().gyms[static_cast<size_t>(gym)];
    switch (power.kind) {
      case P_TRANSFORM: return ctx != 1 && forms[static_cast<size_t>(seat)] == ASTROBIRDZ;
      case P_BONUS:
        return (power.roll == R_MOVEMENT && ctx == 1) || (power.roll == R_CHALLENGE && ctx == 2) ||
               (power.roll == R_DEFENCE && ctx == 3);
      case P_TROPHIES: return supply > 0;
      case P_GOLD_READING: return (ctx == 2 || ctx == 3) && !roll_gold[static_cast<size_t>(seat)] && medal_level(seat) < 3;
      default: return ctx == 2;
    }
  }

  void apply_spend(int action) {
    const int seat = actor;
    const size_t s = static_cast<size_t>(seat);
    const int ctx = context_of(phase);
    if (action == layout.roll) {
      roll_movement();
    } else if (action >= layout.add) {
      roll_cards[s].push_back(action - layout.add);
      roll_extra[s] += 1;
    } else if (action >= layout.use) {
      use_power(seat, action - layout.use, ctx);
    } else {
      const int spent = action - layout.spend;
      trophies[s] -= spent;
      supply += spent;
      if (ctx == 1) {
        steps_left += spent * box().trophy_value;
        move_total = steps_left;
        begin_moving();
      } else if (ctx == 2) {
        ch_spent[0] = spent;
        after_challenger_spend();
      } else {
        ch_spent[1] = spent;
        resolve_challenge();
      }
    }
  }

  void use_power(int seat, int gym, int ctx) {
    const GymInfo& power = box().gyms[static_cast<size_t>(gym)];
    const size_t s = static_cast<size_t>(seat);
    powers[s][static_cast<size_t>(gym)] -= 1;
    gym_cards[static_cast<size_t>(gym)] += 1;
    switch (power.kind) {
      case P_TRANSFORM: forms[s] = BERZERKERBIRDZ; break;
      case P_BONUS:
        if (ctx == 1) {
          steps_left += power.amount;
          move_total = steps_left;
        } else {
          roll_bonus[s] += power.amount;
        }
        break;
      case P_TROPHIES: {
        const int take = std::min(power.amount, supply);
        supply -= take;
        trophies[s] += take;
        break;
      }
      case P_GOLD_READING: roll_gold[s] = 1; break;
      default: roll_extra[s] += 1; break;
    }
  }

  void roll_movement() {
    const int seat = turn_seat;
    const size_t s = static_cast<size_t>(seat);
    const bool first = first_turn[s];
    const int sides = first ? box().first_turn_die : box().movement_die[static_cast<size_t>(forms[s])];
    roll_dice(seat, sides, 1 + roll_extra[s], PU_MOVEMENT, dice_);
    int total = 0;
    for (int d : dice_) total += d;
    total += use_up_roll(seat);
    if (!first) total += character_bonus(seat, B_MOVEMENT);
    steps_left = move_total = total;
    if (first || !(trophies[s] || any_power(seat))) {
      begin_moving();
    } else {
      decide(MOVE_SPEND, seat);
    }
  }

  void begin_moving() {
    entered = false;
    advance();
  }

  void advance() {
    const int seat = turn_seat;
    const size_t s = static_cast<size_t>(seat);
    const Box& b = box();
    int here = positions[s];
    while (true) {
      if (entered) {
        const int kind = b.kind_of[static_cast<size_t>(here)];
        if (kind == K_SLIDE || (steps_left > 0 && std::count(positions.begin(), positions.end(), here) > 1 &&
                                challengeable_here_any(seat))) {
          decide(MOVE, seat);
          return;
        }
        if (steps_left == 0) {
          land();
          return;
        }
      }
      const auto& ways = b.next_of[static_cast<size_t>(here)];
      if (ways.size() > 1) {
        decide(MOVE, seat);
        return;
      }
      here = ways[0];
      positions[s] = here;
      steps_left -= 1;
      entered = true;
      if (b.kind_of[static_cast<size_t>(here)] == K_GYM) gym_trophies_at(seat, here);
    }
  }

  void enter(int seat, int space) {
    positions[static_cast<size_t>(seat)] = space;
    steps_left -= 1;
    entered = true;
    if (box().kind_of[static_cast<size_t>(space)] == K_GYM) gym_trophies_at(seat, space);
  }

  void move_options(std::vector<int>& out) {
    const int seat = turn_seat;
    const int here = positions[static_cast<size_t>(seat)];
    if (steps_left > 0)
      for (int nxt : box().next_of[static_cast<size_t>(here)]) out.push_back(layout.to + nxt);
    if (entered) {
      if (steps_left > 0 && challengeable_here_any(seat)) out.push_back(layout.stop);
      if (box().kind_of[static_cast<size_t>(here)] == K_SLIDE) {
        out.push_back(layout.slide);
        if (steps_left == 0) out.push_back(layout.stay);
        slide_powers(seat, out);
      }
    }
  }

  void slide_powers(int seat, std::vector<int>& out) const {
    if (forms[static_cast<size_t>(seat)] != ASTROBIRDZ || !any_power(seat)) return;
    const auto& held = powers[static_cast<size_t>(seat)];
    for (int gym = 0; gym < box().num_gyms(); ++gym)
      if (held[static_cast<size_t>(gym)] && box().gyms[static_cast<size_t>(gym)].kind == P_TRANSFORM)
        out.push_back(layout.use + gym);
  }

  void apply_move(int action) {
    if (action < layout.stop) {
      enter(turn_seat, action - layout.to);
      advance();
    } else if (action == layout.stop) {
      stopped = true;
      steps_left = 0;
      begin_action();
    } else if (action == layout.slide) {
      go_through_slide();
    } else if (action >= layout.use) {
      use_power(turn_seat, action - layout.use, 4);
      decide(MOVE, turn_seat);
    } else {
      begin_action();
    }
  }

  void gym_trophies_at(int seat, int space) {
    const size_t corner = static_cast<size_t>(box().corner_index[static_cast<size_t>(space)]);
    const int take = std::min(1 + character_bonus(seat, B_GYM_TROPHY), gym_trophies[corner]);
    gym_trophies[corner] -= take;
    trophies[static_cast<size_t>(seat)] += take;
  }

  void land() {
    if (box().kind_of[static_cast<size_t>(positions[static_cast<size_t>(turn_seat)])] == K_PORTAL) {
      astroportal();
    } else {
      begin_action();
    }
  }

  // ---- challenges.py ----

  void begin_action() {
    decide(ACTION, turn_seat);
    std::vector<int> opts;
    action_options(opts);
    if (opts.size() == 1 && opts[0] == layout.end) end_turn();
  }

  bool nothing_to_spend(int seat) const {
    return !trophies[static_cast<size_t>(seat)] && !any_power(seat) && !holds_medal_card(seat);
  }

  void action_options(std::vector<int>& out) {
    const int seat = turn_seat;
    const Box& b = box();
    const int here = positions[static_cast<size_t>(seat)];
    std::vector<int> targets;
    if (forced_target >= 0) {
      targets.push_back(forced_target);
    } else if (stopped) {
      challengeable_here(seat, targets);
    } else {
      if (b.kind_of[static_cast<size_t>(here)] == K_GYM && can_train(seat)) out.push_back(layout.train);
      const int item = space_item[static_cast<size_t>(here)];
      if (item >= b.num_cards()) {
        out.push_back(layout.challenge_medal);
      } else if (item >= 0 && (!b.cards[static_cast<size_t>(item)].is_world ||
                               static_cast<int>(maneuvers_of[static_cast<size_t>(seat)].size()) >= b.maneuvers_for_worlds)) {
        out.push_back(layout.challenge + item);
      }
      for (int t = 0; t < n(); ++t)
        if (t != seat && positions[static_cast<size_t>(t)] == here) targets.push_back(t);
    }
    std::vector<int> cards;
    for (int target : targets) {
      challengeable_cards(target, cards);
      for (int card : cards) out.push_back(layout.challenge_player_id(seat, target, card));
    }
    if (forced_target < 0 && !stopped) out.push_back(layout.end);
  }

  bool can_train(int seat) const {
    const int here = positions[static_cast<size_t>(seat)];
    return gym_card_allowed(seat, here) && gym_cards[static_cast<size_t>(corner_gym(here))] > 0;
  }

  bool gym_card_allowed(int seat, int corner) const {
    const bool first = first_turn[static_cast<size_t>(seat)] || rounds == 0;
    return !(first && corner == start_corner[static_cast<size_t>(seat)]);
  }

  bool challengeable(int target) const {
    const size_t t = static_cast<size_t>(target);
    if (!maneuvers_of[t].empty()) return true;
    for (int w : worlds_of[t])
      if (defended[static_cast<size_t>(w)] != target) return true;
    return false;
  }

  void challengeable_here(int seat, std::vector<int>& out) const {
    const int here = positions[static_cast<size_t>(seat)];
    for (int t = 0; t < n(); ++t)
      if (t != seat && positions[static_cast<size_t>(t)] == here && challengeable(t)) out.push_back(t);
  }

  bool challengeable_here_any(int seat) const {
    const int here = positions[static_cast<size_t>(seat)];
    for (int t = 0; t < n(); ++t)
      if (t != seat && positions[static_cast<size_t>(t)] == here && challengeable(t)) return true;
    return false;
  }

  void challengeable_cards(int target, std::vector<int>& out) const {
    out.clear();
    const size_t t = static_cast<size_t>(target);
    out = maneuvers_of[t];
    std::sort(out.begin(), out.end());
    std::vector<int> worlds;
    for (int w : worlds_of[t])
      if (defended[static_cast<size_t>(w)] != target) worlds.push_back(w);
    std::sort(worlds.begin(), worlds.end());
    out.insert(out.end(), worlds.begin(), worlds.end());
  }

  int character_bonus(int seat, int kind) const {
    const size_t s = static_cast<size_t>(seat);
    const CharacterInfo& c = box().characters[static_cast<size_t>(characters[s])];
    const size_t f = static_cast<size_t>(forms[s]);
    return c.bonus_kind[f] == kind ? c.bonus_amount[f] : 0;
  }

  void apply_action_choice(int action) {
    const int seat = turn_seat;
    const Box& b = box();
    if (action == layout.end) {
      end_turn();
      return;
    }
    if (action == layout.train) {
      take_gym_card(seat, corner_gym(positions[static_cast<size_t>(seat)]));
      end_turn();
      return;
    }
    if (action == layout.challenge_medal) {
      ch_kind = CH_MEDAL;
      ch_item = space_item[static_cast<size_t>(positions[static_cast<size_t>(seat)])] - b.num_cards();
    } else if (action < layout.challenge_medal) {
      const int card = action - layout.challenge;
      ch_kind = b.cards[static_cast<size_t>(card)].is_world ? CH_WORLD : CH_MANEUVER;
      ch_item = card;
    } else {
      const int rel = action - layout.challenge_player;
      const int k = rel / b.num_cards(), card = rel % b.num_cards();
      ch_defender = layout.seat_at(seat, k + 1);
      ch_item = card;
      ch_kind = player_challenge_kind(seat, card);
    }
    if (nothing_to_spend(seat)) {
      ch_spent[0] = 0;
      after_challenger_spend();
    } else {
      decide(CHALLENGE_SPEND, seat);
    }
  }

  int player_challenge_kind(int seat, int card) const {
    const CardInfo& c = box().cards[static_cast<size_t>(card)];
    if (c.character != characters[static_cast<size_t>(seat)]) return CH_STANDARD;
    return c.is_world ? CH_HOMEWORLD : CH_FAVOURITE;
  }

  void after_challenger_spend() {
    if (ch_kind == CH_STANDARD) {
      if (nothing_to_spend(ch_defender)) {
        ch_spent[1] = 0;
        resolve_challenge();
      } else {
        decide(DEFEND_SPEND, ch_defender);
      }
    } else {
      resolve_challenge();
    }
  }

 public:
  int challenge_need(int kind, int item) const {
    if (kind == CH_MEDAL) return box().medal_target;
    const CardInfo& card = box().cards[static_cast<size_t>(item)];
    if (kind == CH_MANEUVER) return card.challenge;
    if (kind == CH_WORLD) return config.world_printed ? card.number : card.challenge;
    return card.number;
  }

 private:
  // kind: a ChallengeKind, or -1 for the defence roll.
  int roll_modifier(int seat, int kind, int item, int spent) const {
    int bonus_kind;
    switch (kind) {
      case CH_MANEUVER: bonus_kind = B_MANEUVER; break;
      case CH_WORLD: bonus_kind = B_WORLD; break;
      case CH_MEDAL: bonus_kind = B_MEDAL; break;
      case -1: bonus_kind = B_DEFENCE; break;
      default: bonus_kind = B_ATTACK; break;
    }
    const size_t s = static_cast<size_t>(seat);
    int total = spent * box().trophy_value + character_bonus(seat, bonus_kind);
    total += roll_bonus[s];
    if (kind != CH_MEDAL) {
      const CardInfo& card = box().cards[static_cast<size_t>(item)];
      if (card.bonus_form >= 0 && card.bonus_form == forms[s]) total += card.bonus_amount;
    }
    return total;
  }

  int challenge_roll(int seat, int kind, int item, int spent, std::vector<int>& rolled) {
    const size_t s = static_cast<size_t>(seat);
    const int count = box().challenge_dice + roll_extra[s];
    const int sides = box().challenge_die[static_cast<size_t>(forms[s])];
    const int purpose = kind == -1 ? PU_DEFENCE : PU_CH_MANEUVER + (kind - CH_MANEUVER);
    int modifier = roll_modifier(seat, kind, item, spent);
    roll_dice(seat, sides, count, purpose, rolled);
    modifier += use_up_roll(seat);
    return modifier;
  }

  void resolve_challenge() {
    const int seat = turn_seat, kind = ch_kind, item = ch_item;
    ChallengeRecord record;
    record.present = true;
    record.modifier = challenge_roll(seat, kind, item, ch_spent[0], record.dice);
    record.challenger = seat;
    record.kind = kind;
    record.item = item;
    record.defender = ch_defender;
    record.need = kind != CH_STANDARD ? challenge_need(kind, item) : 0;
    int total = 0;
    bool success;
    if (kind == CH_MEDAL) {
      total = *std::max_element(record.dice.begin(), record.dice.end()) + record.modifier;
      success = total >= record.need;
    } else if (kind == CH_STANDARD) {
      record.standard = true;
      record.defender_modifier = challenge_roll(ch_defender, -1, item, ch_spent[1], record.defender_dice);
      for (int d : record.dice) total += d;
      total += record.modifier;
      int theirs = record.defender_modifier;
      for (int d : record.defender_dice) theirs += d;
      record.defender_total = theirs;
      success = total > theirs;
    } else {
      for (int d : record.dice) total += d;
      total += record.modifier;
      success = total >= record.need;
    }
    record.total = total;
    record.success = success;
    last_challenge = std::move(record);
    challenge_outcome(seat, kind, item, success);
    end_turn();
  }

  void challenge_outcome(int seat, int kind, int item, bool success) {
    if (kind == CH_MEDAL) {
      if (success) win_medal_card(seat, item);
      return;
    }
    if (success) {
      gain_card(seat, item);
      return;
    }
    if (ch_defender >= 0 && box().cards[static_cast<size_t>(item)].is_world) defended_by(ch_defender, item);
  }

  void defended_by(int defender, int world) {
    defended[static_cast<size_t>(world)] = defender;
    int count = 0;
    for (int w : worlds_of[static_cast<size_t>(defender)])
      if (defended[static_cast<size_t>(w)] == defender) ++count;
    if (count >= box().win_defended) finish({defender}, "three worlds defended");
  }

  void gain_card(int seat, int card) {
    const size_t c = static_cast<size_t>(card);
    const int space = card_holder[c] == BOARD ? card_space[c] : -1;
    set_card(card, seat);
    if (space >= 0) fill_space(space);
    if (box().cards[c].is_world) {
      worlds_won[static_cast<size_t>(seat)] += 1;
      if (fifth_world_count(seat) >= box().win_worlds) finish({seat}, "five worlds");
    } else {
      after_maneuver(seat);
    }
  }

  int fifth_world_count(int seat) const {
    if (config.fifth_won) return worlds_won[static_cast<size_t>(seat)];
    return static_cast<int>(worlds_of[static_cast<size_t>(seat)].size());
  }

  void after_maneuver(int seat) {
    check_medals(seat);
    const size_t s = static_cast<size_t>(seat);
    const int count = static_cast<int>(maneuvers_of[s].size());
    const bool odd = count >= 3 && count % 2 == 1;
    if (forms[s] == ASTROBIRDZ && odd && roll_die(seat, 6, PU_TRANSFORMATION) == box().transform_on)
      forms[s] = BERZERKERBIRDZ;
  }

  void fill_space(int space) {
    if (!medal_stack.empty()) {
      const int k = medal_stack.front();
      medal_stack.erase(medal_stack.begin());
      medal_holder[static_cast<size_t>(k)] = ON_BOARD;
      medal_space[static_cast<size_t>(k)] = space;
      space_item[static_cast<size_t>(space)] = box().num_cards() + k;
    }
  }

  void win_medal_card(int seat, int k) {
    const size_t kk = static_cast<size_t>(k);
    space_item[static_cast<size_t>(medal_space[kk])] = -1;
    medal_space[kk] = -1;
    const MedalCardInfo& card = box().medal_cards[kk];
    if (card.trophy) {
      take_supply_trophies(seat, card.trophy);
      medal_holder[kk] = IN_STACK;
      medal_stack.push_back(k);
    } else {
      medal_holder[kk] = seat;
    }
  }

  void take_gym_card(int seat, int gym) {
    const size_t g = static_cast<size_t>(gym);
    if (gym_cards[g] > 0) {
      gym_cards[g] -= 1;
      powers[static_cast<size_t>(seat)][g] += 1;
    }
  }

  void take_supply_trophies(int seat, int count) {
    const int take = std::min(count, supply);
    supply -= take;
    trophies[static_cast<size_t>(seat)] += take;
  }

  void check_medals(int seat) {
    const int count = static_cast<int>(maneuvers_of[static_cast<size_t>(seat)].size());
    for (size_t level = 0; level < box().medal_levels.size(); ++level)
      if (count >= box().medal_levels[level].maneuvers && !medals[static_cast<size_t>(seat)][level])
        award_medal(seat, static_cast<int>(level));
  }

  void award_medal(int seat, int level) {
    const size_t l = static_cast<size_t>(level);
    if (medal_supply[l] > 0 && !medals[static_cast<size_t>(seat)][l]) {
      medal_supply[l] -= 1;
      medals[static_cast<size_t>(seat)][l] = 1;
    }
  }

  // ---- encounters.py: the Nebula Slide ----

  void go_through_slide() {
    const int seat = turn_seat;
    const size_t s = static_cast<size_t>(seat);
    const Box& b = box();
    positions[s] = positions[s] == b.slide_a ? b.slide_b : b.slide_a;
    steps_left = 0;
    const int sides = b.slide_die[static_cast<size_t>(forms[s])];
    int result;
    while (true) {
      result = roll_die(seat, sides, PU_NEBULA_SLIDE);
      if (slide_result_possible(seat, result)) break;
    }
    last_encounter = {0, result};
    slide_result(seat, result);
  }

  bool slide_result_possible(int seat, int result) const {
    const size_t s = static_cast<size_t>(seat);
    switch (result) {
      case 1: return !maneuvers_of[s].empty() && has_return_space(false);
      case 2: return !worlds_of[s].empty() && has_return_space(true);
      case 3: return trophies[s] > 0;
      case 4:
        for (int t = 0; t < n(); ++t)
          if (t != seat && trophies[static_cast<size_t>(t)] > 0) return true;
        return false;
      case 5:
        for (int t = 0; t < n(); ++t)
          if (t != seat && !worlds_of[static_cast<size_t>(t)].empty()) return true;
        return false;
      case 7: return !medals[s][2] && medal_supply[2] > 0;
      default: return true;
    }
  }

  void return_spaces(bool world, std::vector<int>& out) const {
    const auto& spaces = world ? box().world_spaces : box().maneuver_spaces;
    for (int sp : spaces)
      if (space_item[static_cast<size_t>(sp)] < 0) out.push_back(sp);
    if (!out.empty()) return;
    for (int sp : spaces)
      if (space_item[static_cast<size_t>(sp)] >= box().num_cards()) out.push_back(sp);
  }

  bool has_return_space(bool world) const {
    std::vector<int> out;
    return_spaces(world, out);
    return !out.empty();
  }

  void slide_result(int seat, int result) {
    const size_t s = static_cast<size_t>(seat);
    switch (result) {
      case 1: decide(PICK_CARD, seat, T_SLIDE_LOSE_MANEUVER); break;
      case 2: decide(PICK_CARD, seat, T_SLIDE_LOSE_WORLD); break;
      case 3:
        trophies[s] -= 1;
        supply += 1;
        end_turn();
        break;
      case 4: decide(PICK_PLAYER, seat, T_SLIDE_TAKE_TROPHY); break;
      case 5: decide(PICK_CARD, seat, T_SLIDE_TAKE_WORLD); break;
      case 6: decide(PICK_SPACE, seat, T_SLIDE_NEW_TURN); break;
      case 7:
        award_medal(seat, 2);
        end_turn();
        break;
      default: decide(PICK_SPACE, seat, T_SLIDE_GYM); break;
    }
  }

  // ---- encounters.py: the AstroPortal ----

  void astroportal() {
    const int seat = turn_seat;
    const int table = roll_die(seat, 8, PU_ASTROPORTAL);
    const int row = roll_die(seat, 6, PU_TABLE_BASE + table);
    last_encounter = {table, row};
    portal_row(seat, table, (row + 1) / 2);
  }

  void to_exit(int seat, bool inside = false) {
    positions[static_cast<size_t>(seat)] = inside ? box().portal_exit_inside : box().portal_exit_outside;
  }

  void wipe_out(int seat) {
    const size_t s = static_cast<size_t>(seat);
    positions[s] = box().portal_exit_inside;
    upside_down[s] = 1;
    lost_turns[s] = 1;
    end_turn();
  }

  void pick_or_end(int phase_, int seat, int task_) {
    decide(phase_, seat, task_);
    std::vector<int> values;
    candidates(task_, values);
    if (values.empty()) end_turn();
  }

  void portal_row(int seat, int table, int row) {
    const size_t s = static_cast<size_t>(seat);
    const int form = forms[s];
    switch (table * 10 + row) {
      case 11: wipe_out(seat); return;
      case 12: to_exit(seat); pick_or_end(PICK_CARD, seat, T_ASTEROID_DISCARD); return;
      case 13: to_exit(seat); end_turn(); return;
      case 21:
        to_exit(seat);
        if (form == ASTROBIRDZ) {
          forms[s] = BERZERKERBIRDZ;
        } else if (form == INVAZORZ && config.nova_become) {
          pick_or_end(PICK_CHARACTER, seat, T_NOVA_BECOME);
          return;
        } else if (form == INVAZORZ && contains(forms, BERZERKERBIRDZ)) {
          decide(PICK_PLAYER, seat, T_NOVA_TURN_BACK);
          return;
        }
        end_turn();
        return;
      case 22: take_supply_trophies(seat, 1); to_exit(seat); end_turn(); return;
      case 23: decide(PICK_SPACE, seat, T_NOVA_GYM); return;
      case 31: decide(PICK_SPACE, seat, T_BLACK_HOLE_INSIDE); return;
      case 32: wipe_out(seat); return;
      case 33: {
        std::vector<int> worlds;
        board_cards(true, worlds);
        decide(worlds.empty() ? PICK_SPACE : PICK_CARD, seat, worlds.empty() ? T_BLACK_HOLE_PLACE : T_BLACK_HOLE_WORLD);
        return;
      }
      case 41: dark[s] = box().dark_matter_turns + 1; to_exit(seat); end_turn(); return;
      case 42: to_exit(seat); decide(PICK_PLAYER, seat, T_DARK_MATTER_OTHER); return;
      case 43: to_exit(seat); pick_or_end(PICK_CARD, seat, T_DARK_MATTER_MANEUVER); return;
      case 51: decide(PICK_SPACE, seat, T_WORMHOLE_ANYWHERE); return;
      case 52: to_exit(seat); decide(PICK_PLAYER, seat, T_WORMHOLE_PLAYER); return;
      case 53: decide(PICK_SPACE, seat, T_WORMHOLE_INSIDE); return;
      case 61: to_exit(seat); pick_or_end(PICK_CHARACTER, seat, T_STAR_CLUSTER_BECOME); return;
      case 62: {
        const int roll = roll_die(seat, 6, PU_STAR_CLUSTER_TROPHIES);
        const int lose = std::min((roll + 1) / 2, trophies[s]);
        trophies[s] -= lose;
        supply += lose;
        to_exit(seat);
        end_turn();
        return;
      }
      case 63: {
        const int take = std::min(3, supply);
        supply -= take;
        bonus_trophies[s] += take;
        to_exit(seat);
        end_turn();
        return;
      }
      case 71: positions[s] = box().portal_front; new_turn(); return;
      case 72: decide(PICK_PLAYER, seat, T_SPACE_TIME_TARGET); return;
      case 73: to_exit(seat, true); pick_or_end(PICK_CARD, seat, T_SPACE_TIME_MANEUVER); return;
      case 81:
        if (form == BERZERKERBIRDZ) {
          decide(PICK_SPACE, seat, T_ZOOMINIUM_ANYWHERE);
          return;
        }
        if (form == ASTROBIRDZ) {
          forms[s] = BERZERKERBIRDZ;
        } else {
          take_supply_trophies(seat, 2);
        }
        to_exit(seat);
        end_turn();
        return;
      case 82: to_exit(seat, true); pick_or_end(PICK_CARD, seat, T_ZOOMINIUM_MANEUVER); return;
      default: to_exit(seat, true); pick_or_end(PICK_CARD, seat, T_ZOOMINIUM_WORLD); return;
    }
  }

  void board_cards(bool world, std::vector<int>& out) const {
    const auto& spaces = world ? box().world_spaces : box().maneuver_spaces;
    const int c = box().num_cards();
    for (int sp : spaces) {
      const int item = space_item[static_cast<size_t>(sp)];
      if (item >= 0 && item < c) out.push_back(item);
    }
    std::sort(out.begin(), out.end());
  }

  void others(int seat, std::vector<int>& out) const {
    for (int t = 0; t < n(); ++t)
      if (t != seat) out.push_back(t);
  }

  // ---- tasks: candidates and answers ----

  void become_candidates(std::vector<int>& out) const {
    const int seat = actor;
    const bool want_invazorz = forms[static_cast<size_t>(seat)] != INVAZORZ;
    for (int c = 0; c < box().num_characters(); ++c) {
      if (box().characters[static_cast<size_t>(c)].invazorz != want_invazorz) continue;
      bool taken = false;
      for (int t = 0; t < n(); ++t)
        if (t != seat && characters[static_cast<size_t>(t)] == c) taken = true;
      if (!taken) out.push_back(c);
    }
  }

  void candidates(int task_, std::vector<int>& out) const {
    const int seat = actor;
    const size_t s = static_cast<size_t>(seat);
    switch (task_) {
      case T_SLIDE_LOSE_MANEUVER: case T_ASTEROID_DISCARD:
        out = maneuvers_of[s];
        std::sort(out.begin(), out.end());
        return;
      case T_SLIDE_LOSE_WORLD:
        out = worlds_of[s];
        std::sort(out.begin(), out.end());
        return;
      case T_SLIDE_RETURN:
        return_spaces(box().cards[static_cast<size_t>(task_args[0])].is_world, out);
        return;
      case T_SLIDE_TAKE_TROPHY:
        for (int t = 0; t < n(); ++t)
          if (t != seat && trophies[static_cast<size_t>(t)] > 0) out.push_back(t);
        return;
      case T_SLIDE_TAKE_WORLD:
        for (int t = 0; t < n(); ++t)
          if (t != seat) out.insert(out.end(), worlds_of[static_cast<size_t>(t)].begin(), worlds_of[static_cast<size_t>(t)].end());
        std::sort(out.begin(), out.end());
        return;
      case T_SLIDE_NEW_TURN: case T_WORMHOLE_ANYWHERE: case T_WORMHOLE_PLACE: case T_ZOOMINIUM_ANYWHERE:
        for (int sp = 0; sp < box().num_spaces(); ++sp) out.push_back(sp);
        return;
      case T_SLIDE_GYM: case T_NOVA_GYM:
        out = box().corners;
        std::sort(out.begin(), out.end());
        return;
      case T_NOVA_TURN_BACK:
        for (int t = 0; t < n(); ++t)
          if (t != seat && forms[static_cast<size_t>(t)] == BERZERKERBIRDZ) out.push_back(t);
        return;
      case T_NOVA_BECOME: case T_STAR_CLUSTER_BECOME: become_candidates(out); return;
      case T_BLACK_HOLE_INSIDE: case T_BLACK_HOLE_PLACE: case T_WORMHOLE_INSIDE:
        out = box().inside_spaces;
        return;
      case T_BLACK_HOLE_WORLD: case T_ZOOMINIUM_WORLD: board_cards(true, out); return;
      case T_DARK_MATTER_MANEUVER: case T_SPACE_TIME_MANEUVER: case T_ZOOMINIUM_MANEUVER:
        board_cards(false, out);
        return;
      case T_DARK_MATTER_OTHER: case T_WORMHOLE_PLAYER: others(seat, out); return;
      case T_SPACE_TIME_TARGET: {
        for (int t = 0; t < n(); ++t)
          if (t != seat && challengeable(t)) out.push_back(t);
        if (out.empty()) others(seat, out);
        return;
      }
      default: return;
    }
  }

  void task_options(std::vector<int>& out) {
    const TaskInfo& info = task_table()[static_cast<size_t>(task)];
    std::vector<int> values;
    candidates(task, values);
    if (info.segment == S_PLAYER) {
      for (int t : values) out.push_back(layout.player_id(actor, t));
    } else {
      const int base = layout.segment_offset(info.segment);
      for (int v : values) out.push_back(base + v);
    }
    if (info.optional) out.push_back(layout.end);
  }

  void apply_task(int action) {
    const TaskInfo& info = task_table()[static_cast<size_t>(task)];
    if (action == layout.end) {
      end_turn();
      return;
    }
    const int value = info.segment == S_PLAYER ? layout.seat_at(actor, action - layout.player + 1)
                                               : action - layout.segment_offset(info.segment);
    answer(task, value);
  }

  void answer(int task_, int value) {
    const int seat = actor;
    const size_t s = static_cast<size_t>(seat);
    switch (task_) {
      case T_SLIDE_LOSE_MANEUVER: case T_SLIDE_LOSE_WORLD:
        decide(PICK_SPACE, seat, T_SLIDE_RETURN, {value});
        return;
      case T_SLIDE_RETURN: {
        const int card = task_args[0];
        const int item = space_item[static_cast<size_t>(value)];
        if (item >= box().num_cards()) {
          const int k = item - box().num_cards();
          medal_holder[static_cast<size_t>(k)] = IN_STACK;
          medal_space[static_cast<size_t>(k)] = -1;
          medal_stack.push_back(k);
          space_item[static_cast<size_t>(value)] = -1;
        }
        set_card(card, BOARD, value);
        end_turn();
        return;
      }
      case T_SLIDE_TAKE_TROPHY:
        trophies[static_cast<size_t>(value)] -= 1;
        trophies[s] += 1;
        end_turn();
        return;
      case T_SLIDE_TAKE_WORLD: case T_DARK_MATTER_MANEUVER: case T_SPACE_TIME_MANEUVER:
      case T_ZOOMINIUM_MANEUVER: case T_ZOOMINIUM_WORLD:
        gain_card(seat, value);
        end_turn();
        return;
      case T_SLIDE_NEW_TURN:
        positions[s] = value;
        new_turn();
        return;
      case T_SLIDE_GYM: {
        positions[s] = value;
        const size_t corner = static_cast<size_t>(box().corner_index[static_cast<size_t>(value)]);
        if (gym_trophies[corner] > 0) {
          gym_trophies[corner] -= 1;
          trophies[s] += 1;
        }
        if (gym_card_allowed(seat, value)) take_gym_card(seat, gym_at[corner]);
        end_turn();
        return;
      }
      case T_ASTEROID_DISCARD:
        set_card(value, DISCARD);
        end_turn();
        return;
      case T_NOVA_TURN_BACK:
        forms[static_cast<size_t>(value)] = ASTROBIRDZ;
        end_turn();
        return;
      case T_NOVA_BECOME: case T_STAR_CLUSTER_BECOME:
        characters[s] = value;
        forms[s] = box().characters[static_cast<size_t>(value)].invazorz ? INVAZORZ : BERZERKERBIRDZ;
        end_turn();
        return;
      case T_NOVA_GYM:
        positions[s] = value;
        if (gym_cards[static_cast<size_t>(corner_gym(value))] > 0 && gym_card_allowed(seat, value)) {
          decide(GYM_CARD, seat);
        } else {
          end_turn();
        }
        return;
      case T_BLACK_HOLE_INSIDE: case T_WORMHOLE_ANYWHERE: case T_WORMHOLE_INSIDE:
        positions[s] = value;
        begin_action();
        return;
      case T_BLACK_HOLE_PLACE: case T_ZOOMINIUM_ANYWHERE:
        positions[s] = value;
        end_turn();
        return;
      case T_BLACK_HOLE_WORLD:
        gain_card(seat, value);
        decide(PICK_SPACE, seat, T_BLACK_HOLE_PLACE);
        return;
      case T_DARK_MATTER_OTHER:
        dark[static_cast<size_t>(value)] = box().dark_matter_turns;
        end_turn();
        return;
      case T_WORMHOLE_PLAYER:
        decide(PICK_SPACE, seat, T_WORMHOLE_PLACE, {value});
        return;
      case T_WORMHOLE_PLACE:
        positions[static_cast<size_t>(task_args[0])] = value;
        end_turn();
        return;
      case T_SPACE_TIME_TARGET:
        positions[s] = positions[static_cast<size_t>(value)];
        if (challengeable(value)) {
          forced_target = value;
          begin_action();
        } else {
          end_turn();
        }
        return;
      default: return;
    }
  }

  std::vector<int> dice_;
};

}  // namespace arena
