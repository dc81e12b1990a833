"""Which moves of the other seats a seat may read in the move log.

The view of a seat (``env.view(agent)``) is the env's own word on what that
seat may see; the move log is the server's, so it must not say more. A move
is shown with its action string to the seat that made it, and to the others
only where the game makes that move in the open: the game says so itself, by
action segment, with ``is_public_move(layout, action)`` in its ``actions.py``
(exported by its ``<game>_v0`` module, :mod:`.table_talk`). A game that defines
none has every move shown as "moved" without its string: a game registered
tomorrow leaks nothing through the log on the day it appears.
"""

from __future__ import annotations

from typing import Any

from .table_talk import game_hook


def is_public(raw: Any, action: int) -> bool:
    """True if ``action`` is seen by every seat when it is made in the game of
    ``raw`` (the unwrapped env: its ``env_id`` and action ``layout``, if any)."""
    rule = game_hook(raw.env_id, "is_public_move")
    return rule is not None and bool(rule(getattr(raw, "layout", None), int(action)))
