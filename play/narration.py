"""What happened since a seat last looked, in words: terminal play and replays.

A :class:`Narrator` follows one seat. It is told each move as it is made
(:meth:`Narrator.move`, which names the move only where :mod:`.disclosure`
lets that seat read it) and, between moves, compares the seat's new view with
the last one (:meth:`Narrator.catch_up`). What a change means is the game's to
say: its ``narrate_changes(old, new, who, last_move)`` in its ``observer.py``
(for Astrobirdz the completed trick with its winner and the turn's scoring,
for Asrus the revealed turn and the lottery, for Skybirds each Dogfight won and
every token taken, for the Arena every roll, move, encounter and challenge),
and its ``MOVE_WORDS`` put words before a move's string where the string alone
reads oddly; a game without them is told move by move only (:mod:`.table_talk`).
Everything it says comes from that seat's view, so it can never tell more than
the seat may see.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .disclosure import is_public
from .table_talk import game_hook

Changes = Callable[
    [dict[str, Any], dict[str, Any], Callable[[str], str], "tuple[str, str] | None"], list[str]
]
"""A game's ``narrate_changes``: (old view, new view, who, last move) -> lines."""


def no_changes(
    old: dict[str, Any],
    new: dict[str, Any],
    who: Callable[[str], str],
    last_move: tuple[str, str] | None,
) -> list[str]:
    """The default for a game that narrates nothing between moves."""
    return []


class Narrator:
    """Lines telling ``seat`` what happened, from its views and the moves it may read."""

    def __init__(self, raw: Any, seat: str, names: dict[str, str]) -> None:
        self.raw = raw
        self.seat = seat
        self.names = names
        self.env_id: str = raw.env_id
        self.last_view: dict[str, Any] | None = None
        self.last_move: tuple[str, str] | None = None
        """The move (agent, string) made since the last look: the next
        :meth:`catch_up` hands it to the game (a trick's last card shows in no view)."""
        self.changes: Changes = game_hook(self.env_id, "narrate_changes") or no_changes
        self.move_words: dict[str, str] = game_hook(self.env_id, "MOVE_WORDS") or {}

    def who(self, agent: str) -> str:
        name = self.names.get(agent, "")
        if agent == self.seat:
            return f"you ({agent})"
        return f"{agent} ({name})" if name else agent

    def move(self, agent: str, action: int) -> list[str]:
        """The line for a move about to be made (after catching up with the view)."""
        lines = self.catch_up()
        text = self.raw.action_to_string(agent, action)
        view = self.last_view or {}
        self.last_move = (agent, text)
        if agent == self.seat or is_public(self.raw, action):
            words = self.move_words.get(view.get("phase"), "")
            lines.append(f"{self.who(agent)}: {words}{text}")
        else:
            lines.append(f"{self.who(agent)} has moved")
        return lines

    def catch_up(self) -> list[str]:
        """What changed in the seat's view since the last call."""
        new = self.raw.view(self.seat)
        old, self.last_view = self.last_view, new
        last_move, self.last_move = self.last_move, None
        if old is None:
            return []
        return self.changes(old, new, self.who, last_move)
