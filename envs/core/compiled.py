"""Finding a game's compiled engine, or saying once that the Python one runs.

Each game's C++ engine is the extension ``flockgym.envs.<game>._native``, built
at ``pip install`` (setup.py). It is optional: an install without a C++
compiler still works, and then every game plays on its Python engine.
:func:`load_compiled` returns the module, or ``None`` after a single
:class:`CompiledEngineWarning` per game saying why, so a user learns it once
rather than on every env.
"""

from __future__ import annotations

import importlib
import warnings
from types import ModuleType

ENGINES = ("python", "compiled")
"""The values of a game's ``engine`` option."""

_loaded: dict[str, ModuleType | None] = {}


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
