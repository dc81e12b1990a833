"""The compiled Astrobirdz engine behind the Python interface of :mod:`.rules`.

``native/astrobirdz_engine.hpp`` plays the rules of ``rules.py`` decision for
decision, every rule card, Berzerkerbird power and option included (the same
legal actions, observations, scores and generator draws;
``tests/astrobirdz/test_astrobirdz_native.py`` compares the two at every step of
thousands of random games). :class:`NativeAstrobirdzGame` is a
:class:`~flockgym.envs.core.game.GameEngine` over it: the env uses it with the
option ``engine="compiled"``.

Only the hot path is compiled: legal actions, applying them, the observation
vector, scores. The 54 rule cards are read from :mod:`.data` (each card's
:class:`~.data.Effect` is handed over as plain fields), so a house rule is still
one row there. Saving and loading go through the Python engine (a state is read
and checked by :func:`.state.validate_state_dict`, then handed over as plain
fields), and so do views, text and scenario deals, so the two engines share one
reading of every saved game. Where the extension cannot be imported (no
compiler when the package was installed) :func:`native_available` says so once
(:mod:`flockgym.envs.core.compiled`) and the env runs the Python engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.compiled import (
    ENGINES,
    DumpedCompiledGame,
    EngineTemplates,
    compiled_available,
    require_compiled,
)
from ..core.rng import generator_in_state, make_rng
from .actions import ActionLayout
from .data import NO_RULE, Effect
from .rules import AstrobirdzConfig, AstrobirdzGame, Phase, TurnScore, check_scenario

__all__ = ["ENGINES", "NativeAstrobirdzGame", "NativeHeuristicBot", "native_available"]


def native_available() -> bool:
    """Whether the compiled engine can be used; the first time it cannot, a
    warning says why and that the Python engine runs instead."""
    return compiled_available("astrobirdz")


_POINT_KINDS = {"colour": 0, "number": 1, "trump": 2}
_PASS_RIGHT = {"": 0, "lowest": 1, "highest": 2}
_CHOOSERS = {"": 0, "dealer": 1, "youngest": 2, "oldest": 3, "lowest_berzerkerbird": 4}
_PARITY = {"": 0, "even": 1, "odd": 2}


def effect_fields(effect: Effect) -> dict[str, Any]:
    """A rule card's :class:`~.data.Effect` as the compiled engine reads it
    (names of kinds as small numbers; every other field as it is)."""
    parity_kind, parity_points = effect.parity_bonus
    return {
        "card_points": [(_POINT_KINDS[k], what, pts) for k, what, pts in effect.card_points],
        "trump_change_numbers": sorted(effect.trump_change_numbers),
        "trump_change_to": effect.trump_change_to,
        "values": list(effect.values),
        "protected": sorted(effect.protected),
        "protected_beat_trump": effect.protected_beat_trump,
        "eights_beat_nines": effect.eights_beat_nines,
        "extra_draws": effect.extra_draws,
        "replace_numbers": sorted(effect.replace_numbers),
        "rotate_berzerkerbirdz": effect.rotate_berzerkerbirdz,
        "discard_one": effect.discard_one,
        "pass_right": _PASS_RIGHT[effect.pass_right],
        "trump_chooser": _CHOOSERS[effect.trump_chooser],
        "multiplier": effect.multiplier,
        "parity_kind": _PARITY[parity_kind],
        "parity_points": parity_points,
        "first_trick_bonus": effect.first_trick_bonus,
        "last_trick_bonus": effect.last_trick_bonus,
        "trick_value": effect.trick_value,
    }


def config_fields(config: AstrobirdzConfig) -> dict[str, Any]:
    """What the compiled engine needs of a config: the rule of each trump card
    as this config enforces it (Green 7's reading; no rule without trump
    rules), the youngest and oldest seats, the chart's turns."""
    rules = config.rule_cards if config.trump_rules else (NO_RULE,) * 54
    return {
        "num_players": config.num_players,
        "berzerkerbirdz": config.berzerkerbirdz,
        "pass_cards": config.pass_cards,
        "highest_overall": config.highest_bonus == "highest_overall",
        "ties_all": config.highest_bonus_ties == "all",
        "youngest": config.youngest,
        "oldest": config.oldest,
        "turns": config.turns,
        "max_hand": config.max_hand,
        "rules": [effect_fields(rule.effect) for rule in rules],
    }


SCENARIO_ARGS = frozenset({"hands", "trump", "berzerkers", "scores"})
"""``AstrobirdzGame.new``'s scenario arguments besides ``turn``."""

_TEMPLATES = EngineTemplates("astrobirdz", "Astrobirdz", config_fields)
"""An empty compiled engine per config, copied for each game (a config is read once)."""


_COPIED = (
    "turn", "dealer", "trump_card", "trump", "actor", "partner", "traded", "peeked",
    "astroboard", "played", "known_any", "hand_size", "astro_partner", "over",
)  # fmt: skip
"""Plain fields with the same name and value in both engines."""
_LISTS = (
    "scores_", "birds", "hands", "deck", "discards", "choosers", "need", "allowed",
    "guess_order", "guesses", "trick", "trick_order", "trick_winners", "holders",
    "discarded", "transfer", "last_trick_winners",
)  # fmt: skip
"""Flat list fields, copied as lists."""
_NESTED = ("chosen", "finished", "finished_orders", "known")
"""Lists of lists, copied row by row."""


def fields_of(game: AstrobirdzGame) -> dict[str, Any]:
    """The plain fields of a Python engine's state, as the compiled engine loads them."""
    out: dict[str, Any] = {name: getattr(game, name) for name in _COPIED}
    for name in _LISTS:
        out[name] = list(getattr(game, name))
    for name in _NESTED:
        out[name] = [list(row) for row in getattr(game, name)]
    out["phase"] = int(game.phase)
    out["last_turn"] = (
        None
        if game.last_turn is None
        else [list(item.to_dict().values()) for item in game.last_turn]
    )
    out["rng"] = game.rng.bit_generator.state
    return out


def game_of(config: AstrobirdzConfig, fields: dict[str, Any]) -> AstrobirdzGame:
    """A Python engine in the state of the compiled engine's fields."""
    game = AstrobirdzGame(config=config, rng=generator_in_state(fields["rng"]))
    _set_state(game, fields)
    return game


def _set_state(game: AstrobirdzGame, fields: dict[str, Any]) -> None:
    """Put ``game`` in the state of the compiled engine's fields (all but the
    generator), forgetting its legal-action cache."""
    for name in (*_COPIED, *_LISTS, *_NESTED):
        setattr(game, name, fields[name])
    game.phase = Phase(fields["phase"])
    game.last_turn = (
        None
        if fields["last_turn"] is None
        else [TurnScore(*(int(v) for v in row)) for row in fields["last_turn"]]
    )
    game._legal = game._mask = None


_READABLE = frozenset(
    {*_COPIED, *_LISTS, *_NESTED, "last_turn", "rule", "previous_trick", "previous_order"}
)
"""The Python engine's state attributes a compiled game answers too (as copies)."""


class NativeAstrobirdzGame(DumpedCompiledGame):
    """A game of Astrobirdz played by the compiled engine (see the module docstring)."""

    templates = _TEMPLATES
    reference = AstrobirdzGame
    fields_of = staticmethod(fields_of)
    game_of = staticmethod(game_of)

    def __init__(self, config: AstrobirdzConfig, engine: Any) -> None:
        super().__init__(config, engine)
        self.layout = ActionLayout(config.num_players)
        self._mirror: AstrobirdzGame | None = None
        self.bind_hot_calls()

    # -- construction and conversion --

    @classmethod
    def new(
        cls, config: AstrobirdzConfig, rng: np.random.Generator, **scenario: Any
    ) -> NativeAstrobirdzGame:
        """A dealt game from ``rng`` (advanced as the Python engine's deal
        advances it), from turn ``turn`` if given; a scenario that places cards,
        birds or scores is dealt by the Python engine and handed over."""
        scenario.pop("record_events", None)  # the compiled engine keeps no event log
        turn = scenario.pop("turn", 1)
        placed = scenario.get("trump") is not None or any(
            scenario.get(key) for key in ("hands", "berzerkers", "scores")
        )
        if placed or set(scenario) - SCENARIO_ARGS:  # dealt (or refused) in Python
            return cls.from_python(AstrobirdzGame.new(config, rng, turn=turn, **scenario))
        config.check()
        check_scenario(config, {}, None, {}, turn, {})
        engine = _TEMPLATES.empty(config)
        engine.new_game(rng.bit_generator.state, turn)
        rng.bit_generator.state = engine.rng_state()
        return cls(config, engine)

    def mirror(self) -> AstrobirdzGame:
        """A Python engine kept in this state for views and text (read it, never
        play it: its generator is not kept in step). It is brought up to date on
        each call from the compiled state's fields, without the new engine and
        generator a fresh copy (:meth:`to_python`) builds every time."""
        fields = self.engine.dump()
        if self._mirror is None:
            self._mirror = game_of(self.config, fields)
        else:
            _set_state(self._mirror, fields)
        return self._mirror

    def __getattr__(self, name: str) -> Any:
        """The Python engine's state attributes (``turn``, ``hands``, ``known``,
        ...), read from a Python copy of this state: reading works as on the
        Python engine; changing what is returned changes nothing here."""
        if name in _READABLE:
            return getattr(self.to_python(), name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def phase(self) -> Phase:
        return Phase(self.engine.phase())

    # -- GameEngine --

    def _refusal(self, action: Any) -> ValueError:
        """The Python engine's error for an action it refuses."""
        try:
            self.to_python().apply_action(action)
        except ValueError as err:
            return err
        return ValueError(f"illegal Astrobirdz action {action!r}")


class NativeHeuristicBot:
    """:class:`~.bots.AstrobirdzHeuristicBot` compiled (``native/astrobirdz_bot.hpp``):
    from the same seed, the same choice at every decision (a fallback pick
    drawn as bots.py draws it), read straight from a compiled engine instead of
    a view (only what the seat's view shows).
    ``tests/astrobirdz/test_astrobirdz_native.py`` plays both side by side."""

    def __init__(self, seed: int | None = None) -> None:
        module = require_compiled("astrobirdz", "Astrobirdz")
        self.bot = module.HeuristicBot(make_rng(seed).bit_generator.state)

    @classmethod
    def from_generator(cls, rng: np.random.Generator) -> NativeHeuristicBot:
        """A compiled bot drawing its fallback picks from ``rng``'s state (``rng``
        is not advanced)."""
        bot = cls.__new__(cls)
        bot.bot = require_compiled("astrobirdz", "Astrobirdz").HeuristicBot(rng.bit_generator.state)
        return bot

    def __getstate__(self) -> dict[str, Any]:
        """A copy or a pickle holds the generator's state (the bot keeps nothing else)."""
        return {"rng": self.bot.rng_state()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.bot = require_compiled("astrobirdz", "Astrobirdz").HeuristicBot(state["rng"])

    def act_in(self, game: NativeAstrobirdzGame) -> int:
        """The action of ``game``'s player to act (the game is not changed)."""
        return int(self.bot.act(game.engine))
