"""Action ids of Skybirds: one flat ``Discrete`` space in named segments.

With ``n`` players and ``K`` Aerodrome tokens (11 on the shipped Aerodrome)
the space has ``123 + n + 3K`` ids (``156 + n`` on the shipped Aerodrome):

| segment | ids | meaning | string |
| --- | --- | --- | --- |
| set | 0..38 | a Squadron of k equal Aces of value v | ``"5 5"`` |
| garros | 39..77 | Roland Garros added to k equal Aces | ``"G 4"`` |
| garros alone | 78 | Roland Garros on his own | ``"G"`` |
| pass | 79 | pass in this Dogfight | ``"pass"`` |
| use | 80..79+K | use a token's bonus | ``"use B3"`` |
| add | 80+K..90+K | add an Ace (G, 1..10) to the Squadron being built | ``"add 5"`` |
| done | 91+K | the Squadron is complete / no more tokens / no more trades | ``"done"`` |
| wild | 92+K..101+K | add the wild Ace, by its printed value 1..10 | ``"wild 7"`` |
| declare | 102+K..111+K | declare the wild Ace's value 1..10 | ``"declare 5"`` |
| target | 112+K..110+K+n | the opponent k = 1..n-1 seats to the left | ``"target player_2"`` |
| give | 111+K+n..121+K+n | give an Ace (G, 1..10) in a card swap | ``"give 5"`` |
| take | 122+K+n..121+2K+n | take a token from the Aerodrome | ``"take C1"`` |
| +1VP | 122+2K+n | take a +1VP token | ``"+1VP"`` |
| trade | 123+2K+n..122+3K+n | trade +1VP tokens for a token | ``"trade 2 for A2"`` |

The set segment lists, for each value v = 1..10, the sizes k = 1..(Aces of
that value): 1x1..1x5, 2x1..2x5, ..., 6x1..6x5, 7x1..7x3, 8x1..8x3, 9x1, 9x2,
10x1. The garros segment lists the same sets with Garros added (sizes 2..6, so
k stops at 5). Token segments follow the Aerodrome's row order. A target
names another player relative to the actor (so a policy sees "my left
neighbour" the same way from every seat); its string names the absolute agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import data
from .data import CARD_COUNTS, GARROS, NUM_KINDS, TRADE_COST, Token

SETS: tuple[tuple[int, int], ...] = tuple(
    (v, k) for v in data.VALUES for k in range(1, min(CARD_COUNTS[v], data.MAX_SQUADRON) + 1)
)
"""(value, count) of every plain set, in id order."""
GARROS_SETS: tuple[tuple[int, int], ...] = tuple(
    (v, k) for v in data.VALUES for k in range(1, min(CARD_COUNTS[v], data.MAX_SQUADRON - 1) + 1)
)
"""(value, count) of every set Garros can join, in id order."""

SET_OFFSET = 0
GARROS_OFFSET = SET_OFFSET + len(SETS)  # 39
GARROS_ALONE = GARROS_OFFSET + len(GARROS_SETS)  # 78
PASS = GARROS_ALONE + 1  # 79
USE_OFFSET = PASS + 1  # 80

SET_ID = {vk: SET_OFFSET + i for i, vk in enumerate(SETS)}
GARROS_ID = {vk: GARROS_OFFSET + i for i, vk in enumerate(GARROS_SETS)}


def play_cards(action: int) -> list[int]:
    """The card kinds of a plain-play id (set, garros or Garros alone), ascending."""
    if action < GARROS_OFFSET:
        v, k = SETS[action - SET_OFFSET]
        return [v] * k
    if action < GARROS_ALONE:
        v, k = GARROS_SETS[action - GARROS_OFFSET]
        return [GARROS] + [v] * k
    if action == GARROS_ALONE:
        return [GARROS]
    raise ValueError(f"action {action} is not a plain Squadron")


@dataclass(frozen=True)
class ActionLayout:
    """Offsets of the segments for ``num_players`` seats and an Aerodrome.

    >>> layout = ActionLayout(4, data.AERODROME)
    >>> layout.size, layout.to_string(0, 5), layout.to_string(0, 40), layout.to_string(1, 79)
    (160, '2', 'G 1 1', 'pass')
    >>> layout.to_string(3, layout.target(3, 0)), layout.to_string(0, layout.trade_offset)
    ('target player_0', 'trade 2 for A1')
    """

    num_players: int
    tokens: tuple[Token, ...]
    names: tuple[str, ...] = field(init=False)
    num_tokens: int = field(init=False)
    add_offset: int = field(init=False)
    done: int = field(init=False)
    wild_offset: int = field(init=False)
    declare_offset: int = field(init=False)
    target_offset: int = field(init=False)
    give_offset: int = field(init=False)
    take_offset: int = field(init=False)
    plus_one: int = field(init=False)
    trade_offset: int = field(init=False)
    size: int = field(init=False)

    def __post_init__(self) -> None:
        """The offsets, segment after segment (computed once: they are read at
        every step)."""
        k, n = len(self.tokens), self.num_players
        offsets = {"names": tuple(t.name for t in self.tokens), "num_tokens": k}
        at = USE_OFFSET + k
        for name, width in (("add_offset", NUM_KINDS), ("done", 1), ("wild_offset", 10),
                            ("declare_offset", 10), ("target_offset", n - 1),
                            ("give_offset", NUM_KINDS), ("take_offset", k), ("plus_one", 1),
                            ("trade_offset", k), ("size", 0)):  # fmt: skip
            offsets[name] = at
            at += width
        for name, value in offsets.items():
            object.__setattr__(self, name, value)

    # -- encoders --

    def use(self, token: int) -> int:
        return USE_OFFSET + token

    def add(self, kind: int) -> int:
        return self.add_offset + kind

    def wild(self, value: int) -> int:
        return self.wild_offset + value - 1

    def declare(self, value: int) -> int:
        return self.declare_offset + value - 1

    def target(self, actor: int, seat: int) -> int:
        """Id naming seat ``seat`` from ``actor``'s seat (seat != actor)."""
        offset = (seat - actor) % self.num_players
        if offset == 0:
            raise ValueError("a target must be another player")
        return self.target_offset + offset - 1

    def target_seat(self, actor: int, action: int) -> int:
        return (actor + action - self.target_offset + 1) % self.num_players

    def give(self, kind: int) -> int:
        return self.give_offset + kind

    def take(self, token: int) -> int:
        return self.take_offset + token

    def trade(self, token: int) -> int:
        return self.trade_offset + token

    # -- strings --

    def to_string(self, actor: int, action: int) -> str:
        """Readable name of ``action`` taken by seat ``actor``."""
        if not 0 <= action < self.size:
            raise ValueError(f"action id must be in 0..{self.size - 1}, got {action}")
        if action < PASS:
            return " ".join(data.card_text(k) for k in play_cards(action))
        if action == PASS:
            return "pass"
        if action < self.add_offset:
            return f"use {self.names[action - USE_OFFSET]}"
        if action < self.done:
            return f"add {data.card_text(action - self.add_offset)}"
        if action == self.done:
            return "done"
        if action < self.declare_offset:
            return f"wild {action - self.wild_offset + 1}"
        if action < self.target_offset:
            return f"declare {action - self.declare_offset + 1}"
        if action < self.give_offset:
            return f"target player_{self.target_seat(actor, action)}"
        if action < self.take_offset:
            return f"give {data.card_text(action - self.give_offset)}"
        if action < self.plus_one:
            return f"take {self.names[action - self.take_offset]}"
        if action == self.plus_one:
            return "+1VP"
        token = action - self.trade_offset
        cost = TRADE_COST[self.tokens[token].ribbon]
        return f"trade {cost} for {self.names[token]}"

    def from_string(self, actor: int, text: str) -> int:
        """Inverse of :meth:`to_string`; the error names every accepted form."""
        cleaned = " ".join(str(text).strip().split())
        try:
            return self._parse(actor, cleaned)
        except ValueError:
            raise ValueError(
                f"cannot read action {text!r}; write a Squadron as its Aces in ascending "
                f"order ('5 5', 'G 4', '9', 'G'), 'pass', 'use <token>', 'add <ace>', "
                f"'done', 'wild <1-10>', 'declare <1-10>', 'target player_<k>' (another "
                f"player), 'give <ace>', 'take <token>', '+1VP' or 'trade <n> for "
                f"<token>'; tokens: {', '.join(self.names)}"
            ) from None

    def _token_index(self, name: str) -> int:
        lowered = [n.lower() for n in self.names]
        if name.lower() not in lowered:
            raise ValueError(name)
        return lowered.index(name.lower())

    def _parse(self, actor: int, cleaned: str) -> int:
        lowered = cleaned.lower()
        if lowered == "pass":
            return PASS
        if lowered == "done":
            return self.done
        if lowered == "+1vp":
            return self.plus_one
        verb, _, rest = cleaned.partition(" ")
        verb = verb.lower()
        if verb == "use":
            return self.use(self._token_index(rest))
        if verb == "take":
            return self.take(self._token_index(rest))
        if verb == "add":
            return self.add(data.parse_card(rest))
        if verb == "give":
            return self.give(data.parse_card(rest))
        if verb in ("wild", "declare") and rest.isdigit() and 1 <= int(rest) <= 10:
            return self.wild(int(rest)) if verb == "wild" else self.declare(int(rest))
        if verb == "target" and rest.lower().startswith("player_") and rest[7:].isdigit():
            seat = int(rest[7:])
            if 0 <= seat < self.num_players and seat != actor:
                return self.target(actor, seat)
            raise ValueError(rest)
        if verb == "trade":
            parts = rest.split()
            if len(parts) != 3 or parts[1].lower() != "for":
                raise ValueError(rest)
            token = self._token_index(parts[2])
            if parts[0] != str(TRADE_COST[self.tokens[token].ribbon]):
                raise ValueError(rest)
            return self.trade(token)
        return self._squadron(cleaned)

    def _squadron(self, cleaned: str) -> int:
        kinds = sorted(data.parse_card(part) for part in cleaned.split())
        if not kinds:
            raise ValueError(cleaned)
        garros = kinds[0] == GARROS
        values = kinds[1:] if garros else kinds
        if garros and not values:
            return GARROS_ALONE
        if not values or len(set(values)) != 1:
            raise ValueError(cleaned)
        key = (values[0], len(values))
        table = GARROS_ID if garros else SET_ID
        if key not in table:
            raise ValueError(cleaned)
        return table[key]


def is_public_move(layout: ActionLayout, action: int) -> bool:
    """Whether every seat reads ``action`` when it is made (what the play server's
    move log and terminal narration show of the other seats' moves). Squadrons,
    passes, tokens used, taken and traded, +1VP, the steps of a Squadron built
    with tokens (add, wild, declare, done: its Aces all land on the table) and a
    Pre-Campaign swap's opponent (target: made at the table, it shows no card) are
    in the open; the Aces given in the swap (the give segment) show only in the
    two hands involved.

    >>> layout = ActionLayout(4, data.AERODROME)
    >>> is_public_move(layout, layout.add(5)), is_public_move(layout, layout.give(5))
    (True, False)
    """
    return not layout.give_offset <= action < layout.take_offset
