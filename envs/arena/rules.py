"""Berzerkerbirdz Extreme Sports Arena rules engine: pure Python, no gymnasium
or PettingZoo.

The game in brief (the full rules, the reconstructed box and every ruling:
``docs/rules/arena.md``):

* 2-6 players, each a character (Astrobirdz, who can become Berzerkerbirdz, or
  Invazorz) on a board of an outer one-way loop (gyms in the corners,
  maneuver cards between them, four AstroPortal spaces, the two ends of the
  Nebula Slide) and an inner loop of world cards, joined by two entrances.
* A turn: roll one die (d6; d8 for Berzerkerbirdz; the first turn always one
  d6), spend trophies for +2 each after seeing it, and move the full total
  (forks at the entrances; a trophy from each gym moved onto or past; stop
  early on a player to challenge them; go through the Nebula Slide or not;
  an AstroPortal encounter where the move ends). Then one action: train at a
  gym, challenge for the maneuver, world or medal card on the space, or
  challenge a player there for one of their cards.
* Challenges roll four dice (d6; d8 for Berzerkerbirdz), read with the
  medals (bronze, silver, gold at 3, 5, 7 maneuvers), plus trophies (+2 each,
  spent before the roll), character, card and gym power bonuses.
* A player wins by holding a fifth world, or by successfully defending a
  third world; otherwise the most worlds after ``max_rounds`` full rounds.

The engine is a state machine: :attr:`ArenaGame.phase` says what the seat to
act (:attr:`ArenaGame.actor`) decides, and for the "pick" phases
:attr:`ArenaGame.task` says what for (a row of :data:`.encounters.TASKS`).
Chance events (every die) come from the game's own generator, or first from
the forced results of the ``dice`` scenario. A decision with a single legal
action is taken by the engine itself (a fork with one way on, a roll with
nothing to spend), so every step an agent sees is a real choice; every roll
is logged (:meth:`ArenaGame.rolls_since`).

The rules live in five modules: this one (the game's state, turns, dice,
legality, state dicts), :mod:`.setup` (setting up a game and a scenario),
:mod:`.movement` (rolling and moving, gym powers and medal dice),
:mod:`.encounters` (the Nebula Slide and AstroPortal tables) and
:mod:`.challenges` (the action after moving, challenges, medals,
transformation, victory). The four chapters are functions over an
:class:`ArenaGame`, called as ``movement.begin_movement(game)``; they import
each other one way only (setup, movement and encounters call challenges,
movement calls encounters) and come back to this module through the game's
turn methods (``_decide``, ``_end_turn``, ``_new_turn``, ``_start_turn``,
``_finish``, ``_set_card``), never by importing it. The legality cache
(``_legal``, ``_mask``) is written only here.

The modules are layered one way, none importing a module above it (the
engine's class is named below only for type checking): :mod:`.data` (the box)
and :mod:`.phases`, :mod:`.config` (:class:`ArenaConfig`), :mod:`.dice`, the
chapters, :mod:`.state` (reading a saved game and checking that it adds up),
this module, then :mod:`.observer`, the compiled engine's wrapper
(:mod:`.native`), the resampler (:mod:`.resample`, which builds the compiled
engine unchecked) and the env above them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import StateDictError
from ..core.game import NO_PLAYER, GameEngine
from ..core.rng import make_rng, rng_to_dict
from ..core.validate import short_repr
from . import challenges, encounters, movement, setup
from .actions import ActionLayout
from .config import ArenaConfig
from .data import BERZERKERBIRDZ, FORMS, MEDALS
from .encounters import TASKS
from .phases import (
    ACTION,
    BOARD,
    BOX,
    CORNER,
    DISCARD,
    GYM_CARD,
    IN_STACK,
    MOVE,
    ON_BOARD,
    OVER,
    PHASE_NAMES,
    SPEND_PHASES,
    WISH,
    Phase,
)
from .setup import Scenario
from .state import consistency_problems, validate_state

MASK_CACHE_SIZE = 4096
"""Masks kept for reuse (a state's mask is often one seen before: the forks,
the spend ranges); the cache starts over when full."""
_MASKS: dict[tuple[int, ...], np.ndarray] = {}
KEEP_ROLLS = 8
"""Rolls the log always keeps (the observation's recent rolls)."""


class ForcedDiceError(ValueError):
    """A forced die result (scenario ``dice``) that the die rolled cannot show."""


# ---- the game ------------------------------------------------------------------------


@dataclass
class ArenaGame(GameEngine):
    """A game of the Arena in progress. Create it with :meth:`new`."""

    config: ArenaConfig
    rng: np.random.Generator
    # players
    characters: list[int] = field(default_factory=list)
    forms: list[int] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    """Space of each fingerboard (-1 before its starting corner is chosen)."""
    trophies: list[int] = field(default_factory=list)
    bonus_trophies: list[int] = field(default_factory=list)
    """Star Cluster trophies waiting to add to the player's next roll."""
    medals: list[list[int]] = field(default_factory=list)
    """Per seat, 0/1 for bronze, silver, gold."""
    powers: list[list[int]] = field(default_factory=list)
    """Per seat, gym power cards held per gym id."""
    lost_turns: list[int] = field(default_factory=list)
    upside_down: list[bool] = field(default_factory=list)
    dark: list[int] = field(default_factory=list)
    """Dark matter: how many more of the player's turn ends it lasts (0: none)."""
    first_turn: list[bool] = field(default_factory=list)
    wishes: list[int] = field(default_factory=list)
    """Setup: the character each seat without one wished for this round (-1: not
    yet), hidden from the other seats until every such seat has wished."""
    worlds_won: list[int] = field(default_factory=list)
    """World cards each seat has gained over the game (option ``fifth_world``)."""
    start_corner: list[int] = field(default_factory=list)
    # the box on the board
    supply: int = 0
    medal_supply: list[int] = field(default_factory=list)
    gym_at: list[int] = field(default_factory=list)
    """Gym id on each corner (in corner order)."""
    gym_trophies: list[int] = field(default_factory=list)
    gym_cards: list[int] = field(default_factory=list)
    """Gym power cards lying on each gym (per gym id; 0 for gyms in the box)."""
    space_item: list[int] = field(default_factory=list)
    """Per space: -1 nothing, a card id, or num_cards + a medal card id."""
    card_holder: list[int] = field(default_factory=list)
    card_space: list[int] = field(default_factory=list)
    defended: list[int] = field(default_factory=list)
    """Per world card: the seat under whose permanently defended card it lies, or -1."""
    medal_stack: list[int] = field(default_factory=list)
    """Face-down medal cards, top first."""
    medal_holder: list[int] = field(default_factory=list)
    medal_space: list[int] = field(default_factory=list)
    # the turn
    preset_first: int = -1
    """The scenario's first player (-1: roll for it once the corners are chosen)."""
    first_player: int = 0
    turn_seat: int = 0
    rounds: int = 0
    """Full rounds completed."""
    phase: int = CORNER
    """The decision under way (a :class:`Phase` value)."""
    actor: int = 0
    task: str = ""
    task_args: list[int] = field(default_factory=list)
    steps_left: int = 0
    entered: bool = False
    """True once the moving fingerboard has left its start space this move."""
    stopped: bool = False
    forced_target: int = -1
    move_total: int = 0
    new_turns: int = 0
    """Whole new turns taken in this turn (Nebula Slide 6, Space-Time 1-2)."""
    # the roll being prepared, per seat
    roll_bonus: list[int] = field(default_factory=list)
    roll_gold: list[bool] = field(default_factory=list)
    roll_extra: list[int] = field(default_factory=list)
    roll_cards: list[list[int]] = field(default_factory=list)
    # the challenge under way
    ch_kind: str = ""
    ch_item: int = -1
    ch_defender: int = -1
    ch_spent: list[int] = field(default_factory=lambda: [0, 0])
    # records
    last_challenge: dict[str, Any] | None = None
    last_encounter: list[int] = field(default_factory=list)
    """[table 1-8, d6 1-6] of the last AstroPortal encounter, or [0, slide result]."""
    roll_log: list[list[Any]] = field(default_factory=list)
    log_start: int = 0
    seen: list[int] = field(default_factory=list)
    forced: list[int] = field(default_factory=list)
    rolls_made: int = 0
    over: bool = False
    win_reason: str = ""
    winners_: list[int] = field(default_factory=list)
    _legal: list[int] | None = field(default=None, repr=False)
    _mask: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.box = self.config.box
        self.layout = ActionLayout(self.box, self.config.num_players)
        self.maneuvers_of: list[list[int]] = []
        self.worlds_of: list[list[int]] = []
        self.version = 0
        """Bumped by every applied action (lets observers cache)."""
        self._raw = self.rng.bit_generator.random_raw

    @property
    def num_players(self) -> int:  # type: ignore[override]
        return self.config.num_players

    # ---- setting up ------------------------------------------------------------------

    @classmethod
    def new(
        cls, config: ArenaConfig, rng: np.random.Generator, scenario: Scenario | None = None
    ) -> ArenaGame:
        """A new game set up as the rulebook says, with a scenario's pieces placed
        first. Raises ``ValueError`` naming what is impossible in a scenario."""
        config.check()
        sc = scenario or Scenario()
        game = cls(config=config, rng=rng)
        game.forced = list(sc.dice)
        setup.set_up(game, sc)
        game._settle()
        return game

    # ---- dice ------------------------------------------------------------------------

    def roll_die(self, seat: int, sides: int, purpose: str) -> int:
        """One die: the next forced result if any (checked against ``sides``), else
        the game's generator. Every roll is logged."""
        self.rolls_made += 1
        if self.forced:
            value = self.forced.pop(0)
            if not 1 <= value <= sides:
                raise ForcedDiceError(
                    f"reset option dice: roll {self.rolls_made} (player_{seat}, {purpose}) is a "
                    f"d{sides}, which cannot show the forced result {value}; allowed 1..{sides}"
                )
        else:
            # one raw 64-bit draw per die: the modulo bias is below 1e-18
            value = int(self._raw() % sides) + 1
        self.roll_log.append([seat, purpose, sides, value])
        return value

    def draw_for_die(self) -> None:
        """Move the generator on as one unforced die does, without rolling: a
        caller that supplies the faces (the OpenSpiel bridge's chance nodes)
        keeps it where the env's own dice leave it, so the board dealt after
        the character wishes is the same."""
        self._raw()

    def rolls_since(self, seat: int) -> list[list[Any]]:
        """Every roll ``[seat, purpose, sides, result]`` made since ``seat``'s
        previous step (and during it), oldest first."""
        return self.roll_log[max(0, self.seen[seat] - self.log_start) :]

    def _trim_log(self) -> None:
        """Forget rolls every seat has seen, keeping the last few (the observation
        shows the last 8)."""
        oldest = min(min(self.seen), self.log_start + len(self.roll_log) - KEEP_ROLLS)
        drop = oldest - self.log_start
        if drop > 64:
            del self.roll_log[:drop]
            self.log_start = oldest

    # ---- the GameEngine interface -------------------------------------------------------

    def current_player(self) -> int:
        return NO_PLAYER if self.over else self.actor

    def legal_actions(self) -> list[int]:
        legal = self._legal
        if legal is None:
            legal = self._legal = [] if self.over else sorted(self._options())
        return legal

    def legal_mask(self, num_actions: int) -> np.ndarray:
        """int8 mask of :meth:`legal_actions` (read-only, shared by every state with
        the same legal actions: callers copy it before handing it out)."""
        mask = self._mask
        if mask is None:
            legal = self.legal_actions()
            key = (num_actions, *legal)
            cache = _MASKS
            mask = cache.get(key)
            if mask is None:
                if len(cache) >= MASK_CACHE_SIZE:
                    cache.clear()
                mask = np.zeros(num_actions, dtype=np.int8)
                mask[legal] = 1
                mask.flags.writeable = False
                cache[key] = mask
            self._mask = mask
        return mask

    def apply_action(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ValueError(
                f"illegal Arena action {action} ({self._describe(action)}) for player_"
                f"{self.actor}; legal: {[self._describe(a) for a in self.legal_actions()]}"
            )
        if self.forced:
            # a forced die may turn out impossible mid-step: keep the state to go back to
            saved = self.to_dict()
            try:
                self._step(action)
            except ForcedDiceError:
                self._restore(saved)
                raise
        else:
            self._step(action)

    def _step(self, action: int) -> None:
        self.seen[self.actor] = self.log_start + len(self.roll_log)
        self._apply(action)
        self._settle()
        if len(self.roll_log) > 96:
            self._trim_log()

    def _restore(self, saved: dict[str, Any]) -> None:
        other = ArenaGame.from_dict(saved)
        self.__dict__.update(other.__dict__)

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> list[float]:
        """Worlds held: the time victory's count (and the board's score sheet)."""
        return [float(len(w)) for w in self.worlds_of]

    def winners(self) -> list[int]:
        return list(self.winners_)

    def action_to_string(self, seat: int, action: int) -> str:
        return self.layout.to_string(seat, action)

    def string_to_action(self, seat: int, text: str) -> int:
        return self.layout.from_string(seat, text)

    def _describe(self, action: int) -> str:
        try:
            return self.layout.to_string(self.actor, action)
        except ValueError:
            return "out of range"

    # ---- deciding ---------------------------------------------------------------------

    def _decide(self, phase: int, seat: int, task: str = "", args: list[int] | None = None) -> None:
        """Ask ``seat`` to decide (a no-op once the game is over)."""
        if self.over:
            return
        self.phase, self.actor, self.task = phase, seat, task
        self.task_args = list(args) if args else []
        self._legal = self._mask = None

    def _forget_legal(self) -> None:
        """Drop the cached legal actions and mask: the state was set from outside
        the rules (a loaded or tampered state dict), so they are computed afresh."""
        self._legal = self._mask = None

    def _offer(self, options: list[int]) -> None:
        """The decision just asked for has these legal actions, already computed
        by its chapter: keep them rather than compute them again."""
        self._legal = sorted(options)

    def _settle(self) -> None:
        """Take every decision that has a single legal action (nothing to choose)."""
        while not self.over:
            legal = self.legal_actions()  # (every state change above reset the cache)
            if len(legal) != 1:
                if not legal:
                    raise RuntimeError(
                        f"Arena engine left player_{self.actor} no legal action in phase "
                        f"{PHASE_NAMES[self.phase]} (task {short_repr(self.task)})"
                    )
                return
            self._apply(legal[0])
        self._legal = self._mask = None

    def _options(self) -> list[int]:
        """The legal action ids of the decision under way (one source of truth)."""
        phase = self.phase
        if phase == MOVE:
            return movement.move_options(self)
        if phase == ACTION:
            return challenges.action_options(self)
        if phase in SPEND_PHASES:
            return movement.spend_options(self)
        if phase == CORNER:
            return list(range(self.layout.corner, self.layout.corner + len(self.box.corners)))
        if phase == GYM_CARD:
            return [self.layout.train, self.layout.end]
        if phase == WISH:
            return [self.layout.wish + c for c in setup.wish_pool(self, self.actor)]
        return encounters.task_options(self)

    def _apply(self, action: int) -> None:
        self.version += 1
        self._legal = self._mask = None
        phase = self.phase
        if phase == MOVE:
            movement.apply_move(self, action)
        elif phase == ACTION:
            challenges.apply_action_choice(self, action)
        elif phase in SPEND_PHASES:
            movement.apply_spend(self, action)
        elif phase == CORNER:
            corner = self.box.corners[action - self.layout.corner]
            self.positions[self.actor] = self.start_corner[self.actor] = corner
            setup.next_corner_chooser(self)
        elif phase == WISH:
            setup.apply_wish(self, action - self.layout.wish)
        elif phase == GYM_CARD:
            if action == self.layout.train:
                challenges.take_gym_card(
                    self, self.actor, self._corner_gym(self.positions[self.actor])
                )
            self._end_turn()
        else:
            encounters.apply_task(self, action)

    # ---- turns -------------------------------------------------------------------------

    def _start_turn(self, seat: int) -> None:
        """A seat's turn: a lost turn only turns the fingerboard right side up."""
        self.turn_seat = seat
        self._clear_turn()
        self.new_turns = 0
        if self.lost_turns[seat] > 0:
            self.lost_turns[seat] -= 1
            self.upside_down[seat] = False
            self._end_turn()
            return
        movement.begin_movement(self)

    def _new_turn(self) -> None:
        """A whole new turn inside this one (it is not a turn of the play order)."""
        self.new_turns += 1
        self.first_turn[self.turn_seat] = False
        self._clear_turn()
        movement.begin_movement(self)

    def _clear_turn(self) -> None:
        self.steps_left = self.move_total = 0
        self.entered = self.stopped = False
        self.forced_target = -1
        self.ch_kind, self.ch_item, self.ch_defender, self.ch_spent = "", -1, -1, [0, 0]
        self.task, self.task_args = "", []

    def _end_turn(self) -> None:
        """The turn is over: dark matter wears off by a turn, the first-turn rule
        ends, play passes left; after the last round the time victory."""
        if self.over:
            return
        seat = self.turn_seat
        if self.dark[seat] > 0:
            self.dark[seat] -= 1
        self.first_turn[seat] = False
        nxt = (seat + 1) % self.num_players
        if nxt == self.first_player:
            self.rounds += 1
            if self.rounds >= self.config.max_rounds:
                self._time_victory()
                return
        self._start_turn(nxt)

    def _time_victory(self) -> None:
        counts = [len(w) for w in self.worlds_of]
        best = max(counts)
        self._finish([s for s, c in enumerate(counts) if c == best], "most worlds at time")

    def _finish(self, winners: list[int], reason: str) -> None:
        if self.over:
            return
        self.over, self.win_reason, self.winners_ = True, reason, list(winners)
        self._clear_turn()
        self.phase, self.actor = OVER, NO_PLAYER
        self._legal = self._mask = None

    # ---- cards ---------------------------------------------------------------------------

    def _set_card(self, card: int, holder: int, space: int = -1) -> None:
        """Move a maneuver or world card to ``holder`` (a seat, BOARD with its
        space, BOX or DISCARD), keeping the per-seat lists in step. A card that
        changes hands leaves its permanently defended pile."""
        old = self.card_holder[card]
        is_world = self.box.cards[card].is_world
        if old >= 0:
            (self.worlds_of if is_world else self.maneuvers_of)[old].remove(card)
        elif old == BOARD:
            self.space_item[self.card_space[card]] = -1
            self.card_space[card] = -1
        self.defended[card] = -1
        self.card_holder[card] = holder
        if holder >= 0:
            (self.worlds_of if is_world else self.maneuvers_of)[holder].append(card)
        elif holder == BOARD:
            self.space_item[space] = card
            self.card_space[card] = space

    def _corner_gym(self, space: int) -> int:
        """The gym id on corner ``space``."""
        return self.gym_at[self.box.corners.index(space)]

    def challenge_need(self, kind: str, item: int) -> int:
        """The number a board or named-player challenge must meet (for observers)."""
        return challenges.challenge_need(self, kind, item)

    # ---- state dicts -----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The full state as JSON types (names for cards, so a saved game reads)."""
        box = self.box
        return {
            "config": self.config.to_dict(),
            "rng": rng_to_dict(self.rng),
            "characters": [box.characters[c].name if c >= 0 else None for c in self.characters],
            "forms": [FORMS[f] if f >= 0 else None for f in self.forms],
            "wishes": [box.characters[c].name if c >= 0 else None for c in self.wishes],
            "positions": list(self.positions),
            "trophies": list(self.trophies),
            "bonus_trophies": list(self.bonus_trophies),
            "medals": [[MEDALS[i] for i in range(3) if m[i]] for m in self.medals],
            "powers": [
                [box.gyms[g].name for g in range(len(box.gyms)) for _ in range(p[g])]
                for p in self.powers
            ],
            "lost_turns": list(self.lost_turns),
            "upside_down": list(self.upside_down),
            "dark": list(self.dark),
            "first_turn": list(self.first_turn),
            "worlds_won": list(self.worlds_won),
            "start_corner": list(self.start_corner),
            "supply": self.supply,
            "medal_supply": list(self.medal_supply),
            "gym_at": [box.gyms[g].name for g in self.gym_at],
            "gym_trophies": list(self.gym_trophies),
            "gym_cards": list(self.gym_cards),
            "card_holder": list(self.card_holder),
            "card_space": list(self.card_space),
            "defended": list(self.defended),
            "medal_stack": list(self.medal_stack),
            "medal_holder": list(self.medal_holder),
            "medal_space": list(self.medal_space),
            "preset_first": self.preset_first,
            "first_player": self.first_player,
            "turn_seat": self.turn_seat,
            "rounds": self.rounds,
            "phase": PHASE_NAMES[self.phase],
            "actor": self.actor,
            "task": self.task,
            "task_args": list(self.task_args),
            "steps_left": self.steps_left,
            "entered": self.entered,
            "stopped": self.stopped,
            "forced_target": self.forced_target,
            "move_total": self.move_total,
            "new_turns": self.new_turns,
            "roll_bonus": list(self.roll_bonus),
            "roll_gold": list(self.roll_gold),
            "roll_extra": list(self.roll_extra),
            "roll_cards": [list(c) for c in self.roll_cards],
            "ch_kind": self.ch_kind,
            "ch_item": self.ch_item,
            "ch_defender": self.ch_defender,
            "ch_spent": list(self.ch_spent),
            "last_challenge": None if self.last_challenge is None else dict(self.last_challenge),
            "last_encounter": list(self.last_encounter),
            "roll_log": [list(r) for r in self.roll_log],
            "log_start": self.log_start,
            "seen": list(self.seen),
            "forced": list(self.forced),
            "rolls_made": self.rolls_made,
            "over": self.over,
            "win_reason": self.win_reason,
            "winners": list(self.winners_),
        }

    @classmethod
    def from_dict(cls, d: Any, expected: ArenaConfig | None = None) -> ArenaGame:
        """Rebuild a saved game; raises :class:`StateDictError` naming the field
        that is missing, of the wrong type, out of range or inconsistent.
        ``expected``: the loading env's config, which the saved one must equal
        (checked before its box file is read)."""
        return validate_state(cls, d, expected)

    # ---- invariants --------------------------------------------------------------------------

    def invariant_violations(self) -> list[str]:
        """What does not add up (empty when all is well): every card, medal card
        and gym power card in exactly one place, trophies and medals conserved,
        every count in range."""
        return consistency_problems(self)


def new_game(
    config: ArenaConfig | None = None, seed: int | None = None, **scenario: Any
) -> ArenaGame:
    """A set-up game from a seed (convenience for tests and scripts); ``scenario``
    takes the fields of :class:`Scenario` in engine terms."""
    return ArenaGame.new(config or ArenaConfig(), make_rng(seed), Scenario(**scenario))


__all__ = [
    "BERZERKERBIRDZ",
    "BOARD",
    "BOX",
    "DISCARD",
    "IN_STACK",
    "ON_BOARD",
    "TASKS",
    "ArenaConfig",
    "ArenaGame",
    "ForcedDiceError",
    "Phase",
    "Scenario",
    "StateDictError",
    "new_game",
]
