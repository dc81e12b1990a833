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

The rules live in five modules: this one (turns, dice, legality, state dicts
and their validation), :mod:`.setup` (setting up a game and a scenario),
:mod:`.movement` (rolling and moving, gym powers and medal dice),
:mod:`.encounters` (the Nebula Slide and AstroPortal tables) and
:mod:`.challenges` (the action after moving, challenges, medals,
transformation, victory).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import StateDictError
from ..core.game import NO_PLAYER, GameEngine
from ..core.rng import make_rng, rng_from_dict, rng_to_dict
from ..core.validate import (
    fail,
    require_choice,
    require_dict,
    require_int,
    require_ints,
    require_list,
    short_repr,
)
from . import data
from .actions import ActionLayout
from .challenges import ChallengeRules
from .data import BERZERKERBIRDZ, FORMS, INVAZORZ, MEDALS, Box
from .encounters import TASKS, EncounterRules
from .movement import MovementRules
from .phases import (
    ACTION,
    BOARD,
    BOX,
    CHALLENGE_SPEND,
    CORNER,
    DEFEND_SPEND,
    DISCARD,
    GYM_CARD,
    IN_STACK,
    MOVE,
    MOVE_SPEND,
    ON_BOARD,
    OVER,
    PHASE_NAMES,
    PICK_PHASES,
    SPEND_PHASES,
    Phase,
)
from .setup import Scenario, SetupRules

CHALLENGE_KINDS = ("", "maneuver", "world", "medal", "homeworld", "favourite", "standard")
WORLD_CHALLENGES = ("offset", "printed")
MASK_CACHE_SIZE = 4096
"""Masks kept for reuse (a state's mask is often one seen before: the forks,
the spend ranges); the cache starts over when full."""
_MASKS: dict[tuple[int, ...], np.ndarray] = {}
KEEP_ROLLS = 8
"""Rolls the log always keeps (the observation's recent rolls)."""
DARK_MATTER_MODES = ("two", "medals")


@dataclass(frozen=True)
class ArenaConfig:
    """Frozen parameters of one game (the env options, resolved)."""

    num_players: int = 4
    max_rounds: int = 40
    """Full rounds before the time victory (the rulebook's two hours)."""
    world_challenge: str = "offset"
    """A world's challenge number on the board: its number + the box's offset
    (2, as for maneuvers; ruling) or 'printed': the number itself."""
    dark_matter: str = "two"
    """'two': dark-matter dice read 2 whatever medals say (ruling); 'medals':
    a medal still reads that 2 as a rolled 2."""
    data: str | None = None
    """Path of the box file; None: the shipped ``arena.yaml``."""

    def check(self) -> None:
        """Raise ``ValueError`` naming what is allowed for an impossible parameter."""
        if (
            isinstance(self.num_players, bool)
            or not isinstance(self.num_players, int)
            or self.num_players not in range(2, 7)
        ):
            raise ValueError(
                f"num_players={short_repr(self.num_players)} is not allowed; allowed: 2..6"
            )
        if isinstance(self.max_rounds, bool) or not isinstance(self.max_rounds, int):
            raise ValueError(f"max_rounds={short_repr(self.max_rounds)} must be an integer >= 1")
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds={self.max_rounds} must be an integer >= 1")
        if self.world_challenge not in WORLD_CHALLENGES:
            raise ValueError(
                f"world_challenge={short_repr(self.world_challenge)} is not allowed; allowed: "
                f"{', '.join(WORLD_CHALLENGES)}"
            )
        if self.dark_matter not in DARK_MATTER_MODES:
            raise ValueError(
                f"dark_matter={short_repr(self.dark_matter)} is not allowed; allowed: "
                f"{', '.join(DARK_MATTER_MODES)}"
            )

    @functools.cached_property
    def box(self) -> Box:
        """The box of ``data``, read and checked once per config: a game's box
        does not change under it when the file is edited."""
        return data.load_box(self.data)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


class ForcedDiceError(ValueError):
    """A forced die result (scenario ``dice``) that the die rolled cannot show."""


# ---- the game ------------------------------------------------------------------------


@dataclass
class ArenaGame(SetupRules, MovementRules, EncounterRules, ChallengeRules, GameEngine):
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
        game._set_up(sc)
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
            return self._move_options()
        if phase == ACTION:
            return self._action_options()
        if phase in SPEND_PHASES:
            return self._spend_options()
        if phase == CORNER:
            return list(range(self.layout.corner, self.layout.corner + len(self.box.corners)))
        if phase == GYM_CARD:
            return [self.layout.train, self.layout.end]
        return self._task_options()

    def _apply(self, action: int) -> None:
        self.version += 1
        self._legal = self._mask = None
        phase = self.phase
        if phase == MOVE:
            self._apply_move(action)
        elif phase == ACTION:
            self._apply_action_choice(action)
        elif phase in SPEND_PHASES:
            self._apply_spend(action)
        elif phase == CORNER:
            corner = self.box.corners[action - self.layout.corner]
            self.positions[self.actor] = self.start_corner[self.actor] = corner
            self._next_corner_chooser()
        elif phase == GYM_CARD:
            if action == self.layout.train:
                self._take_gym_card(self.actor, self._corner_gym(self.positions[self.actor]))
            self._end_turn()
        else:
            self._apply_task(action)

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
        self._begin_movement()

    def _new_turn(self) -> None:
        """A whole new turn inside this one (it is not a turn of the play order)."""
        self.new_turns += 1
        self.first_turn[self.turn_seat] = False
        self._clear_turn()
        self._begin_movement()

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
        return self.gym_at[self.box.corners.index(space)]

    # ---- state dicts -----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The full state as JSON types (names for cards, so a saved game reads)."""
        box = self.box
        return {
            "config": self.config.to_dict(),
            "rng": rng_to_dict(self.rng),
            "characters": [box.characters[c].name for c in self.characters],
            "forms": [FORMS[f] for f in self.forms],
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
        return validate_state(d, expected)

    # ---- invariants --------------------------------------------------------------------------

    def invariant_violations(self) -> list[str]:
        """What does not add up (empty when all is well): every card, medal card
        and gym power card in exactly one place, trophies and medals conserved,
        every count in range."""
        return consistency_problems(self)


# ---- state dicts: validation ---------------------------------------------------------------

WIN_REASONS = ("", "five worlds", "three worlds defended", "most worlds at time")


class _Fields:
    """Typed access to a saved game's fields; errors name ``game.<field>``."""

    def __init__(self, d: dict[str, Any]) -> None:
        self.d = d

    def fail(self, key: str, message: str) -> None:
        raise StateDictError(f"game.{key}: {message}")

    def get(self, key: str) -> Any:
        if key not in self.d:
            self.fail(key, "missing")
        return self.d[key]

    def integer(self, key: str, low: int, high: int, value: Any = None, name: str = "") -> int:
        v = self.get(key) if value is None else value
        if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
            self.fail(name or key, f"must be an integer {low}..{high}, got {short_repr(v, 60)}")
        return v

    def boolean(self, key: str, value: Any = None, name: str = "") -> bool:
        v = self.get(key) if value is None else value
        if not isinstance(v, bool):
            self.fail(name or key, f"must be true or false, got {short_repr(v, 60)}")
        return v

    def text(self, key: str, allowed: tuple[str, ...] | dict[str, Any]) -> str:
        v = self.get(key)
        if v not in allowed:
            self.fail(
                key, f"must be one of {', '.join(map(repr, allowed))}, got {short_repr(v, 60)}"
            )
        return v

    def listing(
        self, key: str, length: int | None = None, value: Any = None, name: str = ""
    ) -> list[Any]:
        v = self.get(key) if value is None else value
        if not isinstance(v, list) or (length is not None and len(v) != length):
            shape = "a list" if length is None else f"a list of {length} entries"
            self.fail(name or key, f"must be {shape}, got {short_repr(v, 60)}")
        return v

    def ints(self, key: str, length: int | None, low: int, high: int) -> list[int]:
        values = self.listing(key, length)
        for i, v in enumerate(values):
            if type(v) is not int or not low <= v <= high:  # the slow check names it
                self.integer(key, low, high, v, f"{key}[{i}]")
        return list(values)

    def bools(self, key: str, length: int) -> list[bool]:
        values = self.listing(key, length)
        for i, v in enumerate(values):
            if type(v) is not bool:
                self.boolean(key, v, f"{key}[{i}]")
        return list(values)

    def names(self, key: str, value: Any, index: dict[str, int], what: str, name: str) -> list[int]:
        values = self.listing(key, None, value, name)
        out = []
        for i, v in enumerate(values):
            if not isinstance(v, str) or v.lower() not in index:
                self.fail(f"{name}[{i}]", f"{short_repr(v, 60)} is not a {what} of the box")
            out.append(index[v.lower()])
        return out


def config_from_dict(cfg: Any, expected: ArenaConfig | None = None) -> ArenaConfig:
    """The saved ``game.config``, each field checked, then its box loaded.

    With ``expected`` (the loading env's config), a saved config that differs
    is refused before anything reads the box file it names: a state dict must
    not make the env open a file its own options did not name."""
    cfg = require_dict(cfg, "game.config")
    names = [f.name for f in dataclasses.fields(ArenaConfig)]
    unknown = sorted(str(k) for k in cfg if k not in names)
    if unknown:
        raise StateDictError(
            f"game.config: unknown field(s) {unknown}; allowed: {names} (missing ones default)"
        )
    data_path = cfg.get("data")
    if data_path is not None and not isinstance(data_path, str):
        raise fail("game.config.data", data_path, "null or a file path (str)")
    config = ArenaConfig(**cfg)
    try:
        config.check()
    except ValueError as err:
        raise StateDictError(f"game.config: {err}") from None
    if expected is not None and config != expected:
        raise StateDictError(
            f"game.config: saved Arena config {short_repr(config, 200)} differs from this "
            f"env's {expected}"
        )
    try:
        config.box  # noqa: B018 - read and check the box now, not at the first move
    except ValueError as err:
        raise StateDictError(f"game.config: {err}") from None
    return config


def validate_state(d: Any, expected: ArenaConfig | None = None) -> ArenaGame:
    """Rebuild a game saved by :meth:`ArenaGame.to_dict`, checking every field
    first: its type, its range, and that everything adds up (each card,
    medal card and gym power card in exactly one place, trophies and medals
    conserved, the phase consistent with whose turn it is and what is asked).
    Raises :class:`StateDictError` naming the field (``game.positions[2]``)."""
    if not isinstance(d, dict):
        raise StateDictError(f"game: must be a dict, got {type(d).__name__}")
    f = _Fields(d)
    config = config_from_dict(f.get("config"), expected)
    box = config.box
    n, c, k = config.num_players, box.num_cards, len(box.medal_cards)
    s_max = box.num_spaces - 1
    game = ArenaGame(config=config, rng=rng_from_dict(f.get("rng")))
    game.characters = f.names("characters", f.listing("characters", n), box.character_named,
                              "character", "characters")  # fmt: skip
    game.forms = []
    for i, form in enumerate(f.listing("forms", n)):
        if form not in FORMS:
            f.fail(f"forms[{i}]", f"must be one of {', '.join(FORMS)}, got {short_repr(form, 60)}")
        game.forms.append(FORMS.index(form))
    game.positions = f.ints("positions", n, -1, s_max)
    game.trophies = f.ints("trophies", n, 0, box.trophies)
    game.bonus_trophies = f.ints("bonus_trophies", n, 0, box.trophies)
    medal_index = {m: i for i, m in enumerate(MEDALS)}
    game.medals = []
    for i, held in enumerate(f.listing("medals", n)):
        levels = f.names("medals", held, medal_index, "medal", f"medals[{i}]")
        if len(set(levels)) != len(levels):
            f.fail(f"medals[{i}]", "names a medal twice")
        game.medals.append([1 if level in levels else 0 for level in range(3)])
    game.powers = []
    for i, held in enumerate(f.listing("powers", n)):
        gyms = f.names("powers", held, box.gym_named, "gym", f"powers[{i}]")
        game.powers.append([gyms.count(g) for g in range(len(box.gyms))])
    game.lost_turns = f.ints("lost_turns", n, 0, 1)
    game.upside_down = f.bools("upside_down", n)
    game.dark = f.ints("dark", n, 0, box.dark_matter_turns + 1)
    game.first_turn = f.bools("first_turn", n)
    game.start_corner = f.ints("start_corner", n, -1, s_max)
    game.supply = f.integer("supply", 0, box.trophies)
    game.medal_supply = f.ints("medal_supply", 3, 0, max(box.medal_supply))
    game.gym_at = f.names("gym_at", f.listing("gym_at", len(box.corners)), box.gym_named, "gym",
                          "gym_at")  # fmt: skip
    game.gym_trophies = f.ints("gym_trophies", len(box.corners), 0, box.gym_trophies)
    game.gym_cards = f.ints("gym_cards", len(box.gyms), 0, box.gym_power_cards)
    game.card_holder = f.ints("card_holder", c, DISCARD, n - 1)
    game.card_space = f.ints("card_space", c, -1, s_max)
    game.defended = f.ints("defended", c, -1, n - 1)
    game.medal_stack = f.ints("medal_stack", None, 0, k - 1)
    game.medal_holder = f.ints("medal_holder", k, IN_STACK, n - 1)
    game.medal_space = f.ints("medal_space", k, -1, s_max)
    game.preset_first = f.integer("preset_first", -1, n - 1)
    game.first_player = f.integer("first_player", 0, n - 1)
    game.turn_seat = f.integer("turn_seat", 0, n - 1)
    game.rounds = f.integer("rounds", 0, config.max_rounds)
    game.phase = PHASE_NAMES.index(f.text("phase", PHASE_NAMES))
    game.actor = f.integer("actor", NO_PLAYER, n - 1)
    game.task = f.text("task", ("", *TASKS))
    game.task_args = f.ints("task_args", None, 0, max(c, n, box.num_spaces))
    game.steps_left = f.integer("steps_left", 0, 10_000)
    game.entered = f.boolean("entered")
    game.stopped = f.boolean("stopped")
    game.forced_target = f.integer("forced_target", -1, n - 1)
    game.move_total = f.integer("move_total", 0, 10_000)
    game.new_turns = f.integer("new_turns", 0, 10_000)
    game.roll_bonus = f.ints("roll_bonus", n, 0, 10_000)
    game.roll_gold = f.bools("roll_gold", n)
    game.roll_extra = f.ints("roll_extra", n, 0, 100)
    game.roll_cards = []
    for i, cards in enumerate(f.listing("roll_cards", n)):
        listed = f.listing("roll_cards", None, cards, f"roll_cards[{i}]")
        game.roll_cards.append(
            [
                f.integer("roll_cards", 0, k - 1, v, f"roll_cards[{i}][{j}]")
                for j, v in enumerate(listed)
            ]
        )
    game.ch_kind = f.text("ch_kind", CHALLENGE_KINDS)
    game.ch_item = f.integer("ch_item", -1, max(c, k) - 1)
    game.ch_defender = f.integer("ch_defender", -1, n - 1)
    game.ch_spent = f.ints("ch_spent", 2, 0, box.trophies)
    game.last_challenge = _last_challenge(f.get("last_challenge"), n, box)
    encounter = f.listing("last_encounter")
    if encounter and (
        len(encounter) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in encounter)
        or not (0 <= encounter[0] <= 8 and 1 <= encounter[1] <= 8)
    ):
        f.fail(
            "last_encounter",
            f"must be [] or [table 0-8, result 1-8], got {short_repr(encounter, 60)}",
        )
    game.last_encounter = list(encounter)
    game.roll_log = []
    for i, entry in enumerate(f.listing("roll_log")):
        if (
            not isinstance(entry, list)
            or len(entry) != 4
            or not isinstance(entry[1], str)
            or any(
                isinstance(v, bool) or not isinstance(v, int)
                for v in (entry[0], entry[2], entry[3])
            )
            or not (
                0 <= entry[0] < n and 2 <= entry[2] <= data.MAX_SIDES and 1 <= entry[3] <= entry[2]
            )
        ):
            f.fail(
                f"roll_log[{i}]",
                f"must be [seat, purpose, sides, result], got {short_repr(entry, 60)}",
            )
        game.roll_log.append(list(entry))
    game.log_start = f.integer("log_start", 0, 10**12)
    game.seen = f.ints("seen", n, game.log_start, game.log_start + len(game.roll_log))
    game.forced = f.ints("forced", None, 1, data.MAX_SIDES)
    game.rolls_made = f.integer("rolls_made", 0, 10**12)
    game.over = f.boolean("over")
    game.win_reason = f.text("win_reason", WIN_REASONS)
    game.winners_ = f.ints("winners", None, 0, n - 1)
    game.maneuvers_of = [[] for _ in range(n)]
    game.worlds_of = [[] for _ in range(n)]
    for card, holder in enumerate(game.card_holder):
        if holder >= 0:
            (game.worlds_of if box.cards[card].is_world else game.maneuvers_of)[holder].append(card)
    problems = consistency_problems(game)
    if problems:
        raise StateDictError(problems[0])
    return game


CHALLENGE_RECORD = ("challenger", "kind", "item", "defender", "dice", "modifier", "need",
                    "total", "success")  # fmt: skip
"""The fields of ``last_challenge``; a standard challenge adds DEFENCE_RECORD."""
DEFENCE_RECORD = ("defender_dice", "defender_modifier", "defender_total")
MAX_MODIFIER = 10_000
"""Bound on a saved roll modifier or challenge number (real ones are below 100)."""


def _last_challenge(last: Any, n: int, box: Box) -> dict[str, Any] | None:
    """The saved record of the last challenge (null before any), every field
    checked and its totals recomputed: the observer and the views read them."""
    if last is None:
        return None
    where = "game.last_challenge"
    last = require_dict(last, where)
    kind = require_choice(last.get("kind"), f"{where}.kind", CHALLENGE_KINDS[1:])
    standard = kind == "standard"
    require_dict(last, where, CHALLENGE_RECORD + (DEFENCE_RECORD if standard else ()))
    require_int(last["challenger"], f"{where}.challenger", 0, n - 1)
    items = len(box.medal_cards) if kind == "medal" else box.num_cards
    require_int(last["item"], f"{where}.item", 0, items - 1)
    against_player = kind in ("homeworld", "favourite", "standard")
    low = 0 if against_player else -1
    require_int(last["defender"], f"{where}.defender", low, n - 1 if against_player else -1)
    if last["defender"] == last["challenger"]:
        raise fail(f"{where}.defender", last["defender"], "a seat other than the challenger's")
    totals = {}
    for prefix in ("", "defender_") if standard else ("",):
        dice = require_list(last[f"{prefix}dice"], f"{where}.{prefix}dice")
        most = box.challenge_dice + 100  # roll_extra is at most 100
        if not 1 <= len(dice) <= most:
            raise fail(f"{where}.{prefix}dice", dice, f"a list of 1..{most} dice")
        require_ints(dice, f"{where}.{prefix}dice", len(dice), 1, data.MAX_SIDES)
        modifier = require_int(
            last[f"{prefix}modifier"], f"{where}.{prefix}modifier", -MAX_MODIFIER, MAX_MODIFIER
        )
        totals[prefix] = (max(dice) if kind == "medal" else sum(dice)) + modifier
    require_int(last["need"], f"{where}.need", -MAX_MODIFIER, MAX_MODIFIER)
    if last["total"] != totals[""] or isinstance(last["total"], bool):
        raise fail(f"{where}.total", last["total"], f"{totals['']} (the dice and the modifier)")
    if standard and (
        last["defender_total"] != totals["defender_"] or isinstance(last["defender_total"], bool)
    ):
        raise fail(
            f"{where}.defender_total",
            last["defender_total"],
            f"{totals['defender_']} (the defender's dice and modifier)",
        )
    success = totals[""] > totals["defender_"] if standard else totals[""] >= last["need"]
    require_choice(last["success"], f"{where}.success", (success,))
    return dict(last)


def consistency_problems(g: ArenaGame) -> list[str]:
    """Everything about ``g`` that does not add up, each naming its field (empty
    when all is well). The state dict check and the invariants share it."""
    box, n = g.box, g.num_players
    out: list[str] = []
    c = box.num_cards
    # maneuver and world cards: each in exactly one place
    items = g.space_item if g.space_item else None
    placed: dict[int, int] = {}
    for card in range(c):
        holder, space = g.card_holder[card], g.card_space[card]
        kind = box.cards[card].kind
        if holder == BOARD:
            if not 0 <= space < box.num_spaces or box.kind_of[space] != kind:
                out.append(f"game.card_space[{card}]: {box.cards[card].name} is on the board but "
                           f"space {space} is not a {kind} space")  # fmt: skip
            elif space in placed:
                out.append(f"game.card_space[{card}]: space {space} holds two cards")
            else:
                placed[space] = card
        elif space != -1:
            out.append(f"game.card_space[{card}]: a card off the board has space -1, got {space}")
        d = g.defended[card]
        if d != -1 and (kind != "world" or d != holder):
            out.append(f"game.defended[{card}]: only a world can be permanently defended, by its "
                       f"holder {holder}; got {d}")  # fmt: skip
    # medal cards: stack, board or a player
    stack = g.medal_stack
    if len(set(stack)) != len(stack):
        out.append("game.medal_stack: names a medal card twice")
    for k, holder in enumerate(g.medal_holder):
        space = g.medal_space[k]
        if (holder == IN_STACK) != (k in stack):
            out.append(f"game.medal_holder[{k}]: in the stack exactly when listed in medal_stack")
        if holder == ON_BOARD:
            if not 0 <= space < box.num_spaces or box.kind_of[space] not in ("maneuver", "world"):
                out.append(f"game.medal_space[{k}]: a medal card on the board lies on a "
                           f"maneuver or world space, got {space}")  # fmt: skip
            elif space in placed:
                out.append(f"game.medal_space[{k}]: space {space} holds two cards")
            else:
                placed[space] = c + k
        elif space != -1:
            out.append(f"game.medal_space[{k}]: a medal card off the board has space -1")
        if holder >= 0 and not box.medal_cards[k].extra_die:
            out.append(f"game.medal_holder[{k}]: only extra-die medal cards are held")
    space_item = [-1] * box.num_spaces
    for space, item in placed.items():
        space_item[space] = item
    if items is None:
        g.space_item = space_item
    elif items != space_item:
        out.append("game.space_item: does not match card_space and medal_space")
    # counts and conservation
    trophies = sum(g.trophies) + sum(g.bonus_trophies) + g.supply + sum(g.gym_trophies)
    if trophies != box.trophies:
        out.append(f"game.supply: trophies add up to {trophies}, the box has {box.trophies}")
    for level in range(3):
        held = sum(m[level] for m in g.medals)
        if held + g.medal_supply[level] != box.medal_supply[level]:
            total = held + g.medal_supply[level]
            out.append(f"game.medal_supply[{level}]: {MEDALS[level]} medals add up to "
                       f"{total}, the box has {box.medal_supply[level]}")  # fmt: skip
    if len(set(g.gym_at)) != len(g.gym_at):
        out.append("game.gym_at: names a gym twice")
    for gym in range(len(box.gyms)):
        held = sum(p[gym] for p in g.powers)
        want = box.gym_power_cards if gym in g.gym_at else 0
        if held + g.gym_cards[gym] != want:
            out.append(f"game.gym_cards[{gym}]: {box.gyms[gym].name} power cards add up to "
                       f"{held + g.gym_cards[gym]}, should be {want}")  # fmt: skip
    if len(set(g.characters)) != n:
        out.append("game.characters: two players have the same character")
    for seat in range(n):
        invazorz = box.characters[g.characters[seat]].invazorz
        if invazorz != (g.forms[seat] == INVAZORZ):
            out.append(f"game.forms[{seat}]: {FORMS[g.forms[seat]]} does not fit character "
                       f"{box.characters[g.characters[seat]].name}")  # fmt: skip
        if g.start_corner[seat] != -1 and g.start_corner[seat] not in box.corners:
            out.append(f"game.start_corner[{seat}]: must be -1 or a corner {box.corners}")
        if g.upside_down[seat] != (g.lost_turns[seat] > 0):
            out.append(f"game.upside_down[{seat}]: a fingerboard is upside down exactly while "
                       "a turn is to be lost")  # fmt: skip
        if len(set(g.roll_cards[seat])) != len(g.roll_cards[seat]) or any(
            g.medal_holder[k] != seat for k in g.roll_cards[seat]
        ):
            out.append(f"game.roll_cards[{seat}]: medal dice added must be held, once each")
    out += _phase_problems(g)
    return out


def _phase_problems(g: ArenaGame) -> list[str]:
    """Whose turn it is and what is asked must fit together."""
    box, n = g.box, g.num_players
    out = []
    if g.over != (g.phase == OVER):
        return ["game.over: must be true exactly when the phase is 'over'"]
    if g.over:
        if not g.winners_ or g.win_reason == "":
            out.append("game.winners: a finished game names its winners and win_reason")
        return out
    if g.winners_ or g.win_reason:
        out.append("game.winners: empty (and win_reason '') while the game goes on")
    if not 0 <= g.actor < n:
        return [f"game.actor: must be a seat 0..{n - 1} while the game goes on, got {g.actor}"]
    if g.rounds >= g.config.max_rounds:
        out.append(f"game.rounds: must be below max_rounds={g.config.max_rounds} while playing")
    corner_phase = g.phase == CORNER
    for seat, pos in enumerate(g.positions):
        if pos == -1 and not corner_phase:
            out.append(f"game.positions[{seat}]: every fingerboard is on the board after setup")
    if corner_phase:
        if g.positions[g.actor] != -1 or any(p == -1 for p in g.positions[: g.actor]):
            out.append("game.actor: the corner chooser is the first seat without a position")
        return out
    is_task = g.phase in PICK_PHASES
    if is_task != bool(g.task) or (is_task and TASKS[g.task].phase != g.phase):
        out.append(f"game.task: {short_repr(g.task)} does not fit phase {PHASE_NAMES[g.phase]}")
    elif is_task and g.task in ("slide_return", "wormhole_place") and len(g.task_args) != 1:
        out.append(f"game.task_args: task {g.task} needs one argument")
    out += _turn_flag_problems(g)
    if g.phase == DEFEND_SPEND:
        if g.ch_kind != "standard" or g.actor != g.ch_defender:
            out.append("game.actor: the defender of a standard challenge decides its defence")
    elif g.actor != g.turn_seat:
        out.append(f"game.actor: in phase {PHASE_NAMES[g.phase]} the player on turn decides")
    challenging = g.phase in (CHALLENGE_SPEND, DEFEND_SPEND)
    if challenging != bool(g.ch_kind):
        out.append("game.ch_kind: a challenge is under way exactly in the challenge phases")
    elif challenging:
        item_ok = 0 <= g.ch_item < (len(box.medal_cards) if g.ch_kind == "medal" else box.num_cards)
        player_kind = g.ch_kind in ("homeworld", "favourite", "standard")
        if not item_ok or player_kind != (g.ch_defender >= 0) or g.ch_defender == g.turn_seat:
            out.append("game.ch_item: the challenge's card and defender do not fit its kind")
    if not out:
        g._legal = g._mask = None
        if not g.legal_actions():
            out.append(
                f"game.phase: {PHASE_NAMES[g.phase]} leaves player_{g.actor} no legal action"
            )
    return out


AFTER_MOVING = (ACTION, CHALLENGE_SPEND, DEFEND_SPEND)
"""The phases in which a player may have stopped early or been sent to a target."""


def _turn_flag_problems(g: ArenaGame) -> list[str]:
    """The flags of a move under way must fit the phase: ``stopped`` (set by the
    stop move, which ends the movement) and ``forced_target`` (set by
    Space-Time 3-4, which goes straight to the action) hold only once moving is
    over, and a move with steps left is still in its movement phases."""
    out = []
    after = g.phase in AFTER_MOVING
    if g.stopped and (not after or not g.entered or g.steps_left or g.forced_target >= 0):
        out.append(
            "game.stopped: true only after a move stopped early (phase action or a "
            "challenge, entered, no steps left, no forced target)"
        )
    if g.forced_target >= 0 and (not after or g.forced_target == g.turn_seat):
        out.append(
            "game.forced_target: a player other than the one on turn, only in phase action "
            "or a challenge"
        )
    if g.steps_left and g.phase not in (MOVE_SPEND, MOVE):
        out.append("game.steps_left: steps are left only while moving (move_spend, move)")
    return out


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
    "consistency_problems",
    "new_game",
    "validate_state",
]
