"""Finding a game's compiled engine, or saying once that the Python one runs.

Each game's C++ engine is the extension ``flockgym.envs.<game>._native``, built
at ``pip install`` (setup.py). It is optional: an install without a C++
compiler still works, and then every game plays on its Python engine.
:func:`load_compiled` returns the module, or ``None`` after a single
:class:`CompiledEngineWarning` per game saying why, so a user learns it once
rather than on every env. :class:`CompiledGame` and :class:`DumpedCompiledGame`
hold what every game's wrapper of its compiled engine shares,
:class:`CompiledHeuristicBot` and :func:`act_on_compiled_table` what every
game's compiled heuristic bot shares.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, ClassVar, TypeVar

import numpy as np

from .game import GameEngine
from .rng import generator_in_state, make_rng

ENGINES = ("python", "compiled")
"""The values of a game's ``engine`` option."""

_loaded: dict[str, ModuleType | None] = {}
_why_not: dict[str, str] = {}
"""Why a game's compiled engine did not load (the import error), kept for the
errors raised after the one warning."""


class CompiledEngineWarning(UserWarning):
    """A game's compiled engine could not load; its Python engine runs instead."""


def load_compiled(game: str) -> ModuleType | None:
    """The compiled engine module of ``game`` (a folder under ``envs``), or
    ``None`` when it cannot load (warned once per game)."""
    if game not in _loaded:
        name = f"flockgym.envs.{game}._native"
        try:
            _loaded[game] = importlib.import_module(name)
        except ImportError as err:
            _loaded[game] = None
            _why_not[game] = str(err)
            warnings.warn(
                f"the compiled {game} engine ({name}) did not load ({err}); the Python "
                "engine runs instead. Reinstall with a C++17 compiler (Debian: "
                "apt-get install g++) to build it.",
                CompiledEngineWarning,
                stacklevel=2,
            )
    return _loaded[game]


def compiled_available(game: str) -> bool:
    """Whether ``game``'s compiled engine loads (warns once when it does not)."""
    return load_compiled(game) is not None


def require_compiled(game: str, label: str) -> ModuleType:
    """The compiled engine module of ``game``, or a RuntimeError naming ``label``
    (the warning of :func:`load_compiled` has said why)."""
    module = load_compiled(game)
    if module is None:
        raise RuntimeError(
            f"the compiled {label} engine is not available: flockgym.envs.{game}._native "
            f"did not load ({_why_not.get(game, 'not built')}); allowed: engine='python', "
            "or reinstall with a C++17 compiler (Debian: apt-get install g++ python3-dev; "
            "then pip install --no-deps -e . in a checkout) to build it"
        )
    return module


class EngineTemplates:
    """An empty compiled engine per config, copied for each game (a config is
    read once); at most ``limit`` configs are kept."""

    def __init__(
        self, game: str, label: str, config_fields: Callable[[Any], dict[str, Any]], limit: int = 64
    ) -> None:
        self.game, self.label, self.config_fields, self.limit = game, label, config_fields, limit
        self._templates: dict[Any, Any] = {}

    def empty(self, config: Any) -> Any:
        """A fresh empty compiled engine for ``config``."""
        template = self._templates.get(config)
        if template is None:
            template = require_compiled(self.game, self.label).Engine(self.config_fields(config))
            if len(self._templates) < self.limit:
                self._templates[config] = template
        return template.copy()


_Game = TypeVar("_Game", bound="CompiledGame")


class CompiledGame(GameEngine):
    """What every game's compiled-engine wrapper shares: ``engine`` is the C++
    game, ``layout`` the game's action layout; each call is the engine's, its
    answer turned into the Python engine's types."""

    layout: Any

    def __init__(self, config: Any, engine: Any) -> None:
        self.config = config
        self.num_players = config.num_players
        self.engine = engine

    def copy(self: _Game) -> _Game:
        """An independent engine in the same state (same future draws)."""
        return type(self)(self.config, self.engine.copy())

    def __deepcopy__(self: _Game, memo: dict[int, Any]) -> _Game:
        """``copy.deepcopy`` (the search bots copy their worlds so): an
        independent game, generator included."""
        return self.copy()

    @property
    def rng(self) -> np.random.Generator:  # type: ignore[override]
        """A generator in the engine's state (a copy: drawing from it changes nothing here)."""
        return generator_in_state(self.engine.rng_state())

    def current_player(self) -> int:
        return int(self.engine.current_player())

    def legal_actions(self) -> list[int]:
        return list(self.engine.legal_actions())

    def legal_mask(self, num_actions: int) -> np.ndarray:
        return self.engine.legal_mask(num_actions)

    def is_over(self) -> bool:
        return bool(self.engine.is_over())

    def scores(self) -> list[float]:
        return list(self.engine.scores())

    def winners(self) -> list[int]:
        return list(self.engine.winners())

    def action_to_string(self, seat: int, action: int) -> str:
        return self.layout.to_string(seat, action)

    def string_to_action(self, seat: int, text: str) -> int:
        return self.layout.from_string(seat, text)


class DumpedCompiledGame(CompiledGame):
    """A compiled wrapper whose engine dumps and loads its state as plain
    fields, while saving, loading and views go through the Python engine
    (``reference``), so both engines share one reading of every saved game."""

    templates: ClassVar[EngineTemplates]
    reference: ClassVar[Any]
    """The Python engine's class (``new``, ``from_dict``)."""

    @staticmethod
    def fields_of(game: Any) -> dict[str, Any]:
        """The plain fields of a Python engine's state, as the compiled engine loads them."""
        raise NotImplementedError

    @staticmethod
    def game_of(config: Any, fields: dict[str, Any]) -> Any:
        """A Python engine in the state of the compiled engine's fields."""
        raise NotImplementedError

    def bind_hot_calls(self, *names: str) -> None:
        """The hot calls go straight to the compiled methods (no Python frame between)."""
        for name in ("current_player", "is_over", "scores", "legal_mask", "is_legal_id", "encode"):
            setattr(self, name, getattr(self.engine, name))
        for name in names:
            setattr(self, name, getattr(self.engine, name))

    @classmethod
    def from_python(cls: type[_Dumped], game: Any) -> _Dumped:
        """The compiled engine in ``game``'s state (``game`` is left as it is)."""
        engine = cls.templates.empty(game.config)
        engine.load(cls.fields_of(game))
        return cls(game.config, engine)

    def to_python(self) -> Any:
        """A Python engine in this state (independent of this one)."""
        return self.game_of(self.config, self.engine.dump())

    @classmethod
    def from_dict(cls: type[_Dumped], d: Any) -> _Dumped:
        """Rebuild a saved game (read and checked by the Python engine's loader)."""
        return cls.from_python(cls.reference.from_dict(d))

    def to_dict(self) -> dict[str, Any]:
        return self.to_python().to_dict()

    def __getstate__(self) -> dict[str, Any]:
        """A pickle holds the config and the plain fields (the compiled object
        itself cannot be pickled): a copied or pickled env plays on the same."""
        return {"config": self.config, "fields": self.engine.dump()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        engine = self.templates.empty(state["config"])
        engine.load(state["fields"])
        self.__init__(state["config"], engine)  # type: ignore[misc]

    def is_legal_id(self, action: int, num_actions: int) -> bool:
        return bool(self.engine.is_legal(action))

    def apply_action(self, action: int) -> None:
        try:
            self.engine.apply_action(action)
        except (ValueError, TypeError):
            raise self._refusal(action) from None

    def _refusal(self, action: Any) -> ValueError:
        """The Python engine's error for an action it refuses."""
        raise NotImplementedError

    @property
    def over(self) -> bool:
        return bool(self.engine.is_over())

    def invariant_violations(self) -> list[str]:
        return self.to_python().invariant_violations()

    def encode(self, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` (a fresh float32 array)."""
        return np.asarray(self.engine.encode(seat))


_Dumped = TypeVar("_Dumped", bound=DumpedCompiledGame)


class CompiledHeuristicBot:
    """A game's heuristic bot compiled (its module's ``HeuristicBot``): from the
    same seed, the Python bot's choice at every decision, read straight from a
    compiled engine instead of a view. A game names its extension (``game``, a
    folder under ``envs``) and its ``label``; copies and pickles hold the
    generator's state (:meth:`extra_state` adds what else a bot keeps)."""

    game: ClassVar[str]
    label: ClassVar[str]

    def __init__(self, seed: int | None = None) -> None:
        self.bot = self._new_bot(make_rng(seed).bit_generator.state)

    @classmethod
    def _new_bot(cls, rng_state: Mapping[str, Any]) -> Any:
        return require_compiled(cls.game, cls.label).HeuristicBot(rng_state)

    @classmethod
    def from_generator(cls: type[_Bot], rng: np.random.Generator) -> _Bot:
        """A compiled bot drawing from ``rng``'s state (``rng`` is not advanced)."""
        bot = cls.__new__(cls)
        bot.bot = cls._new_bot(rng.bit_generator.state)
        return bot

    def rng_state(self) -> dict[str, Any]:
        """The bot's generator state (numpy's ``bit_generator.state``)."""
        return dict(self.bot.rng_state())

    def extra_state(self) -> dict[str, Any]:
        """What the bot keeps besides its generator, for copies and pickles."""
        return {}

    def set_extra_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`extra_state`."""

    def __getstate__(self) -> dict[str, Any]:
        return {"rng": self.bot.rng_state(), **self.extra_state()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.bot = self._new_bot(state["rng"])
        self.set_extra_state(state)

    def act_in(self, game: CompiledGame) -> int:
        """The action of ``game``'s player to act (the game is not changed)."""
        return int(self.bot.act(game.engine))


_Bot = TypeVar("_Bot", bound=CompiledHeuristicBot)


def act_on_compiled_table(
    bot: Any,
    raw: Any,
    agent: str,
    game_type: type[CompiledGame],
    bot_type: type[CompiledHeuristicBot],
) -> int | None:
    """A Python heuristic bot's ``act_on_table``: the same choice as its
    ``act``, made by its compiled twin straight from a compiled engine (no view
    built); None when ``raw`` plays on the Python engine or ``agent`` is not to
    act (then ``act`` is asked). A bot plays one table, always one way: the
    compiled twin (kept as ``bot._compiled``) starts from the bot's generator
    (``bot.rng``) as it is then."""
    game = getattr(raw, "game", None)
    if not isinstance(game, game_type) or game.current_player() != raw.seat_of(agent):
        return None
    if bot._compiled is None:
        bot._compiled = bot_type.from_generator(bot.rng)
    return int(bot._compiled.act_in(game))
