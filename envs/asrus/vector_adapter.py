"""Asrus's vectorised engine as training asks for it: the adapter the registry
entry of ``asrus_v0`` names (``vector_engine``), following the protocol
``VectorEngineAdapter`` of :mod:`flockgym.training.vector_engines`.

Batched self-play and tournaments know no game by name: they build the engine,
the vectorised heuristic bot and the columns of the committed flags through
this class, imported on first use."""

from __future__ import annotations

from typing import Any

from .vector import VectorAsrus
from .vector_bots import VectorHeuristicBot


class AsrusVectorAdapter:
    """:class:`~.vector.VectorAsrus` and :class:`~.vector_bots.VectorHeuristicBot`
    behind the one interface every game's vector engine offers training."""

    def engine(self, count: int, dealing: str, options: dict[str, Any]) -> VectorAsrus:
        """``count`` games with the env's ``options`` (an ``OptionError`` names one
        the engine cannot play); ``dealing`` is ``exact`` or ``fast``."""
        return VectorAsrus(count, dealing=dealing, **options)

    def heuristic_bot(self, count: int, num_players: int) -> VectorHeuristicBot:
        """The heuristic bot of every seat of ``count`` games (each seat its own
        generator, reseeded per game as a scalar bot would be made)."""
        return VectorHeuristicBot(count, num_players)

    def committed_columns(self, engine: VectorAsrus) -> slice:
        """The observation's columns flagging which seats (from the observer's
        seat on) have committed this turn: what a seat deciding at the turn's
        start rewrites to what it would see on its own turn."""
        lo, hi = engine.observer.offsets["committed"]
        return slice(lo, hi)
