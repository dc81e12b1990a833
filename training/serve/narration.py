"""What happened since a seat last looked, in words: terminal play and replays.

A :class:`Narrator` follows one seat. It is told each move as it is made
(:meth:`Narrator.move`, which names the move only where :mod:`.disclosure`
lets that seat read it) and, between moves, compares the seat's new view with
the last one (:meth:`Narrator.catch_up`): for Astrobirdz the completed trick
with its winner and the turn's scoring item by item, for Asrus the revealed
turn and the lottery. Everything it says comes from that seat's view, so it
can never tell more than the seat may see.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .disclosure import is_public

TALLY_ITEMS = (
    ("trick_points", "tricks"),
    ("exact", "exact guess"),
    ("highest", "highest guess"),
    ("astroboard", "AstroBoard"),
    ("turbo", "Turbo"),
    ("card_points", "card points"),
    ("berzerkerbird", "bird"),
    ("first_last", "first/last trick"),
    ("parity", "even/odd bonus"),
)


PHASE_WORDS = {
    "nitro_peek": "looks at the hand of ",
    "surfette_partner": "trades with ",
    "astroboard": "AstroBoard power with ",
    "choose_trump": "names the trump colour: ",
}
"""Words before a move's string where the string alone reads oddly (Astrobirdz phases)."""


def signed(value: float) -> str:
    return f"+{value:g}" if value > 0 else f"{value:g}"


def turn_item_text(item: dict[str, int]) -> str:
    """One player's turn on the tally sheet: ``guessed 2, won 2: tricks +2, ...``."""
    parts = [f"{label} {signed(item[key])}" for key, label in TALLY_ITEMS if item.get(key)]
    if item.get("penalty"):
        parts.append(f"off by {item['penalty']} {signed(-item['penalty'])}")
    if item.get("multiplier", 1) != 1:
        parts.append(f"x{item['multiplier']}")
    return (
        f"guessed {item['guess']}, won {item['tricks']}: {', '.join(parts) or 'nothing'} "
        f"= {signed(item['total'])}"
    )


class Narrator:
    """Lines telling ``seat`` what happened, from its views and the moves it may read."""

    def __init__(self, raw: Any, seat: str, names: dict[str, str]) -> None:
        self.raw = raw
        self.seat = seat
        self.names = names
        self.env_id: str = raw.env_id
        self.last_view: dict[str, Any] | None = None
        self.last_play: tuple[str, str] | None = None
        self.changes: Callable[[dict[str, Any], dict[str, Any]], list[str]] = {
            "astrobirdz_v0": self._astrobirdz,
            "asrus_v0": self._asrus,
        }.get(self.env_id, lambda old, new: [])

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
        self.last_play = (agent, text) if view.get("phase") == "play" else None
        if agent == self.seat or is_public(self.env_id, text):
            lines.append(f"{self.who(agent)}: {PHASE_WORDS.get(view.get('phase'), '')}{text}")
        else:
            lines.append(f"{self.who(agent)} has moved")
        return lines

    def catch_up(self) -> list[str]:
        """What changed in the seat's view since the last call."""
        new = self.raw.view(self.seat)
        old, self.last_view = self.last_view, new
        if old is None:
            return []
        return self.changes(old, new)

    # -- Astrobirdz --

    def _astrobirdz(self, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
        lines = []
        if self.last_play is not None and not new["trick"]:
            plays = [(p["player"], p["card"]) for p in old["trick"]] + [self.last_play]
            winner = self._trick_winner(old, new)
            shown = ", ".join(f"{a} {c}" for a, c in plays)
            lines.append(f"trick complete: {shown} -> won by {self.who(winner) if winner else '?'}")
            self.last_play = None
        if new.get("last_turn") and new["last_turn"] != old.get("last_turn"):
            turn = new["turn"] if new["over"] else new["turn"] - 1
            lines.append(f"turn {turn} scored:")
            for agent, item in new["last_turn"].items():
                lines.append(
                    f"  {self.who(agent)}: {turn_item_text(item)} (total {new['scores'][agent]})"
                )
        if new["turn"] != old["turn"] and not new["over"]:
            rule = new["trump_rule"]
            lines.append(
                f"turn {new['turn']} of {new['turns']}: {new['hand_size']} cards each; trump card "
                f"{new['trump_card']} ({rule['title']}: {rule['text']})"
            )
        return lines

    def _trick_winner(self, old: dict[str, Any], new: dict[str, Any]) -> str | None:
        if new["turn"] == old["turn"] and len(new["trick_winners"]) > len(old["trick_winners"]):
            return new["trick_winners"][-1]
        last = new.get("last_turn") or {}
        grew = [a for a, item in last.items() if item["tricks"] - old["tricks_won"][a] == 1]
        return grew[0] if len(grew) == 1 else None

    # -- Asrus --

    def _asrus(self, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
        from flockgym.envs.asrus.observer import describe_last_turn

        lines = []
        if new.get("last_turn") and new["last_turn"] != old.get("last_turn"):
            lines.append("turn revealed: " + describe_last_turn(new["last_turn"]))
        lottery = new.get("lottery")
        if lottery and lottery != old.get("lottery"):
            lines.append(
                f"end-of-round lottery: {', '.join(lottery['winners'])} "
                f"take{'s' if len(lottery['winners']) == 1 else ''} {lottery['share']}"
                f"{' each' if len(lottery['winners']) > 1 else ''} of {lottery['amount']}"
            )
        return lines
