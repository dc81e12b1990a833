"""What happened since a seat last looked, in words: terminal play and replays.

A :class:`Narrator` follows one seat. It is told each move as it is made
(:meth:`Narrator.move`, which names the move only where :mod:`.disclosure`
lets that seat read it) and, between moves, compares the seat's new view with
the last one (:meth:`Narrator.catch_up`): for Astrobirdz the completed trick
with its winner and the turn's scoring item by item, for Asrus the revealed
turn and the lottery, for Skybirds each Dogfight won, each player going out,
every token taken, flipped or returned and each new Campaign, for the Arena
every roll, move, encounter and challenge with its dice. Everything it says
comes from that seat's view, so it can never tell more than the seat may see.
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
    "pick_player": "names ",
}
"""Words before a move's string where the string alone reads oddly (Astrobirdz phases;
the Arena's effect naming a player)."""


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
            "skybirds_v0": self._skybirds,
            "arena_v0": self._arena,
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

    # -- Skybirds --

    def _skybirds(self, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
        lines = []
        fight = new.get("last_dogfight")
        if fight and fight != old.get("last_dogfight"):
            lines.append(
                f"dogfight won by {self.who(fight['winner'])} with "
                f"{squadron_text(fight['squadron'])}"
            )
        if new["campaign"] == old["campaign"]:
            for place, agent in enumerate(new["finish"], start=1):
                if agent not in old["finish"]:
                    lines.append(f"{self.who(agent)} goes out: place {place}")
        for agent, held in new["tokens"].items():
            lines += self._token_changes(agent, old["tokens"][agent], held)
            gained = new["plus_one"][agent] - old["plus_one"][agent]
            if gained:
                word = "takes" if gained > 0 else "spends"
                lines.append(f"{self.who(agent)} {word} {abs(gained)} +1VP token(s)")
            if new["fractional"][agent] and not old["fractional"][agent]:
                lines.append(f"{self.who(agent)} takes the {new['fractional'][agent]} VP token")
        if new["armistice"] and not old["armistice"]:
            lines.append(f"{self.who(new['armistice'])} takes the Armistice: the Great War ends")
        if new["campaign"] != old["campaign"] and not new["over"]:
            vp = ", ".join(f"{a} {v:g}" for a, v in new["vp"].items())
            lines.append(f"campaign {new['campaign']} dealt (VP: {vp})")
        return lines

    def _token_changes(self, agent: str, old: dict[str, str], new: dict[str, str]) -> list[str]:
        lines = []
        for token, side in new.items():
            if token not in old:
                lines.append(f"{self.who(agent)} takes {token}")
            elif side != old[token]:
                lines.append(f"{self.who(agent)} uses {token}: flipped")
        for token in old:
            if token not in new:
                lines.append(f"{self.who(agent)}'s {token} goes back to the Aerodrome")
        return lines

    # -- the Arena --

    def _arena(self, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
        lines = []
        rolls, before = new["last_rolls"], old["last_rolls"]
        fresh = rolls[len(before) :] if rolls[: len(before)] == before else rolls
        for r in fresh:
            lines.append(
                f"{self.who(r['player'])} rolls {r['die']} ({r['purpose']}): {r['result']}"
            )
        spaces = new["board"]["spaces"]
        for agent, p in new["players"].items():
            was = old["players"][agent]
            if p["position"] != was["position"] and p["position"] >= 0:
                lines.append(f"{self.who(agent)} to {space_text(spaces[p['position']])}")
            if p["form"] != was["form"] or p["character"] != was["character"]:
                lines.append(f"{self.who(agent)} is now {p['character']} ({p['form']})")
            for medal in p["medals"]:
                if medal not in was["medals"]:
                    lines.append(f"{self.who(agent)} gains a {medal} medal")
            if len(p["worlds"]) != len(was["worlds"]):
                lines.append(f"{self.who(agent)} holds {len(p['worlds'])} world(s)")
        encounter = new.get("last_encounter")
        if encounter and encounter != old.get("last_encounter"):
            lines.append(
                f"encounter, {encounter['table']} {encounter['roll']}: {encounter['result']}"
            )
        challenge = new.get("last_challenge")
        if challenge and challenge != old.get("last_challenge"):
            lines.append(self._challenge_text(challenge))
        return lines

    def _challenge_text(self, c: dict[str, Any]) -> str:
        against = (
            f"{self.who(c['defender'])}'s {c['item']}" if c["defender"] else f"the {c['item']}"
        )
        dice = "+".join(str(d) for d in c["dice"])
        text = f"{self.who(c['challenger'])} challenges for {against} ({c['kind']}): {dice}"
        text += f" = {c['total']}"
        if "defender_total" in c:
            text += f" against {c['defender_total']}"
        elif c["need"] is not None:
            text += f", needs {c['need']}"
        return text + (": won" if c["success"] else ": failed")


def squadron_text(squadron: dict[str, Any]) -> str:
    """``[5 5] (size 2, value 5, 1 Medallion, tokens A1)``."""
    extra = f", tokens {' '.join(squadron['tokens'])}" if squadron["tokens"] else ""
    if squadron["wild"]:
        extra += f", wild {squadron['wild']['printed']} as {squadron['wild']['declared']}"
    medals = squadron["medallions"]
    return (
        f"[{' '.join(squadron['cards'])}] (size {squadron['size']}, value {squadron['value']}"
        f"{f', {medals} Medallion(s)' if medals else ''}{extra})"
    )


def space_text(space: dict[str, Any]) -> str:
    """``space 17 (maneuver Kickflip Kaboom, 11)``: a board space with what lies on it."""
    what = space["gym"] or space["card"] or space["medal_card"] or ""
    need = f", {space['challenge']}" if space["challenge"] is not None else ""
    return f"space {space['id']} ({space['kind']}{' ' + what if what else ''}{need})"
