"""Asrus observations, views and text: what each seat may see.

The observation vector is documented field by field in the env's module
docstring (``flockgym.envs.asrus.env``); :class:`AsrusObserver` builds it, the
JSON ``view`` of a seat, and the text table. Nothing here decides a rule.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ..core.aec import agent_name
from ..core.game import NO_PLAYER
from . import data
from .actions import NUM_SLOTS, SLOTS
from .rules import AsrusConfig, AsrusGame

OUTCOME_KINDS = ("majority", "closest", "farthest", "draw", "explosion")
SPECIAL_LETTERS = (*data.SPECIAL_KINDS, "J")


def observation_size(num_players: int) -> int:
    """63 + 33n: see the table in the module docstring."""
    return 63 + 33 * num_players


class AsrusObserver:
    """Observation vectors, views and text for one game, shared by the AEC and
    the parallel env.

    Everything is encoded once per turn (when the game's ``version`` changes)
    into one flat source buffer in absolute seat order: the public fields, every
    seat's own hand and specials, and the committed flags each seat sees when
    its turn comes. Every seat's vector is then one gather through a
    precomputed index that rotates each per-player field to start at that seat
    and picks that seat's own hand. This keeps the per-step cost flat in the
    number of players, which matters because every step observes a new seat.
    """

    PER_PLAYER: ClassVar[dict[str, int]] = {
        "points": 1, "specials_held": 1, "committed": 1, "last_numbers": 15,
        "last_specials": NUM_SLOTS, "last_winner": 1, "lottery_winner": 1,
    }  # fmt: skip
    """Fields with one block per player, stored from the observer's seat on."""

    def __init__(self, config: AsrusConfig) -> None:
        n = config.num_players
        self.config = config
        self.size = observation_size(n)
        offsets, at = {}, 0
        for name, width in (
            ("hand", 15), ("specials", 6), ("destination", 15), ("destination_card", 1),
            ("deposit", 1), ("points", n), ("specials_held", n), ("hand_left", 1),
            ("committed", n), ("last_numbers", 15 * n), ("last_specials", NUM_SLOTS * n),
            ("last_kind", 5), ("last_winner", n), ("last_blackhole", 1), ("revealed", 15),
            ("progress", 2), ("lottery_winner", n), ("lottery_amount", 1),
        ):  # fmt: skip
            offsets[name] = (at, at + width)
            at += width
        assert at == self.size
        self.offsets = offsets
        assert offsets["hand"] == (0, 15) and offsets["specials"] == (15, 21)
        self._private_width = 21
        self._flags_at = self.size
        """Source offset of the committed flags: n*n entries, [s*n + j] = 1 when
        seat j has committed by the time seat s is to act (j < s)."""
        self._private_at = self.size + n * n
        """Source offset of every seat's hand and specials: n blocks of 21."""
        self._source_buffer = array("f", bytes(4 * (self._private_at + n * self._private_width)))
        """The gather source, written with plain item assignments (a few dozen
        per turn, far cheaper than building index and value arrays for numpy)."""
        self._source = np.frombuffer(self._source_buffer, dtype=np.float32)
        """A numpy view of the same memory, for the gather and the hands."""
        for seat in range(n):
            for other in range(seat):
                self._source_buffer[self._flags_at + seat * n + other] = 1.0
        self._zeros = array("f", bytes(4 * self.size))
        self._private = self._source[self._private_at :].reshape(n, self._private_width)
        self._committed_lo = offsets["committed"][0]
        self._rotations = np.stack([self._rotation(seat) for seat in range(n)])
        self._committed_flags = np.array(
            [[[float((seat + rel) % n < count) for rel in range(n)] for count in range(n + 1)]
             for seat in range(n)],
            dtype=np.float32,
        )  # fmt: skip
        """[seat, c, rel]: 1 when, with c seats committed (in seat order), the
        player ``rel`` seats from ``seat`` has committed."""
        self._turn_game: AsrusGame | None = None
        self._turn_version = -1
        """The game object and its ``version`` the matrix was built from: the
        object itself, not its ``id`` (a freed game's id can be reused by a new
        game at the same version)."""
        self._matrix = np.zeros((n, self.size), dtype=np.float32)
        self._row_committed = list(range(n))
        """The committed count each row of ``_matrix`` shows: ``seat`` when built
        (seats commit in order, so that is what the seat to act sees)."""
        self._max_hand = config.max_hand_size
        self._private_scale = np.array([1.0 / 8.0] * 15 + [1.0 / 3.0] * 6, dtype=np.float32)
        """Number-card counts are shown / 8 (no number has more copies), special
        counts / 3 (2 of each kind, 3 jokers)."""
        self._special_deck = float(config.special_deck_size)
        """Most specials one player can hold (a scenario may give one player all)."""
        self._at = {name: lo for name, (lo, _) in offsets.items()}
        self._public_at = tuple(
            offsets[name][0]
            for name in (
                "destination", "destination_card", "deposit", "points", "specials_held",
                "hand_left", "revealed", "progress",
            )
        )  # fmt: skip
        """The offsets :meth:`_write_public` writes every turn, as one tuple it
        unpacks into locals (a dict lookup per field costs more)."""

    def _rotation(self, seat: int) -> np.ndarray:
        """Gather index: entry i of ``seat``'s vector comes from entry index[i] of
        the source buffer (see ``__init__``)."""
        n = self.config.num_players
        index = np.arange(self.size)
        for name, width in self.PER_PLAYER.items():
            lo = self.offsets[name][0]
            for rel in range(n):
                source = lo + width * ((seat + rel) % n)
                index[lo + width * rel : lo + width * (rel + 1)] = np.arange(source, source + width)
        private = self._private_at + self._private_width * seat
        index[: self._private_width] = np.arange(private, private + self._private_width)
        lo = self._committed_lo
        index[lo : lo + n] = [self._flags_at + seat * n + (seat + rel) % n for rel in range(n)]
        return index

    def reset_cache(self) -> None:
        """Forget the matrix: the next :meth:`encode` builds it from the game."""
        self._turn_game = None

    def encode(self, game: AsrusGame, seat: int) -> np.ndarray:
        """The observation of ``seat`` (a row of a cached matrix: copy before
        handing it out)."""
        if game is not self._turn_game or game.version != self._turn_version:
            self._build_turn(game)
        vec = self._matrix[seat]
        count = game.committed
        if self._row_committed[seat] != count:
            lo = self._committed_lo
            vec[lo : lo + self.config.num_players] = self._committed_flags[seat, count]
            self._row_committed[seat] = count
        return vec

    def _build_turn(self, game: AsrusGame) -> None:
        """Every seat's vector at once: the public fields and the hands written
        into the source buffer, then one gather through the rotation index."""
        self._source_buffer[: self.size] = self._zeros
        self._write_public(game)
        np.multiply(game.holdings()[:, 1:], self._private_scale, out=self._private)
        self._matrix = self._source.take(self._rotations)  # a new array: rows handed out stay
        self._row_committed = list(range(self.config.num_players))
        self._turn_game, self._turn_version = game, game.version

    def _write_public(self, game: AsrusGame) -> None:
        """What every seat sees alike, per-player fields in absolute seat order,
        written into the (zeroed) public part of the source buffer."""
        at, buf = self._at, self._source_buffer
        destination, destination_card, deposit, points, held, hand_left, revealed, progress = (
            self._public_at
        )
        game_points = game.points
        total = max(1, sum(game_points) + game.deposit)
        buf[destination + game.destination - 1] = 1.0
        buf[destination_card] = float(game.destination_card)
        buf[deposit] = game.deposit / total
        deck = self._special_deck
        for seat, (seat_points, seat_specials) in enumerate(
            zip(game_points, game.specials, strict=True)
        ):
            buf[points + seat] = seat_points / total
            buf[held + seat] = sum(seat_specials) / deck
        first_hand = game.hands[0]
        buf[hand_left] = sum(first_hand) / self._max_hand  # all hands alike
        result = game.last_result
        if result is not None:
            numbers, specials = at["last_numbers"] - 1, at["last_specials"]
            for seat, play in enumerate(result.plays):
                buf[numbers + 15 * seat + play.number] = 1.0
                slot = 0 if play.power is None else SLOTS_INDEX[(play.power, play.joker)]
                buf[specials + NUM_SLOTS * seat + slot] = 1.0
            buf[at["last_kind"] + OUTCOME_KINDS.index(result.outcome.kind)] = 1.0
            buf[at["last_blackhole"]] = float(result.blackhole)
            if result.outcome.winner is not None:
                buf[at["last_winner"] + result.outcome.winner] = 1.0
        revealed -= 1
        for number, count in enumerate(game.revealed):
            if count and number:
                buf[revealed + number] = count / 8.0
        # The round's hand size: cards held (index 0 is no card) + turns played.
        hand_size = max(1, sum(first_hand) - first_hand[0] + game.turn - 1)
        buf[progress] = min(1.0, (game.turn - 1) / hand_size)
        if self.config.rounds:
            buf[progress + 1] = min(1.0, (game.round - 1) / self.config.rounds)
        lottery = game.last_lottery
        if lottery is not None:
            for seat in lottery.winners:
                buf[at["lottery_winner"] + seat] = 1.0
            buf[at["lottery_amount"]] = lottery.share * len(lottery.winners) / total

    # -- words ---------------------------------------------------------------

    def view(self, game: AsrusGame, seat: int) -> dict[str, Any]:
        """What ``seat`` may see, in words and card strings (JSON types)."""
        n = self.config.num_players
        agents = [agent_name(s) for s in range(n)]
        to_act = game.current_player()
        return {
            "game": "asrus",
            "agent": agent_name(seat),
            "round": game.round,
            "turn": game.turn,
            "destination": str(game.destination),
            "destination_card": game.destination_card,
            "deposit": game.deposit,
            "hand": cards_text(game.hands[seat]),
            "specials": specials_text(game.specials[seat]),
            "points": dict(zip(agents, game.points, strict=True)),
            "stones": {a: stones_of(p) for a, p in zip(agents, game.points, strict=True)},
            "specials_held": {a: sum(game.specials[s]) for s, a in enumerate(agents)},
            "hand_left": sum(game.hands[seat][1:]),
            "committed": [agents[s] for s in range(n) if game.pending[s] is not None],
            "to_act": None if to_act == NO_PLAYER else agents[to_act],
            "last_turn": None if game.last_result is None else result_view(game, agents),
            "lottery": None if game.last_lottery is None else lottery_view(game, agents),
            "revealed_this_round": cards_text(game.revealed),
            "deck": {str(n): c for n, c in self.config.number_counts.items()},
            "over": game.over,
        }  # fmt: skip

    def render(self, game: AsrusGame, seat: int | None) -> str:
        """The table as text from ``seat``'s view, or with every hand for ``None``.

        Built from :meth:`view` alone, so the text from a seat can never show
        more than that seat may see."""
        n = self.config.num_players
        if seat is not None:
            return render_view(self.view(game, seat))
        views = [self.view(game, s) for s in range(n)]
        return render_view(views[0], {v["agent"]: v for v in views})


def render_view(view: dict[str, Any], all_views: dict[str, dict[str, Any]] | None = None) -> str:
    """Text of one seat's view; ``all_views`` adds every seat's own hand."""
    no_card = "" if view["destination_card"] else " (no card)"
    lines = [
        f"Asrus  round {view['round']}  turn {view['turn']}  destination "
        f"{view['destination']}{no_card}  deposit {view['deposit']}"
    ]
    if view["last_turn"] is not None:
        lines.append("last turn: " + describe_last_turn(view["last_turn"]))
    if view["lottery"] is not None:
        lottery = view["lottery"]
        if len(lottery["winners"]) == 1:
            won = f"{lottery['winners'][0]} drew lowest and takes {lottery['share']}"
        else:
            tied = ", ".join(lottery["winners"])
            won = f"no single lowest card; {tied} take {lottery['share']} each"
        lines.append(f"lottery: {won}")
    for agent, points in view["points"].items():
        mark = ">" if agent == view["to_act"] else " "
        line = f"{mark} {agent}: {points:>4} pts  specials {view['specials_held'][agent]}"
        shown = all_views[agent] if all_views else (view if agent == view["agent"] else None)
        if shown is not None:
            special = " ".join(shown["specials"]) or "-"
            line += f"  hand [{' '.join(shown['hand'])}]  specials [{special}]"
        lines.append(line + (" (committed)" if agent in view["committed"] else ""))
    if view["over"]:
        best = max(view["points"].values())
        winners = [a for a, p in view["points"].items() if p == best]
        lines.append("game over; winners: " + ", ".join(winners))
    return "\n".join(lines)


SLOTS_INDEX = {slot: index for index, slot in enumerate(SLOTS)}


def cards_text(counts: list[int]) -> list[str]:
    """Number-card counts (index = number) as sorted card strings."""
    return [str(number) for number in data.NUMBERS for _ in range(counts[number])]


def specials_text(counts: list[int]) -> list[str]:
    return [SPECIAL_LETTERS[i] for i, c in enumerate(counts) for _ in range(c)]


def stones_of(points: int) -> dict[str, int]:
    """Points shown as the fewest stones: red 10, green 5, blue 1."""
    red, rest = divmod(max(points, 0), 10)
    green, blue = divmod(rest, 5)
    return {"red": red, "green": green, "blue": blue}


def result_view(game: AsrusGame, agents: list[str]) -> dict[str, Any]:
    result = game.last_result
    assert result is not None
    return {
        "destination": str(result.destination),
        "plays": {a: p.text() for a, p in zip(agents, result.plays, strict=True)},
        "kind": result.outcome.kind,
        "winner": None if result.outcome.winner is None else agents[result.outcome.winner],
        "distance": result.outcome.distance,
        "points_change": dict(zip(agents, result.deltas, strict=True)),
        "blackhole": result.blackhole,
        "deposit_before": result.deposit_before,
        "deposit_after": result.deposit_after,
    }


def lottery_view(game: AsrusGame, agents: list[str]) -> dict[str, Any]:
    lottery = game.last_lottery
    assert lottery is not None
    return {
        "draws": [{agents[s]: str(c) for s, c in d.items()} for d in lottery.draws],
        "winners": [agents[s] for s in lottery.winners],
        "amount": lottery.amount,
        "share": lottery.share,
    }


def describe_last_turn(last: dict[str, Any]) -> str:
    """One line for the last turn of a view: the cards, who won and what moved."""
    plays = ", ".join(f"{agent}: {play}" for agent, play in last["plays"].items())
    kind, winner = last["kind"], last["winner"]
    if winner is None:
        what = (
            "explosion, nobody scores"
            if kind == "explosion"
            else f"draw, everyone deposits {last['distance']}"
        )
    else:
        how = f"{winner} wins ({kind}, distance {last['distance']})"
        if last["blackhole"]:
            sent = last["deposit_after"] - last["deposit_before"]
            what = f"{how}, but a blackhole sends the {sent} points to the deposit"
        else:
            what = f"{how} +{last['points_change'][winner]}"
    return f"to {last['destination']}: {plays} -> {what}"


# -- table talk: what a seat is told happened, from its views ---------------------


def narrate_changes(
    old: dict[str, Any],
    new: dict[str, Any],
    who: Callable[[str], str],
    last_move: tuple[str, str] | None,
) -> list[str]:
    """What changed between two of a seat's views (``env.view``), in words, for
    terminal play and replays: the revealed turn and the end-of-round lottery.
    Only the views are read, so nothing is told that the seat may not see.
    ``who`` names an agent for that seat; ``last_move`` is unused here."""
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
