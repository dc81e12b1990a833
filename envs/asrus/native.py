"""The compiled Asrus engine and heuristic bot behind the Python interface of :mod:`.rules`.

``native/asrus_engine.hpp`` plays the rules of ``rules.py`` decision for
decision (the same legal actions, observations, scores, saved states and
generator draws; ``tests/asrus/test_asrus_native.py`` compares the two at every
step of thousands of random games), and ``native/asrus_bot.hpp`` makes the
choices of :class:`~.bots.AsrusHeuristicBot`. :class:`NativeAsrusGame` is a
:class:`~flockgym.envs.core.game.GameEngine` over the engine: the env uses it
with the option ``engine="compiled"`` (the default).

Only the hot path is compiled: legal actions and masks, committing plays and
resolving turns (deals and lotteries included), the observation vector,
scores. Saving and loading go through the Python engine (a state is read and
checked by :func:`.rules.validate_state`, then handed over as plain fields),
and so do views, text and scenario deals, so the two engines share one reading
of every saved game. Where the extension cannot be imported (no compiler when
the package was installed) :func:`native_available` says so once
(:mod:`flockgym.envs.core.compiled`) and the env runs the Python engine.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..core.compiled import (
    ENGINES,
    CompiledHeuristicBot,
    DumpedCompiledGame,
    EngineTemplates,
    compiled_available,
)
from ..core.rng import generator_in_state
from .actions import action_text, encode_action, parse_action
from .rules import (
    OUTCOME_KINDS,
    PLAYS,
    AsrusConfig,
    AsrusGame,
    LotteryResult,
    Outcome,
    Play,
    TurnResult,
    full_number_pile,
)

__all__ = ["ENGINES", "NativeAsrusGame", "NativeHeuristicBot", "native_available"]


def native_available() -> bool:
    """Whether the compiled engine can be used; the first time it cannot, a
    warning says why and that the Python engine runs instead."""
    return compiled_available("asrus")


def config_fields(config: AsrusConfig) -> dict[str, Any]:
    """What the compiled engine needs of a config (None read as -1, modes as flags)."""
    return {
        "num_players": config.num_players,
        "hand_size": config.hand_size,
        "specials_per_player": config.specials_per_player,
        "starting_points": config.starting_points,
        "rounds": -1 if config.rounds is None else config.rounds,
        "target": -1 if config.target is None else config.target,
        "elimination": config.elimination,
        "jokers": config.jokers,
        "number_counts": full_number_pile(config),
        "retrogrades_cancel": config.retrogrades == "cancel",
        "deposit_farthest": config.retrograde_deposit == "farthest",
        "majority_ties_all": config.majority_ties == "all",
        "fixed_destination": config.fixed_destination or 0,
        "max_hand_size": config.max_hand_size,
        "special_deck_size": config.special_deck_size,
    }


_TEMPLATES = EngineTemplates("asrus", "Asrus", config_fields)
"""An empty compiled engine per config, copied for each game (a config is read once)."""


class _Layout:
    """Asrus's action strings (one fixed space, the same for every seat)."""

    @staticmethod
    def to_string(seat: int, action: int) -> str:
        return action_text(action)

    @staticmethod
    def from_string(seat: int, text: str) -> int:
        return parse_action(text)


def _action_of(play: Play | None) -> int | None:
    return None if play is None else encode_action(play.number, play.power, play.joker)


def _result_fields(result: TurnResult | None) -> tuple[Any, ...] | None:
    if result is None:
        return None
    return (
        result.destination,
        [_action_of(p) for p in result.plays],
        OUTCOME_KINDS.index(result.outcome.kind),
        result.outcome.winner,
        result.outcome.distance,
        list(result.deltas),
        result.deposit_before,
        result.deposit_after,
        result.blackhole,
    )


def _result_of(fields: tuple[Any, ...] | None) -> TurnResult | None:
    if fields is None:
        return None
    destination, plays, kind, winner, distance, deltas, before, after, blackhole = fields
    return TurnResult(
        destination,
        tuple(PLAYS[a] for a in plays),
        Outcome(OUTCOME_KINDS[kind], winner, distance),
        tuple(deltas),
        before,
        after,
        blackhole,
    )


def _lottery_fields(lottery: LotteryResult | None) -> tuple[Any, ...] | None:
    if lottery is None:
        return None
    return ([list(d.items()) for d in lottery.draws], list(lottery.winners), lottery.amount)


def _lottery_of(fields: tuple[Any, ...] | None) -> LotteryResult | None:
    if fields is None:
        return None
    draws, winners, amount = fields
    return LotteryResult([dict(pairs) for pairs in draws], tuple(winners), amount)


_LISTS = ("points", "number_pile", "special_pile", "revealed")
_PLAIN = (
    "destination", "destination_card", "deposit", "table_points", "round", "turn",
    "committed", "over",
)  # fmt: skip


def fields_of(game: AsrusGame) -> dict[str, Any]:
    """The plain fields of a Python engine's state, as the compiled engine loads them."""
    out: dict[str, Any] = {name: getattr(game, name) for name in _PLAIN}
    for name in _LISTS:
        out[name] = list(getattr(game, name))
    out["hands"] = [list(h) for h in game.hands]
    out["specials"] = [list(s) for s in game.specials]
    out["pending"] = [_action_of(p) for p in game.pending]
    out["last_result"] = _result_fields(game.last_result)
    out["last_lottery"] = _lottery_fields(game.last_lottery)
    out["rng"] = game.rng.bit_generator.state
    return out


def game_of(config: AsrusConfig, fields: dict[str, Any]) -> AsrusGame:
    """A Python engine in the state of the compiled engine's fields."""
    game = AsrusGame(
        config=config,
        rng=generator_in_state(fields["rng"]),
        hands=fields["hands"],
        specials=fields["specials"],
        points=fields["points"],
        number_pile=fields["number_pile"],
        special_pile=fields["special_pile"],
        destination=fields["destination"],
        destination_card=fields["destination_card"],
        deposit=fields["deposit"],
        table_points=fields["table_points"],
        round=fields["round"],
        turn=fields["turn"],
        pending=[None if a is None else PLAYS[a] for a in fields["pending"]],
        committed=fields["committed"],
        revealed=fields["revealed"],
        last_result=_result_of(fields["last_result"]),
        last_lottery=_lottery_of(fields["last_lottery"]),
        over=fields["over"],
    )
    return game


_READABLE = frozenset(
    {
        "hands", "specials", "points", "number_pile", "special_pile", "destination",
        "destination_card", "deposit", "table_points", "round", "turn", "pending",
        "revealed", "last_result", "last_lottery",
    }
)  # fmt: skip
"""The Python engine's state attributes a compiled game answers too (as copies)."""


def _is_scenario(scenario: dict[str, Any]) -> bool:
    """Whether ``AsrusGame.new``'s keyword arguments set anything up."""
    return any(scenario.get(key) for key in ("hands", "specials", "points", "deposit")) or (
        scenario.get("destination") is not None
    )


class NativeAsrusGame(DumpedCompiledGame):
    """A game of Asrus played by the compiled engine (see the module docstring)."""

    templates = _TEMPLATES
    reference = AsrusGame
    layout = _Layout()
    fields_of = staticmethod(fields_of)
    game_of = staticmethod(game_of)

    def __init__(self, config: AsrusConfig, engine: Any) -> None:
        super().__init__(config, engine)
        self.bind_hot_calls("is_truncated", "legal_actions_for")

    @classmethod
    def new(cls, config: AsrusConfig, rng: np.random.Generator, **scenario: Any) -> NativeAsrusGame:
        """A dealt game from ``rng`` (advanced as the Python engine's deal
        advances it); a scenario is dealt by the Python engine and handed over."""
        if _is_scenario(scenario):
            return cls.from_python(AsrusGame.new(config, rng, **scenario))
        engine = _TEMPLATES.empty(config)
        engine.new_game(rng.bit_generator.state)
        rng.bit_generator.state = engine.rng_state()
        return cls(config, engine)

    def mirror(self) -> AsrusGame:
        """A Python engine in this state, for views and text (read it, never play it)."""
        return self.to_python()

    def __getattr__(self, name: str) -> Any:
        """The Python engine's state attributes (``hands``, ``points``,
        ``last_result``, ...), read from a Python engine in this state: reading
        works as on the Python engine; changing what is returned changes
        nothing here."""
        if name in _READABLE:
            return copy.deepcopy(getattr(self.mirror(), name))
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- GameEngine --

    @property
    def committed(self) -> int:
        """How many seats have committed this turn (they commit in seat order)."""
        return int(self.engine.committed())

    def legal_actions_for(self, seat: int) -> list[int]:
        """What ``seat`` may commit this turn (all seats choose at once)."""
        return list(self.engine.legal_actions_for(seat))

    def legal_masks(self) -> np.ndarray:
        """Every seat's legal-action mask for this turn, shape (n, 195), int8."""
        return np.stack([self.engine.seat_mask(seat) for seat in range(self.num_players)])

    def is_truncated(self) -> bool:
        return False

    def _refusal(self, action: Any) -> ValueError:
        """The Python engine's error for an action it refuses."""
        seat = self.engine.current_player()
        legal = [action_text(a) for a in self.engine.legal_actions()]
        return ValueError(f"illegal Asrus action {action} for seat {seat}; legal: {legal}")


class NativeHeuristicBot(CompiledHeuristicBot):
    """:class:`~.bots.AsrusHeuristicBot` compiled (``native/asrus_bot.hpp``):
    from the same seed, the same choice at every decision (its weighted draw
    from the same generator), read straight from a compiled engine instead of
    a view. ``tests/asrus/test_asrus_native.py`` plays both side by side."""

    game = "asrus"
    label = "Asrus"
