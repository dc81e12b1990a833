"""flockgym: reinforcement-learning environments for tabletop games.

* :mod:`flockgym.envs`: the PettingZoo AEC environments, their registry and bots
  (the core install: ``pip install -c constraints.txt .`` from a clone);
* :mod:`flockgym.training`: self-play training, tournaments, checkpoints as bots,
  the single-agent self-play env (``pip install -c constraints.txt '.[train]'`` for
  training);
* :mod:`flockgym.play`: play in a browser (``flockgym serve``, the ``play`` extra),
  in the terminal, and replays of saved games.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("flockgym")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
