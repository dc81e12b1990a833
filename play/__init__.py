"""``flockgym.play``: people play the registered envs, in a browser or a terminal.

* ``flockgym serve`` (:mod:`.app`, :mod:`.sessions`, :mod:`.models`,
  :mod:`.server` and the page in ``static/``): one local process (Starlette on
  uvicorn, the ``play`` extra) holds every game; each browser seat receives only
  its own ``view`` and its legal moves. See ``docs/play.md`` for the page, the
  API and the saved-game format.
* ``flockgym play`` (:mod:`.terminal`) and ``flockgym replay`` (:mod:`.replay`).
* What all three share: the saved-game format (:mod:`.records`), the move log's
  disclosure rule (:mod:`.disclosure`), narration (:mod:`.narration`) and the
  card notes (:mod:`.cards_help`). These import no web package, so terminal play
  and replay work without the ``play`` extra; the app is imported on first use.

The modules sit side by side in one flat package rather than under a ``serve/``
subpackage: the terminal, replay and the server are three doors to the same
records, narration and notes, so nesting the server would make the shared
modules look like its private parts (and every terminal import reach into it).
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
