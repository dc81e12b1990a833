"""Saved Arena games: reading a state dict back, field by field.

A state dict comes from disk or from a user, so :func:`validate_state` checks
every field (type, range) and then that everything adds up
(:func:`consistency_problems`: each card, medal card and gym power card in
exactly one place, trophies and medals conserved, the phase consistent with
whose turn it is and what is asked) before the game is used; each problem is a
:class:`StateDictError` naming ``game.<field>``. Writing is
:meth:`ArenaGame.to_dict` in ``rules.py``.

Layering: this module sits above the rules chapters (it asks :mod:`.setup`
who may wish for what) and below the engine, ``rules.py``, which calls it for
:meth:`ArenaGame.from_dict` and :meth:`ArenaGame.invariant_violations`; it
knows the engine's class only for type checking.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, TypeVar

from ..core.errors import StateDictError
from ..core.game import NO_PLAYER
from ..core.rng import rng_from_dict
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
from .challenges import CHALLENGE_KINDS
from .config import ArenaConfig
from .data import FORMS, INVAZORZ, MEDALS, Box
from .encounters import TASKS
from .phases import (
    ACTION,
    BOARD,
    BOX,
    CHALLENGE_SPEND,
    CORNER,
    DEFEND_SPEND,
    DISCARD,
    IN_STACK,
    MOVE,
    MOVE_SPEND,
    ON_BOARD,
    OVER,
    PHASE_NAMES,
    PICK_PHASES,
    WISH,
)
from .setup import wish_pool

if TYPE_CHECKING:
    from .rules import ArenaGame

Game = TypeVar("Game", bound="ArenaGame")

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


def validate_state(game_type: type[Game], d: Any, expected: ArenaConfig | None = None) -> Game:
    """Rebuild a game saved by :meth:`ArenaGame.to_dict`, checking every field
    first: its type, its range, and that everything adds up (each card,
    medal card and gym power card in exactly one place, trophies and medals
    conserved, the phase consistent with whose turn it is and what is asked).
    Raises :class:`StateDictError` naming the field (``game.positions[2]``).

    ``game_type`` is the engine class to build (:meth:`ArenaGame.from_dict`
    passes itself): the engine in ``rules.py`` reads saved games with this
    module, so this module does not import it back."""
    if not isinstance(d, dict):
        raise StateDictError(f"game: must be a dict, got {type(d).__name__}")
    f = _Fields(d)
    config = config_from_dict(f.get("config"), expected)
    box = config.box
    n, c, k = config.num_players, box.num_cards, len(box.medal_cards)
    s_max = box.num_spaces - 1
    game = game_type(config=config, rng=rng_from_dict(f.get("rng")))
    game.characters = _optional_characters(f, "characters", n, box)
    game.wishes = _optional_characters(f, "wishes", n, box)
    game.forms = []
    for i, form in enumerate(f.listing("forms", n)):
        if form is not None and form not in FORMS:
            f.fail(f"forms[{i}]", f"must be one of {', '.join(FORMS)} or null (no character "
                   f"yet), got {short_repr(form, 60)}")  # fmt: skip
        game.forms.append(-1 if form is None else FORMS.index(form))
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
    game.worlds_won = f.ints("worlds_won", n, 0, 10**9)
    game.start_corner = f.ints("start_corner", n, -1, s_max)
    game.supply = f.integer("supply", 0, box.trophies)
    game.medal_supply = f.ints("medal_supply", 3, 0, max(box.medal_supply))
    gym_at = f.listing("gym_at")
    if len(gym_at) not in (0, len(box.corners)):
        f.fail("gym_at", f"must list {len(box.corners)} gyms, one per corner, or none before "
               f"the board is dealt, got {len(gym_at)}")  # fmt: skip
    game.gym_at = f.names("gym_at", gym_at, box.gym_named, "gym", "gym_at")
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
                0 <= entry[0] < n and 2 <= entry[2] <= box.max_sides and 1 <= entry[3] <= entry[2]
            )
        ):
            f.fail(
                f"roll_log[{i}]",
                f"must be [seat, purpose, sides 2..{box.max_sides} (this box's dice), result "
                f"1..sides], got {short_repr(entry, 60)}",
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


def _optional_characters(f: _Fields, key: str, n: int, box: Box) -> list[int]:
    """A list of n character names or nulls (-1: no character, no wish yet)."""
    out = []
    for i, name in enumerate(f.listing(key, n)):
        if name is None:
            out.append(-1)
        elif not isinstance(name, str) or name.lower() not in box.character_named:
            f.fail(f"{key}[{i}]", f"{short_repr(name, 60)} is not a character of the box (or null)")
        else:
            out.append(box.character_named[name.lower()])
    return out


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
    chosen = [c for c in g.characters if c >= 0]
    if len(set(chosen)) != len(chosen):
        out.append("game.characters: two players have the same character")
    out += _wish_problems(g)
    out += _deal_problems(g)
    for seat in range(n):
        # Whether or not the seat has its character yet (the wish phase): these
        # hold at every moment of a game, so a loaded state keeps them as it plays.
        if g.upside_down[seat] != (g.lost_turns[seat] > 0):
            out.append(f"game.upside_down[{seat}]: a fingerboard is upside down exactly while "
                       "a turn is to be lost")  # fmt: skip
        if len(set(g.roll_cards[seat])) != len(g.roll_cards[seat]) or any(
            g.medal_holder[k] != seat for k in g.roll_cards[seat]
        ):
            out.append(f"game.roll_cards[{seat}]: medal dice added must be held, once each")
        if g.characters[seat] < 0:
            continue
        invazorz = box.characters[g.characters[seat]].invazorz
        if g.forms[seat] < 0 or invazorz != (g.forms[seat] == INVAZORZ):
            form = FORMS[g.forms[seat]] if g.forms[seat] >= 0 else None
            out.append(f"game.forms[{seat}]: {form} does not fit character "
                       f"{box.characters[g.characters[seat]].name}")  # fmt: skip
        if g.worlds_won[seat] < len(g.worlds_of[seat]):
            out.append(f"game.worlds_won[{seat}]: fewer worlds won than the "
                       f"{len(g.worlds_of[seat])} held")  # fmt: skip
        if g.start_corner[seat] != -1 and g.start_corner[seat] not in box.corners:
            out.append(f"game.start_corner[{seat}]: must be -1 or a corner {box.corners}")
    out += _phase_problems(g)
    return out


def _deal_problems(g: ArenaGame) -> list[str]:
    """The board is dealt when the last character is given: undealt exactly
    during the wishes, and then nothing is on it (the cards in the box, the
    medal cards in box order, no gym power card held)."""
    wishing = g.phase == WISH and not g.over
    if wishing != (not g.gym_at):
        return ["game.gym_at: the board is dealt (its gyms on the corners) exactly when "
                "the last character is given"]  # fmt: skip
    if not g.gym_at and (
        any(h != BOX for h in g.card_holder)
        or g.medal_stack != list(range(len(g.box.medal_cards)))
        or any(any(p) for p in g.powers)
    ):
        return ["game.gym_at: before the board is dealt every card is in the box and the "
                "medal cards are in box order"]  # fmt: skip
    return []


def _wish_problems(g: ArenaGame) -> list[str]:
    """Setup's wishes: only in phase wish, only by seats without a character (in
    seat order up to the actor), each for a character it may wish for."""
    out: list[str] = []
    wishing = g.phase == WISH and not g.over
    if not wishing:
        if any(c < 0 for c in g.characters):
            out.append("game.characters: every seat has a character after setup's wishes")
        if any(w >= 0 for w in g.wishes):
            out.append("game.wishes: wishes are kept only during setup's wishes")
        return out
    actor = g.actor
    if not 0 <= actor < g.num_players or g.characters[actor] >= 0 or g.wishes[actor] >= 0:
        return ["game.actor: the wisher is a seat without a character or a wish"]
    for seat, char in enumerate(g.wishes):
        waiting = g.characters[seat] < 0
        if (char >= 0) != (waiting and seat < actor):
            out.append(f"game.wishes[{seat}]: the seats without a character wish in seat "
                       f"order: before the actor each has wished, from it on none has")  # fmt: skip
        elif char >= 0 and char not in wish_pool(g, seat):
            out.append(f"game.wishes[{seat}]: {g.box.characters[char].name} is taken or not "
                       "of the seat's form")  # fmt: skip
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
    corner_phase = g.phase in (CORNER, WISH)
    for seat, pos in enumerate(g.positions):
        if pos == -1 and not corner_phase:
            out.append(f"game.positions[{seat}]: every fingerboard is on the board after setup")
    if g.phase == WISH:
        return out
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
        g._forget_legal()
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
