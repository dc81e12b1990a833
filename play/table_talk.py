"""Where play finds what a game says at the table: its ``<game>_v0`` module.

A game's table talk lives in its own folder and its versioned entry module
exports it (``flockgym.envs.skybirds_v0``); each hook is optional, and a game
without one gets the default of the module that asks:

| hook | defined in | used by | default |
| --- | --- | --- | --- |
| ``is_public_move(layout, action)`` | ``actions.py`` | :mod:`.disclosure` | never public |
| ``narrate_changes(old, new, who, last_move)`` | ``observer.py`` | :mod:`.narration` | no lines |
| ``MOVE_WORDS`` (phase -> words) | ``observer.py`` | :mod:`.narration` | none |
| ``special_cards_help()`` | ``data.py`` | :mod:`.cards_help` | a pointer to the rules |

The module is imported on use, through the registry (``flockgym.envs.env_module``),
so play names no game.
"""

from __future__ import annotations

from typing import Any


def game_hook(env_id: str, name: str) -> Any | None:
    """The hook ``name`` of the registered env ``env_id``'s entry module, or None
    where the game defines none or the id is not registered (so a game registered
    tomorrow, or an unknown id, gets play's defaults)."""
    from flockgym.envs import ENVS, env_module

    if env_id not in ENVS:
        return None
    return getattr(env_module(env_id), name, None)
