"""Action ids of Astrobirdz: one flat ``Discrete`` space in named segments.

With ``n`` players the space has ``135 + n`` ids:

| segment | ids | meaning | string |
| --- | --- | --- | --- |
| play | 0..53 | play card ``colour * 9 + number - 1`` | ``"R4"`` |
| guess | 54..64 | guess 0..10 tricks | ``"guess 3"`` |
| trump | 65..70 | choose trump colour R O Y G B P | ``"trump P"`` |
| player | 71..69+n | the player k = 1..n-1 seats to the actor's left | ``"player_2"`` |
| choose | 70+n..123+n | choose a card to pass, discard or trade | ``"choose R4"`` |
| decline | 124+n | decline an optional power | ``"decline"`` |
| trick | 125+n..134+n | the trick the AstroBoard moves: this turn's 1..10 | ``"trick 2"`` |

The player segment is relative to the actor (so a policy sees "my left
neighbour" the same way from every seat, as its observation does), while its
string names the absolute agent: from ``player_3`` of 4, id 71 (k=1) is
``"player_0"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import data

NUM_CARDS = data.NUM_CARDS
NUM_GUESSES = data.MAX_HAND + 1
NUM_TRICKS = data.MAX_HAND
"""Tricks a turn can have: the AstroBoard's trick choice names one of them."""
PLAY_OFFSET = 0
GUESS_OFFSET = PLAY_OFFSET + NUM_CARDS  # 54
TRUMP_OFFSET = GUESS_OFFSET + NUM_GUESSES  # 65
PLAYER_OFFSET = TRUMP_OFFSET + data.NUM_COLOURS  # 71


@dataclass(frozen=True)
class ActionLayout:
    """Offsets of the segments for ``num_players`` seats.

    >>> layout = ActionLayout(4)
    >>> layout.size, layout.choose_offset, layout.decline, layout.trick_offset
    (139, 74, 128, 129)
    >>> layout.to_string(3, 71), layout.to_string(0, 58), layout.to_string(0, 74 + 12)
    ('player_0', 'guess 4', 'choose O4')
    >>> layout.to_string(0, 130), layout.from_string(0, "trick 2")
    ('trick 2', 130)
    """

    num_players: int

    @property
    def choose_offset(self) -> int:
        return PLAYER_OFFSET + self.num_players - 1

    @property
    def decline(self) -> int:
        return self.choose_offset + NUM_CARDS

    @property
    def trick_offset(self) -> int:
        return self.decline + 1

    @property
    def size(self) -> int:
        return self.trick_offset + NUM_TRICKS

    def play(self, card: int) -> int:
        return PLAY_OFFSET + card

    def guess(self, tricks: int) -> int:
        return GUESS_OFFSET + tricks

    def trump(self, colour: int) -> int:
        return TRUMP_OFFSET + colour

    def player(self, actor: int, target: int) -> int:
        """Id naming seat ``target`` from ``actor``'s seat (target != actor)."""
        offset = (target - actor) % self.num_players
        if offset == 0:
            raise ValueError("a player action must name another player")
        return PLAYER_OFFSET + offset - 1

    def target(self, actor: int, action: int) -> int:
        """Seat named by a player-segment id (inverse of :meth:`player`)."""
        return (actor + action - PLAYER_OFFSET + 1) % self.num_players

    def choose(self, card: int) -> int:
        return self.choose_offset + card

    def trick(self, index: int) -> int:
        """Id naming this turn's finished trick ``index`` (0-based; string ``trick index+1``)."""
        return self.trick_offset + index

    def to_string(self, actor: int, action: int) -> str:
        """Readable name of ``action`` taken by seat ``actor``."""
        if not 0 <= action < self.size:
            raise ValueError(f"action id must be in 0..{self.size - 1}, got {action}")
        if action < GUESS_OFFSET:
            return data.card_text(action)
        if action < TRUMP_OFFSET:
            return f"guess {action - GUESS_OFFSET}"
        if action < PLAYER_OFFSET:
            return f"trump {data.COLOURS[action - TRUMP_OFFSET]}"
        if action < self.choose_offset:
            return f"player_{self.target(actor, action)}"
        if action < self.decline:
            return f"choose {data.card_text(action - self.choose_offset)}"
        if action == self.decline:
            return "decline"
        return f"trick {action - self.trick_offset + 1}"

    def from_string(self, actor: int, text: str) -> int:
        """Inverse of :meth:`to_string`; the error names every accepted form."""
        cleaned = " ".join(str(text).strip().split()).lower()
        if cleaned == f"player_{actor}":
            others = ", ".join(f"player_{s}" for s in range(self.num_players) if s != actor)
            raise ValueError(
                f"action {text!r} names player_{actor} itself; a player action names another "
                f"player: {others}"
            )
        try:
            return self._parse(actor, cleaned)
        except ValueError:
            raise ValueError(
                f"cannot read action {text!r}; write a card to play ('R4'), 'guess 3' "
                f"(0..{data.MAX_HAND}), 'trump P' (R O Y G B P), another player "
                f"('player_2', 0..{self.num_players - 1}), 'choose R4' (a card to pass, "
                f"discard or trade), 'decline' or 'trick 2' (1..{NUM_TRICKS}, a trick the "
                f"AstroBoard moves)"
            ) from None

    def _parse(self, actor: int, cleaned: str) -> int:
        if cleaned == "decline":
            return self.decline
        verb, _, rest = cleaned.partition(" ")
        if verb == "guess" and rest.isdigit() and int(rest) < NUM_GUESSES:
            return self.guess(int(rest))
        if verb == "trump" and rest.upper() in data.COLOURS and len(rest) == 1:
            return self.trump(data.COLOURS.index(rest.upper()))
        if verb == "choose":
            return self.choose(data.parse_card(rest))
        if verb == "trick" and rest.isdigit() and 1 <= int(rest) <= NUM_TRICKS:
            return self.trick(int(rest) - 1)
        if cleaned.startswith("player_") and cleaned[7:].isdigit():
            seat = int(cleaned[7:])
            if 0 <= seat < self.num_players and seat != actor:
                return self.player(actor, seat)
            raise ValueError(cleaned)
        return self.play(data.parse_card(cleaned))


def is_public_move(layout: ActionLayout, action: int) -> bool:
    """Whether every seat reads ``action`` when it is made (what the play server's
    move log and terminal narration show of the other seats' moves). Cards played,
    guesses, trump colours, the players named by Nitro, Surfette and the
    AstroBoard, the trick it moves and declines are made in the open; the cards
    chosen to discard, pass or trade (the choose segment) are not.

    >>> layout = ActionLayout(4)
    >>> is_public_move(layout, layout.play(12)), is_public_move(layout, layout.choose(12))
    (True, False)
    """
    return not layout.choose_offset <= action < layout.decline
