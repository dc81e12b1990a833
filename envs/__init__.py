"""flockgym environments: a registry of versioned PettingZoo AEC envs.

>>> from flockgym.envs import asrus_v0, make, list_envs
>>> env = asrus_v0.env(num_players=5)           # wrapped AEC env
>>> env = make("asrus_v0", num_players=5)        # the same, by id
>>> list_envs()
['arena_v0', 'asrus_v0', 'astrobirdz_v0', 'skybirds_v0']

Importing this package also registers every env in PettingZoo's registry as
``flockgym/<name>-v<k>``, e.g. ``pettingzoo.make("aec", "flockgym/asrus-v0")``.
"""

from __future__ import annotations

import importlib
import warnings
from dataclasses import dataclass
from typing import Any

import pettingzoo

from .core.bots import Bot, RandomBot
from .core.errors import FlockgymError, IllegalActionError, OptionError, StateDictError


@dataclass(frozen=True)
class EnvEntry:
    """One registered env: where it lives and what it offers."""

    env_id: str
    module: str
    player_counts: tuple[int, ...]
    default_players: int
    heuristic_bot: str
    parallel: bool = False
    summary: str = ""
    vector_engine: str | None = None
    """The game's vectorised engine (many games per call, in numpy arrays) as
    ``"module:Class"`` of its adapter, which batched self-play and tournaments
    build it through (``flockgym.training.vector_engines``); None: no vector engine."""
    resampler: str | None = None
    """The game's resampler as ``"module:function"``: ``function(raw_env, seat,
    generator)`` returns the env holding a new state that ``seat`` cannot tell
    apart from the current one (hidden cards, deck order, hidden choices and future
    draws redrawn); search bots and OpenSpiel's ``resample_from_infostate`` use it."""

    @property
    def pettingzoo_id(self) -> str:
        """``asrus_v0`` -> ``flockgym/asrus-v0`` (PettingZoo's id grammar)."""
        name, version = self.env_id.rsplit("_", 1)
        return f"flockgym/{name}-{version}"


ENVS: dict[str, EnvEntry] = {
    "asrus_v0": EnvEntry(
        env_id="asrus_v0",
        module="flockgym.envs.asrus_v0",
        player_counts=tuple(range(3, 10)),
        default_players=5,
        heuristic_bot="flockgym.envs.asrus.bots:AsrusHeuristicBot",
        resampler="flockgym.envs.asrus.resample:resample",
        parallel=True,
        summary="Asrus: simultaneous number cards, closest unique distance wins stones",
        vector_engine="flockgym.envs.asrus.vector_adapter:AsrusVectorAdapter",
    ),
    "arena_v0": EnvEntry(
        env_id="arena_v0",
        module="flockgym.envs.arena_v0",
        player_counts=tuple(range(2, 7)),
        default_players=4,
        heuristic_bot="flockgym.envs.arena.bots:ArenaHeuristicBot",
        resampler="flockgym.envs.arena.resample:resample",
        parallel=False,
        summary="Berzerkerbirdz Extreme Sports Arena: roll and move, challenges for "
        "maneuvers and worlds",
    ),
    "astrobirdz_v0": EnvEntry(
        env_id="astrobirdz_v0",
        module="flockgym.envs.astrobirdz_v0",
        player_counts=tuple(range(2, 7)),
        default_players=4,
        heuristic_bot="flockgym.envs.astrobirdz.bots:AstrobirdzHeuristicBot",
        resampler="flockgym.envs.astrobirdz.resample:resample",
        parallel=False,
        summary="Astrobirdz: trick-taking with guesses, Berzerkerbirdz powers and trump rule cards",
        vector_engine="flockgym.envs.astrobirdz.vector_adapter:AstrobirdzVectorAdapter",
    ),
    "skybirds_v0": EnvEntry(
        env_id="skybirds_v0",
        module="flockgym.envs.skybirds_v0",
        player_counts=(2, 3, 4),
        default_players=4,
        heuristic_bot="flockgym.envs.skybirds.bots:SkybirdsHeuristicBot",
        resampler="flockgym.envs.skybirds.resample:resample",
        parallel=False,
        summary="Skybirds: climbing with Squadrons, Medallions and Aerodrome tokens",
    ),
}


def list_envs() -> list[str]:
    """Ids of every registered env, sorted."""
    return sorted(ENVS)


def entry(env_id: str) -> EnvEntry:
    """The registry entry of ``env_id``; an ``OptionError`` (a ``ValueError``) names
    the registered ids."""
    try:
        return ENVS[env_id]
    except KeyError:
        raise OptionError(
            f"unknown env id {env_id!r}; registered envs: {', '.join(list_envs())}"
        ) from None


def env_module(env_id: str) -> Any:
    """The versioned entry module (``flockgym.envs.asrus_v0``) of ``env_id``."""
    return importlib.import_module(entry(env_id).module)


def make(env_id: str, **options: Any) -> Any:
    """The wrapped AEC env ``env_id`` built with ``options`` (validated)."""
    return env_module(env_id).env(**options)


def make_parallel(env_id: str, **options: Any) -> Any:
    """The parallel env of ``env_id``: native where the game is simultaneous,
    else PettingZoo's AEC-to-parallel conversion."""
    module = env_module(env_id)
    return module.parallel_env(**options)


def make_bot(env_id: str, kind: str, seed: int | None = None) -> Bot:
    """A baseline bot for ``env_id``: ``"random"`` or ``"heuristic"``."""
    if kind == "random":
        return RandomBot(seed)
    if kind == "heuristic":
        module_name, class_name = entry(env_id).heuristic_bot.split(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        return cls(seed=seed)
    raise OptionError(f"unknown bot kind {kind!r}; allowed: 'random', 'heuristic'")


def _register_with_pettingzoo() -> None:
    """Add every env to PettingZoo's registry, which PettingZoo has offered since
    1.27; with an older PettingZoo the envs work the same, and only
    ``pettingzoo.make("aec", "flockgym/...")`` is unavailable."""
    if not hasattr(pettingzoo, "register"):
        return
    for item in ENVS.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pettingzoo.register("aec", item.pettingzoo_id, entry_point=f"{item.module}:env")
            pettingzoo.register(
                "parallel", item.pettingzoo_id, entry_point=f"{item.module}:parallel_env"
            )


_register_with_pettingzoo()

__all__ = [
    "ENVS",
    "Bot",
    "EnvEntry",
    "FlockgymError",
    "IllegalActionError",
    "OptionError",
    "RandomBot",
    "StateDictError",
    "entry",
    "env_module",
    "list_envs",
    "make",
    "make_bot",
    "make_parallel",
]
