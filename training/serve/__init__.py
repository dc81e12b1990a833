"""``flockgym serve``: play any registered env against bots in a browser.

One local process (Starlette on uvicorn, the ``play`` extra) holds every game;
each browser seat receives only its own ``view`` and its legal moves. See
``docs/play.md`` for the page, the API and the saved-game format.

The saved-game format (:mod:`.records`) and the card notes (:mod:`.cards_help`)
import no web package: terminal play and ``flockgym replay`` use them without
the ``play`` extra. The app itself is imported on first use.
"""

from __future__ import annotations

from typing import Any

from .records import GameLog, SavedGameError, load_record, replay_record

__all__ = [
    "GameLog",
    "SavedGameError",
    "ServerConfig",
    "create_app",
    "load_record",
    "replay_record",
]


def __getattr__(name: str) -> Any:
    if name in ("ServerConfig", "create_app"):
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
