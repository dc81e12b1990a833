"""Action ids of the Arena: one flat ``Discrete`` space in named segments.

The sizes come from the box (S spaces, C = maneuver + world cards, K medal
cards, G gyms, H characters, T trophies) and the number of players n. With the
shipped box (S=50, C=50, K=12, G=8, H=18, T=40) and 4 players the space has
461 ids:

| segment | size | ids (4p) | string |
| --- | --- | --- | --- |
| corner | 4 | 0..3 | ``corner 2`` |
| roll | 1 | 4 | ``roll`` |
| spend | T+1 | 5..45 | ``spend 2`` |
| to | S | 46..95 | ``to 17`` |
| stop | 1 | 96 | ``stop`` |
| slide | 1 | 97 | ``slide`` |
| stay | 1 | 98 | ``stay`` |
| train | 1 | 99 | ``train`` |
| challenge | C | 100..149 | ``challenge maneuver Spacefreeze Cryo Blast`` |
| challenge medal | 1 | 150 | ``challenge medal`` |
| challenge player | (n-1)C | 151..300 | ``challenge player_2 world Hoverion`` |
| end | 1 | 301 | ``end`` |
| pick | C | 302..351 | ``pick Hoverion`` |
| place | S | 352..401 | ``place 17`` |
| player | n-1 | 402..404 | ``player_2`` |
| become | H | 405..422 | ``become Mecha-Invazorz Destructarian Graptarg`` |
| use | G | 423..430 | ``use Halfpipe Hall`` |
| add | K | 431..442 | ``add Stunt Die`` |
| wish | H | 443..460 | ``wish Spaceboardzerka`` |

What each means:

* ``corner k``: start on corner k (1-4, the gym corners in loop order).
* ``roll``: roll the movement die (after any power or medal die before it).
* ``spend k``: spend k trophies (+2 each): after the movement roll, or before
  a challenge or defence roll.
* ``to s``: move to space s: the next space at a fork, or the space an effect
  sends the player to (a gym, any space, any inside space).
* ``stop``: stop on this space to challenge a player on it. ``slide``: go
  through the Nebula Slide. ``stay``: end the move on the slide end instead.
* ``train``: take a gym power card from this gym (or, after the Nova Debris
  Field sends the player to a gym, take one).
* ``challenge ...``: challenge for the card or medal card on this space.
* ``challenge player_j kind name``: challenge player_j (on this space) for
  that card of theirs.
* ``end``: take no (more) action; decline an optional effect.
* ``pick name``: the card an effect asks for (to lose, take or discard).
* ``place s``: the space a returned card or another player's fingerboard goes to.
* ``player_j``: the other player an effect names.
* ``become name``: the character to become (an Astrobirdz name means its
  Berzerkerbirdz card).
* ``use gym``: use a gym power card of that gym (before a roll it changes; a
  transform power also at a Nebula Slide end). ``add name``: add that medal
  card's extra die to the coming roll.
* ``wish name``: at setup, the character this seat wishes for (hidden from the
  other seats until every seat without a character has wished).

The challenge-player and player segments are relative to the actor (k = 1..n-1
seats to the left, so a policy sees "my left neighbour" the same way from
every seat), while their strings name the absolute agent.
"""

from __future__ import annotations

from .data import Box

SEGMENTS = ("corner", "roll", "spend", "to", "stop", "slide", "stay", "train", "challenge",
            "challenge_medal", "challenge_player", "end", "pick", "place", "player", "become",
            "use", "add", "wish")  # fmt: skip


class ActionLayout:
    """Offsets of every segment for a box and a number of players; each segment's
    offset is also an attribute (``layout.spend``, ``layout.challenge_player``).

    >>> from flockgym.envs.arena.data import default_box
    >>> layout = ActionLayout(default_box(), 4)
    >>> layout.size, layout.to_string(0, layout.spend + 2), layout.to_string(3, layout.player)
    (461, 'spend 2', 'player_0')
    """

    def __init__(self, box: Box, num_players: int) -> None:
        self.box = box
        self.num_players = n = num_players
        self.sizes: dict[str, int] = {
            "corner": len(box.corners),
            "roll": 1,
            "spend": box.trophies + 1,
            "to": box.num_spaces,
            "stop": 1,
            "slide": 1,
            "stay": 1,
            "train": 1,
            "challenge": box.num_cards,
            "challenge_medal": 1,
            "challenge_player": (n - 1) * box.num_cards,
            "end": 1,
            "pick": box.num_cards,
            "place": box.num_spaces,
            "player": n - 1,
            "become": box.num_characters,
            "use": len(box.gyms),
            "add": len(box.medal_cards),
            "wish": box.num_characters,
        }
        self.offsets: dict[str, int] = {}
        at = 0
        for name in SEGMENTS:
            self.offsets[name] = at
            at += self.sizes[name]
        self.size = at
        o = self.offsets
        self.corner, self.roll, self.spend, self.to = o["corner"], o["roll"], o["spend"], o["to"]
        self.stop, self.slide, self.stay, self.train = o["stop"], o["slide"], o["stay"], o["train"]
        self.challenge, self.challenge_medal = o["challenge"], o["challenge_medal"]
        self.challenge_player, self.end, self.pick = o["challenge_player"], o["end"], o["pick"]
        self.place, self.player, self.become = o["place"], o["player"], o["become"]
        self.use, self.add, self.wish = o["use"], o["add"], o["wish"]

    def segment_of(self, action: int) -> tuple[str, int]:
        """``(segment, index inside it)`` of an action id."""
        if not 0 <= action < self.size:
            raise ValueError(f"action id must be in 0..{self.size - 1}, got {action}")
        for name in reversed(SEGMENTS):
            if action >= self.offsets[name]:
                return name, action - self.offsets[name]
        raise AssertionError("unreachable")

    def relative(self, actor: int, target: int) -> int:
        """1..n-1: how many seats to the left of ``actor`` ``target`` sits."""
        k = (target - actor) % self.num_players
        if k == 0:
            raise ValueError("a player action must name another player")
        return k

    def seat_at(self, actor: int, k: int) -> int:
        return (actor + k) % self.num_players

    def challenge_player_id(self, actor: int, target: int, card: int) -> int:
        k = self.relative(actor, target)
        return self.offsets["challenge_player"] + (k - 1) * self.box.num_cards + card

    def player_id(self, actor: int, target: int) -> int:
        return self.offsets["player"] + self.relative(actor, target) - 1

    # -- words --

    def to_string(self, actor: int, action: int) -> str:
        """Readable name of ``action`` taken by seat ``actor``."""
        seg, i = self.segment_of(action)
        box = self.box
        if seg in ("roll", "stop", "slide", "stay", "train", "end"):
            return seg
        if seg == "challenge_medal":
            return "challenge medal"
        if seg == "corner":
            return f"corner {i + 1}"
        if seg == "spend":
            return f"spend {i}"
        if seg == "to":
            return f"to {i}"
        if seg == "place":
            return f"place {i}"
        if seg == "challenge":
            card = box.cards[i]
            return f"challenge {card.kind} {card.name}"
        if seg == "challenge_player":
            k, c = divmod(i, box.num_cards)
            card = box.cards[c]
            return f"challenge player_{self.seat_at(actor, k + 1)} {card.kind} {card.name}"
        if seg == "pick":
            return f"pick {box.cards[i].name}"
        if seg == "player":
            return f"player_{self.seat_at(actor, i + 1)}"
        if seg == "become":
            return f"become {box.characters[i].name}"
        if seg == "use":
            return f"use {box.gyms[i].name}"
        if seg == "wish":
            return f"wish {box.characters[i].name}"
        return f"add {box.medal_cards[i].name}"

    def from_string(self, actor: int, text: str) -> int:
        """Inverse of :meth:`to_string` (case and spacing do not matter); the
        error names every accepted form."""
        cleaned = " ".join(str(text).strip().split()).lower()
        try:
            return self._parse(actor, cleaned)
        except (ValueError, KeyError):
            n = self.num_players
            raise ValueError(
                f"cannot read action {text!r}; write one of: 'corner 1'..'corner "
                f"{self.sizes['corner']}', 'roll', 'spend 0'..'spend {self.box.trophies}', "
                f"'to <space 0..{self.box.num_spaces - 1}>', 'stop', 'slide', 'stay', 'train', "
                "'challenge maneuver <name>', 'challenge world <name>', 'challenge medal', "
                "'challenge player_<k> maneuver|world <name>', 'end', 'pick <card name>', "
                "'place <space>', 'player_<k>' (another player, 0.."
                f"{n - 1}), 'become <character>', 'use <gym>', 'add <medal card>', "
                "'wish <character>'"
            ) from None

    def _parse(self, actor: int, cleaned: str) -> int:
        box, off = self.box, self.offsets
        if cleaned in ("roll", "stop", "slide", "stay", "train", "end"):
            return off[cleaned]
        if cleaned == "challenge medal":
            return off["challenge_medal"]
        verb, _, rest = cleaned.partition(" ")
        if verb in ("corner", "spend", "to", "place") and rest.isdigit():
            number = int(rest)
            size = self.sizes[verb]
            index = number - 1 if verb == "corner" else number
            if 0 <= index < size:
                return off[verb] + index
            raise ValueError(cleaned)
        if cleaned.startswith("player_") and cleaned[7:].isdigit():
            return off["player"] + self._relative_named(actor, cleaned) - 1
        if verb == "pick":
            return off["pick"] + box.card_named[rest]
        if verb == "become":
            return off["become"] + box.character_named[rest]
        if verb == "wish":
            return off["wish"] + box.character_named[rest]
        if verb == "use":
            return off["use"] + box.gym_named[rest]
        if verb == "add":
            return off["add"] + box.medal_card_named[rest]
        if verb == "challenge":
            return self._parse_challenge(actor, rest)
        raise ValueError(cleaned)

    def _relative_named(self, actor: int, word: str) -> int:
        seat = int(word[7:])
        if not 0 <= seat < self.num_players or seat == actor:
            raise ValueError(word)
        return self.relative(actor, seat)

    def _parse_challenge(self, actor: int, rest: str) -> int:
        box, off = self.box, self.offsets
        first, _, tail = rest.partition(" ")
        if first.startswith("player_"):
            k = self._relative_named(actor, first)
            kind, _, name = tail.partition(" ")
            card = box.cards[box.card_named[name]]
            if card.kind != kind:
                raise ValueError(rest)
            return off["challenge_player"] + (k - 1) * box.num_cards + card.id
        card = box.cards[box.card_named[tail]]
        if card.kind != first:
            raise ValueError(rest)
        return off["challenge"] + card.id


def is_public_move(layout: ActionLayout, action: int) -> bool:
    """Whether every seat reads ``action`` when it is made (what the play server's
    move log and terminal narration show of the other seats' moves): every move
    but a character wish. Everything on the board is public (positions, cards
    held, trophies, medals, gym powers, medal cards held, every roll); a wish is
    hidden until every seat without a character has wished (then the characters
    given and the open roll-offs tell them), and the medal stack's order is
    never shown (no move names it).

    >>> from flockgym.envs.arena.data import default_box
    >>> layout = ActionLayout(default_box(), 2)
    >>> is_public_move(layout, 0), is_public_move(layout, layout.wish)
    (True, False)
    """
    return action < layout.wish
