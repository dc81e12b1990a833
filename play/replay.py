"""``flockgym replay FILE``: a saved game (web or terminal) replayed in the terminal.

The game is played again from its seed with its recorded actions, checking at
every move that the same action string comes out and, at the end, the same
scores and winners (:func:`flockgym.play.records.replay_record`).
So a replay that runs to the end is also a regression check: ``--check``
prints only the verdict, and exits with status 2 when the game no longer
replays as it was saved.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from .narration import Narrator
from .records import SavedGameError, load_record, replay_record


def seat_names(record: dict[str, Any]) -> dict[str, str]:
    return {seat["agent"]: seat["name"] for seat in record["seats"]}


def replay_checked(
    path: str | Path, record: dict[str, Any], on_step: Callable[..., None] | None = None
) -> Any:
    """:func:`replay_record`, its errors naming the file: a record that loads but does
    not replay (crafted, or from another version of a game) says where and why."""
    try:
        return replay_record(record, on_step=on_step)
    except SavedGameError as err:
        raise SavedGameError(f"{path} does not replay: {err}") from None


def replay_terminal(
    path: str | Path,
    show: str = "moves",
    seat: str | None = None,
    delay: float = 0.0,
    check: bool = False,
    stdout: TextIO | None = None,
) -> dict[str, Any]:
    """Replay the saved game at ``path``; return the record.

    ``show="moves"`` prints one line per move and the final table;
    ``"tables"`` also prints the table before every move: every hand, or what
    ``seat`` saw. ``check`` prints only the verdict.
    """
    out = stdout or sys.stdout

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    record = load_record(path)
    names = seat_names(record)
    if seat is not None and seat not in names:
        from flockgym.envs import FlockgymError

        raise FlockgymError(
            f"--seat {seat!r} is not a seat of this game; seats: {', '.join(names)}"
        )
    if check:
        replay_checked(path, record)
        say(
            f"ok: {path} replays exactly: {len(record['moves'])} moves, status "
            f"{record['status']}, scores {record['scores']}, winners "
            f"{', '.join(record['winners']) or 'none'}"
        )
        return record

    say(f"{record['env']} options {json.dumps(record['options'])}")
    say(
        f"deal seed {record['seed']}; saved {record.get('updated', '?')}; status {record['status']}"
    )
    for agent, name in names.items():
        say(f"  {agent}: {name}")

    def table(env: Any) -> str:
        raw = env.unwrapped
        return raw._render_text(None if seat is None else raw.seat_of(seat))

    narrator: Narrator | None = None

    def on_step(env: Any, index: int, move: dict[str, Any]) -> None:
        nonlocal narrator
        if narrator is None:
            # Trick winners and scoring are public: told from one seat's view.
            narrator = Narrator(env.unwrapped, seat or "player_0", names)
        for line in narrator.move(move["agent"], move["action"])[:-1]:
            say(f"      {line}")
        if show == "tables":
            say()
            say(table(env))
        say(f"{index + 1:>4}. {move['agent']} ({names[move['agent']]}): {move['text']}")
        if delay:
            time.sleep(delay)

    env = replay_checked(path, record, on_step)
    for line in narrator.catch_up() if narrator else []:
        say(f"      {line}")
    say()
    say(table(env))
    scores = record["scores"] or {}
    order = sorted(scores, key=lambda a: -scores[a])
    if scores:
        say("final points: " + ", ".join(f"{a} {scores[a]:g}" for a in order))
    say("winners: " + (", ".join(record["winners"]) or "none") + f" ({record['status']})")
    return record
