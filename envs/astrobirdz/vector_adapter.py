"""Astrobirdz's vectorised engine as training asks for it: the adapter the
registry entry of ``astrobirdz_v0`` names (``vector_engine``), following the
protocol ``VectorEngineAdapter`` of :mod:`flockgym.training.vector_engines`.

Its turns are sequential (one seat acts at a time, as in the AEC env), so it
says so (``sequential = True``): batched self-play plays it seat by seat, and
neither ``engine: auto`` nor tournaments (whose vector path plays
simultaneous turns) pick it; ``batched.engine: vector`` selects it."""

from __future__ import annotations

from typing import Any

from .vector import VectorAstrobirdz
from .vector_bots import VectorHeuristicBot


class AstrobirdzVectorAdapter:
    """:class:`~.vector.VectorAstrobirdz` and :class:`~.vector_bots.VectorHeuristicBot`
    behind the interface every game's vector engine offers training."""

    sequential = True
    """One seat acts at a time: the engine's ``actor`` is the seat to act."""

    def engine(self, count: int, dealing: str, options: dict[str, Any]) -> VectorAstrobirdz:
        """``count`` games with the env's ``options`` (an ``OptionError`` names one
        the engine cannot play); ``dealing`` is ``exact`` or ``fast``."""
        return VectorAstrobirdz(count, dealing=dealing, **options)

    def heuristic_bot(self, count: int, num_players: int) -> VectorHeuristicBot:
        """The heuristic bot of every seat of ``count`` games."""
        return VectorHeuristicBot(count, num_players)

    def committed_columns(self, engine: VectorAstrobirdz) -> slice:
        """No columns: turns are sequential, no seat commits ahead of its turn."""
        return slice(0, 0)
