"""The compiled Skybirds engine behind the Python interface of :mod:`.rules`.

``native/skybirds_engine.hpp`` plays the rules of ``rules.py`` decision for
decision (the same legal actions, observations, scores and generator draws;
``tests/skybirds/test_skybirds_native.py`` compares the two at every step of
thousands of random games). :class:`NativeSkybirdsGame` is a
:class:`~flockgym.envs.core.game.GameEngine` over it: the env uses it with the
option ``engine="compiled"``.

Only the hot path is compiled: legal actions, applying them, the observation
vector, scores. Saving and loading go through the Python engine (a state is
read and checked by :func:`.state.read_state`, then handed over as plain
fields), and so do views, text and scenario deals, so the two engines share
one reading of every saved game. Where the extension cannot be imported (no
compiler when the package was installed) :func:`native_available` says so
once (:mod:`flockgym.envs.core.compiled`) and the env runs the Python engine.
"""

from __future__ import annotations

import copy
import dataclasses
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
from .actions import ActionLayout
from .rules import Phase, SkybirdsConfig, SkybirdsGame, Squadron, Step

__all__ = ["ENGINES", "NativeHeuristicBot", "NativeSkybirdsGame", "native_available"]


def native_available() -> bool:
    """Whether the compiled engine can be used; the first time it cannot, a
    warning says why and that the Python engine runs instead."""
    return compiled_available("skybirds")


def config_fields(config: SkybirdsConfig) -> dict[str, Any]:
    """What the compiled engine needs of a config (the Aerodrome resolved to numbers)."""
    return {
        "num_players": config.num_players,
        "tokens": [
            {
                "ribbon": token.ribbon,
                "vp_front": token.vp_front,
                "vp_back": token.vp_back,
                "dogfight_bit": config.dogfight_bits[i],
                "swap_cards": config.swap_cards[i],
                "armistice": token.bonus == "armistice",
                "tiebreaker": token.bonus == "tiebreaker",
                "prerequisites": list(config.prerequisite_index[i]),
                "needs_all": config.needs_all[i],
            }
            for i, token in enumerate(config.tokens)
        ],
        "max_campaigns": config.max_campaigns,
        "armistice_ends_dogfight": config.armistice_ends == "dogfight",
        "one_token": config.tokens_per_turn == "one",
        "max_vp": float(config.max_vp),
        "max_medallions": config.max_medallions,
    }


_TEMPLATES = EngineTemplates("skybirds", "Skybirds", config_fields)
"""An empty compiled engine per config, copied for each game (a config is read once)."""


def _squadron_fields(squadron: Squadron | None) -> tuple[Any, ...] | None:
    if squadron is None:
        return None
    return (
        squadron.player,
        list(squadron.cards),
        squadron.size,
        squadron.value,
        squadron.medallions,
        list(squadron.tokens),
        squadron.wild,
        squadron.declare,
    )


def _squadron_of(fields: tuple[Any, ...] | None) -> Squadron | None:
    if fields is None:
        return None
    player, cards, size, value, medallions, tokens, wild, declare = fields
    return Squadron(player, tuple(cards), size, value, medallions, tuple(tokens), wild, declare)


_COPIED = (
    "campaign", "actor", "squadron_size", "last_player", "passes", "position", "garros_due",
    "armistice_by", "over", "truncated", "pend_wild", "pend_token", "pend_target",
    "campaign_over", "dogfight_over", "first_leader", "last_winner",
)  # fmt: skip
"""Plain fields with the same name and value in both engines."""
_LISTS = (
    "hands", "box", "played", "passed", "finish", "tokens", "plus_one", "fractional", "pool",
    "pend_tokens", "pend_cards", "pre_queue", "pre_used", "takes", "trade_queue",
)  # fmt: skip
"""List fields (nested for hands and tokens), copied as lists."""


def fields_of(game: SkybirdsGame) -> dict[str, Any]:
    """The plain fields of a Python engine's state, as the compiled engine loads them."""
    out: dict[str, Any] = {name: getattr(game, name) for name in _COPIED}
    for name in _LISTS:
        value = getattr(game, name)
        out[name] = [list(v) for v in value] if name in ("hands", "tokens") else list(value)
    out["phase"] = int(game.phase)
    out["step"] = int(game.step)
    out["table"] = _squadron_fields(game.table)
    out["last_squadron"] = _squadron_fields(game.last_squadron)
    out["rng"] = game.rng.bit_generator.state
    return out


def _set_plain_fields(game: SkybirdsGame, fields: dict[str, Any]) -> None:
    """Set the fields that are not lists (phase, step and squadrons rebuilt)."""
    for name in _COPIED:
        setattr(game, name, fields[name])
    game.phase = Phase(fields["phase"])
    game.step = Step(fields["step"])
    game.table = _squadron_of(fields["table"])
    game.last_squadron = _squadron_of(fields["last_squadron"])


def game_of(config: SkybirdsConfig, fields: dict[str, Any]) -> SkybirdsGame:
    """A Python engine in the state of the compiled engine's fields."""
    game = SkybirdsGame(config=config, rng=generator_in_state(fields["rng"]))
    _set_plain_fields(game, fields)
    for name in _LISTS:
        setattr(game, name, fields[name])
    game._recount()
    return game


_READABLE = frozenset(f.name for f in dataclasses.fields(SkybirdsGame)) - {"config", "rng"} | {
    "left"
}
"""The Python engine's state attributes a compiled game answers too (as copies)."""


def _refresh(game: SkybirdsGame, fields: dict[str, Any]) -> None:
    """Bring ``game`` to the state of the compiled engine's ``fields``, bumping
    the version counters (hands, tokens, finishing order) of what changed."""
    _set_plain_fields(game, fields)
    for name in ("passed", "pend_tokens", "pend_cards", "pre_queue", "takes", "trade_queue"):
        setattr(game, name, fields[name])
    hands_moved = fields["played"] != game.played or fields["box"] != game.box
    game.played, game.box = fields["played"], fields["box"]
    for seat, hand in enumerate(fields["hands"]):
        if hands_moved or hand != game.hands[seat]:
            game.hands[seat] = hand
            game.left[seat] = sum(hand)
            game.hand_versions[seat] += 1
    for seat in range(game.config.num_players):
        if (
            fields["tokens"][seat] != game.tokens[seat]
            or fields["plus_one"][seat] != game.plus_one[seat]
            or fields["fractional"][seat] != game.fractional[seat]
            or fields["pre_used"][seat] != game.pre_used[seat]
        ):
            game.tokens[seat] = fields["tokens"][seat]
            game.plus_one[seat] = fields["plus_one"][seat]
            game.fractional[seat] = fields["fractional"][seat]
            game.pre_used[seat] = fields["pre_used"][seat]
            game._tokens_changed(seat)
    if fields["pool"] != game.pool:
        game.pool = fields["pool"]
        game._tokens_changed(0)
    if fields["finish"] != game.finish:
        game.finish = fields["finish"]
        game.finish_epoch += 1
    game.rng.bit_generator.state = fields["rng"]
    game._changed()
    game._turn_sets = game._moves = None


def _is_scenario(scenario: dict[str, Any]) -> bool:
    """Whether ``SkybirdsGame.new``'s keyword arguments set anything up."""
    given = any(scenario.get(key) for key in ("hands", "tokens", "plus_one", "fractional"))
    return given or scenario.get("campaign", 1) != 1 or scenario.get("leader") is not None


class NativeSkybirdsGame(DumpedCompiledGame):
    """A Great War played by the compiled engine (see the module docstring)."""

    templates = _TEMPLATES
    reference = SkybirdsGame
    fields_of = staticmethod(fields_of)
    game_of = staticmethod(game_of)

    def __init__(self, config: SkybirdsConfig, engine: Any) -> None:
        super().__init__(config, engine)
        self.layout = ActionLayout(config.num_players, config.tokens)
        self._mirror: SkybirdsGame | None = None
        self.bind_hot_calls("is_truncated")

    # -- construction and conversion --

    @classmethod
    def new(
        cls, config: SkybirdsConfig, rng: np.random.Generator, **scenario: Any
    ) -> NativeSkybirdsGame:
        """A dealt Great War from ``rng`` (advanced as the Python engine's deal
        advances it); a scenario is dealt by the Python engine and handed over."""
        if _is_scenario(scenario):
            return cls.from_python(SkybirdsGame.new(config, rng, **scenario))
        config.check()
        engine = _TEMPLATES.empty(config)
        engine.new_game(rng.bit_generator.state)
        rng.bit_generator.state = engine.rng_state()
        return cls(config, engine)

    def mirror(self) -> SkybirdsGame:
        """A Python engine kept in this state for views and text (read it, never
        play it): brought up to date on each call, it bumps the version counters
        of only what changed, so the view caches of ``observer.py`` keep what
        did not (a fresh copy per view would rebuild them all)."""
        fields = self.engine.dump()
        mirror = self._mirror
        if mirror is None:
            mirror = self._mirror = game_of(self.config, fields)
            return mirror
        _refresh(mirror, fields)
        return mirror

    def __getattr__(self, name: str) -> Any:
        """The Python engine's state attributes (``hands``, ``table``, ``tokens``,
        ...), read from the mirror and copied: reading works as on the Python
        engine; changing what is returned changes nothing here."""
        if name in _READABLE:
            return copy.deepcopy(getattr(self.mirror(), name))
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- GameEngine --

    def _refusal(self, action: Any) -> ValueError:
        """The Python engine's error for an action it refuses."""
        engine = self.engine
        if engine.is_over() or engine.is_truncated():
            return ValueError("the Great War is over; no action can be applied")
        actor = engine.current_player()
        legal_text = ", ".join(self.layout.to_string(actor, a) for a in engine.legal_actions())
        return ValueError(f"illegal action {action} for seat {actor}; legal actions: {legal_text}")

    def is_truncated(self) -> bool:
        return bool(self.engine.is_truncated())

    @property
    def truncated(self) -> bool:
        return bool(self.engine.is_truncated())


class NativeHeuristicBot(CompiledHeuristicBot):
    """:class:`~.bots.SkybirdsHeuristicBot` compiled (``native/skybirds_bot.hpp``):
    from the same seed, the same choice at every decision (ties broken by the
    same draws), read straight from a compiled engine instead of a view.
    ``tests/skybirds/test_skybirds_native.py`` plays both side by side."""

    game = "skybirds"
    label = "Skybirds"

    def extra_state(self) -> dict[str, Any]:
        """The planned steps of a token move, kept by copies and pickles."""
        return {"plan": list(self.bot.plan)}

    def set_extra_state(self, state: dict[str, Any]) -> None:
        self.bot.plan = state["plan"]
