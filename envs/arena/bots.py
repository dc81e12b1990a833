"""A rule-based Arena player (placeholder until the heuristic lands: random)."""

from __future__ import annotations

from ..core.bots import RandomBot


class ArenaHeuristicBot(RandomBot):
    """Temporary: plays uniformly random legal actions."""
