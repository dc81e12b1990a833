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

from ..core.compiled import ENGINES, load_compiled
from ..core.game import GameEngine
from ..core.rng import generator_in_state, make_rng
from .actions import ActionLayout
from .data import NO_RULE, Effect
from .rules import AstrobirdzConfig, AstrobirdzGame, Phase, TurnScore, check_scenario

__all__ = ["ENGINES", "NativeAstrobirdzGame", "NativeHeuristicBot", "native_available"]


def _compiled() -> Any:
    """The extension module, or None (warned once by :func:`load_compiled`)."""
    return load_compiled("astrobirdz")


def native_available() -> bool:
    """Whether the compiled engine can be used; the first time it cannot, a
    warning says why and that the Python engine runs instead."""
    return _compiled() is not None


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

_TEMPLATES: dict[AstrobirdzConfig, Any] = {}
"""An empty compiled engine per config, copied for each game (a config is read once)."""


def _empty_engine(config: AstrobirdzConfig) -> Any:
    template = _TEMPLATES.get(config)
    if template is None:
        module = _compiled()
        if module is None:
            raise RuntimeError("the compiled Astrobirdz engine is not available (see the warning)")
        template = module.Engine(config_fields(config))
        if len(_TEMPLATES) < 64:
            _TEMPLATES[config] = template
    return template.copy()


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
    for name in (*_COPIED, *_LISTS, *_NESTED):
        setattr(game, name, fields[name])
    game.phase = Phase(fields["phase"])
    game.last_turn = (
        None
        if fields["last_turn"] is None
        else [TurnScore(*(int(v) for v in row)) for row in fields["last_turn"]]
    )
    return game


_READABLE = frozenset(
    {*_COPIED, *_LISTS, *_NESTED, "last_turn", "rule", "previous_trick", "previous_order"}
)
"""The Python engine's state attributes a compiled game answers too (as copies)."""


class NativeAstrobirdzGame(GameEngine):
    """A game of Astrobirdz played by the compiled engine (see the module docstring)."""

    def __init__(self, config: AstrobirdzConfig, engine: Any) -> None:
        self.config = config
        self.num_players = config.num_players
        self.engine = engine
        self._layout = ActionLayout(config.num_players)
        # The hot calls go straight to the compiled methods (no Python frame between).
        self.current_player = engine.current_player  # type: ignore[method-assign]
        self.is_over = engine.is_over  # type: ignore[method-assign]
        self.scores = engine.scores  # type: ignore[method-assign]
        self.legal_mask = engine.legal_mask  # type: ignore[method-assign]
        self.is_legal_id = engine.is_legal_id  # type: ignore[method-assign]
        self.encode = engine.encode  # type: ignore[method-assign]

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
        engine = _empty_engine(config)
        engine.new_game(rng.bit_generator.state, turn)
        rng.bit_generator.state = engine.rng_state()
        return cls(config, engine)

    @classmethod
    def from_python(cls, game: AstrobirdzGame) -> NativeAstrobirdzGame:
        """The compiled engine in ``game``'s state (``game`` is left as it is)."""
        engine = _empty_engine(game.config)
        engine.load(fields_of(game))
        return cls(game.config, engine)

    def to_python(self) -> AstrobirdzGame:
        """A Python engine in this state (independent of this one)."""
        return game_of(self.config, self.engine.dump())

    @classmethod
    def from_dict(cls, d: Any) -> NativeAstrobirdzGame:
        """Rebuild a saved game (read and checked by the Python engine's loader)."""
        return cls.from_python(AstrobirdzGame.from_dict(d))

    def to_dict(self) -> dict[str, Any]:
        return self.to_python().to_dict()

    def copy(self) -> NativeAstrobirdzGame:
        """An independent engine in the same state (no JSON round trip)."""
        return NativeAstrobirdzGame(self.config, self.engine.copy())

    def __getattr__(self, name: str) -> Any:
        """The Python engine's state attributes (``turn``, ``hands``, ``known``,
        ...), read from a Python copy of this state: reading works as on the
        Python engine; changing what is returned changes nothing here."""
        if name in _READABLE:
            return getattr(self.to_python(), name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __deepcopy__(self, memo: dict[int, Any]) -> NativeAstrobirdzGame:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        """A pickle holds the config and the plain fields (the compiled object
        itself cannot be pickled): a copied or pickled env plays on the same."""
        return {"config": self.config, "fields": self.engine.dump()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        engine = _empty_engine(state["config"])
        engine.load(state["fields"])
        self.__init__(state["config"], engine)  # type: ignore[misc]

    @property
    def rng(self) -> np.random.Generator:  # type: ignore[override]
        """A generator in the engine's state (a copy: drawing from it changes nothing here)."""
        return generator_in_state(self.engine.rng_state())

    @property
    def phase(self) -> Phase:
        return Phase(self.engine.phase())

    # -- GameEngine --

    def current_player(self) -> int:
        return int(self.engine.current_player())

    def legal_actions(self) -> list[int]:
        return list(self.engine.legal_actions())

    def legal_mask(self, num_actions: int) -> np.ndarray:
        return self.engine.legal_mask(num_actions)

    def is_legal_id(self, action: int, num_actions: int) -> bool:
        return bool(self.engine.is_legal(action))

    def apply_action(self, action: int) -> None:
        try:
            self.engine.apply_action(action)
        except (ValueError, TypeError):
            raise self._refusal(action) from None

    def _refusal(self, action: Any) -> ValueError:
        """The Python engine's error for an action it refuses."""
        try:
            self.to_python().apply_action(action)
        except ValueError as err:
            return err
        return ValueError(f"illegal Astrobirdz action {action!r}")

    def is_over(self) -> bool:
        return bool(self.engine.is_over())

    @property
    def over(self) -> bool:
        return bool(self.engine.is_over())

    def scores(self) -> list[float]:
        return list(self.engine.scores())

    def winners(self) -> list[int]:
        return list(self.engine.winners())

    def action_to_string(self, seat: int, action: int) -> str:
        return self._layout.to_string(seat, action)

    def string_to_action(self, seat: int, text: str) -> int:
        return self._layout.from_string(seat, text)

    def invariant_violations(self) -> list[str]:
        return self.to_python().invariant_violations()

    def encode(self, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` (a fresh float32 array)."""
        return np.asarray(self.engine.encode(seat))


class NativeHeuristicBot:
    """:class:`~.bots.AstrobirdzHeuristicBot` compiled (``native/astrobirdz_bot.hpp``):
    from the same seed, the same choice at every decision (a fallback pick
    drawn as bots.py draws it), read straight from a compiled engine instead of
    a view (only what the seat's view shows).
    ``tests/astrobirdz/test_astrobirdz_native.py`` plays both side by side."""

    def __init__(self, seed: int | None = None) -> None:
        module = _compiled()
        if module is None:
            raise RuntimeError("the compiled Astrobirdz engine is not available (see the warning)")
        self.bot = module.HeuristicBot(make_rng(seed).bit_generator.state)

    def act_in(self, game: NativeAstrobirdzGame) -> int:
        """The action of ``game``'s player to act (the game is not changed)."""
        return int(self.bot.act(game.engine))
