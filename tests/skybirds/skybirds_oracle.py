"""An independent legality oracle for Skybirds, written from the rules
(docs/rules/skybirds.md) without the engine's legality code.

It enumerates by brute force every sub-multiset of the hand (1-6 Aces), every
subset of the usable tokens, every choice of wild Ace and declared value, and
judges each candidate Squadron with its own evaluator, including the rule that
a token is used only where it does something (without it the same Aces would
not make the same Squadron, or would not be allowed). From the complete moves
it derives what each step of a move may offer. It reads the engine's *state*
(hands, table, tokens, the move in progress) but never calls its legality
functions.
"""

from __future__ import annotations

from itertools import combinations, product

from flockgym.envs.skybirds import data
from flockgym.envs.skybirds.actions import GARROS_ALONE, GARROS_ID, PASS, SET_ID, ActionLayout
from flockgym.envs.skybirds.basics import SWAP_CARDS
from flockgym.envs.skybirds.rules import MAT, Phase, SkybirdsGame, Step

SHAPES = {"run", "wild", "unmatched"}
MODIFIERS = {"medallion", "two_medallions", "follow_equal", "size_change"}
ICON = {9: 1, 10: 1}


def squadron(cards: tuple[int, ...], bonuses: frozenset[str], wild: int, declare: int):
    """(size, value, medallions) of physical ``cards`` (kinds, 0 = Garros) with the
    shape and medallion bonuses, or None if they are no Squadron."""
    size = len(cards)
    if not 1 <= size <= 6:
        return None
    numbered = [c for c in cards if c]
    garros = size - len(numbered)
    if "wild" in bonuses:
        if wild not in numbered:
            return None
        effective = list(numbered)
        effective.remove(wild)
        effective.append(declare)
    else:
        effective = numbered
    medallions = sum(ICON.get(c, 0) for c in cards)
    medallions += ("medallion" in bonuses) + 2 * ("two_medallions" in bonuses)
    if "run" in bonuses and "unmatched" in bonuses:
        return None
    if not effective:
        return None  # Garros alone is not a token Squadron
    if "run" in bonuses:
        values = sorted(effective)
        if garros or len(values) < 2 or values != list(range(values[0], values[0] + len(values))):
            return None
        return size, values[-1], medallions
    if "unmatched" in bonuses:
        values = effective + [min(effective)] * garros
        if size not in (2, 3) or len(set(values)) == 1:
            return None
        return size, min(values), medallions
    if len(set(effective)) != 1:
        return None
    return size, effective[0], medallions


def allowed(effect, bonuses: frozenset[str], table):
    """Whether a Squadron may be played against ``table`` ((size, medallions,
    value) or None) with these modifier bonuses, ignoring whether they do anything."""
    size, value, medallions = effect
    if table is None:
        return True
    dogfight, table_medallions, table_value = table
    size_ok = size == dogfight or (size == 1 and medallions >= 1)
    if "size_change" in bonuses:
        size_ok = size_ok or abs(size - dogfight) == 1
    if not size_ok:
        return False
    if (medallions, value) > (table_medallions, table_value):
        return True
    return "follow_equal" in bonuses and (medallions, value) == (table_medallions, table_value)


def legal_move(cards, bonuses: frozenset[str], wild: int, declare: int, table) -> bool:
    """A complete token move is legal, and each of its tokens does something."""
    if table is None and bonuses & {"follow_equal", "size_change"}:
        return False
    if "wild" in bonuses and declare == wild:
        return False
    effect = squadron(cards, bonuses, wild, declare)
    if effect is None or not allowed(effect, bonuses, table):
        return False
    for bonus in bonuses:
        rest = bonuses - {bonus}
        if bonus in ("medallion", "two_medallions"):
            continue  # always changes the Squadron's Medallions
        if bonus in ("follow_equal", "size_change"):
            if allowed(effect, rest, table):
                return False  # legal without it: the token does nothing
            continue
        without = squadron(cards, rest, 0, 0)
        if without is not None and without == effect:
            return False  # the same Squadron without this shape bonus
    return True


def sub_multisets(hand: list[int], max_size: int = 6):
    """Every sub-multiset of a count vector (ascending tuples of kinds), size 1..max."""
    kinds = [k for k in range(11) for _ in range(hand[k])]
    seen = set()
    for size in range(1, min(max_size, len(kinds)) + 1):
        for combo in combinations(kinds, size):
            if combo not in seen:
                seen.add(combo)
                yield combo


_MEMO: dict[tuple, frozenset] = {}


def sizes_allowed(bonuses: frozenset[str], table) -> set[int]:
    """The Squadron sizes the rules leave possible (a prefilter: judged again in full)."""
    sizes = {2, 3} if "unmatched" in bonuses else set(range(1, 7))
    if table is None:
        return sizes
    dogfight = table[0]
    near = {1, dogfight}
    if "size_change" in bonuses:
        near |= {dogfight - 1, dogfight + 1}
    return sizes & near


def complete_moves(game: SkybirdsGame):
    """Every legal (token indices, naturals, wild, declare) for the player to act."""
    seat = game.actor
    table = None
    if game.table is not None:
        table = (game.squadron_size, game.table.medallions, game.table.value)
    key = (
        tuple(game.hands[seat]),
        table,
        tuple(game.tokens[seat]),
        game.config.tokens,
        game.config.tokens_per_turn,
    )
    if key not in _MEMO:
        if len(_MEMO) > 4096:
            _MEMO.clear()
        _MEMO[key] = frozenset(_complete_moves(game, table))
    return _MEMO[key]


def _complete_moves(game: SkybirdsGame, table):
    seat = game.actor
    hand = game.hands[seat]
    tokens = game.config.tokens
    usable = [
        i
        for i, t in enumerate(tokens)
        if game.tokens[seat][i] != MAT and t.bonus in SHAPES | MODIFIERS
    ]
    garros_due = hand[0] > 0
    one = game.config.tokens_per_turn == "one"
    out = set()
    cards_list = list(sub_multisets(hand))
    for count in range(1, len(usable) + 1):
        if one and count > 1:
            break
        for used in combinations(usable, count):
            bonuses = frozenset(tokens[i].bonus for i in used)
            sizes = sizes_allowed(bonuses, table)
            for cards in cards_list:
                if len(cards) not in sizes or (garros_due and 0 not in cards):
                    continue
                wilds = sorted({c for c in cards if c}) if "wild" in bonuses else [0]
                declares = range(1, 11) if "wild" in bonuses else [0]
                for wild, declare in product(wilds, declares):
                    if legal_move(cards, bonuses, wild, declare, table):
                        naturals = list(cards)
                        if wild:
                            naturals.remove(wild)
                        out.add((used, tuple(naturals), wild, declare))
    return out


def plain_legal(game: SkybirdsGame) -> set[int]:
    """Plain Squadrons (no tokens) and pass, judged card by card."""
    hand = game.hands[game.actor]
    table = None
    if game.table is not None:
        table = (game.squadron_size, game.table.medallions, game.table.value)
    out = set()
    garros_due = hand[0] > 0
    for (value, count), action in SET_ID.items():
        if hand[value] >= count and not garros_due:
            effect = (count, value, count * ICON.get(value, 0))
            if allowed(effect, frozenset(), table):
                out.add(action)
    if garros_due and table is None:
        out.add(GARROS_ALONE)
        for (value, count), action in GARROS_ID.items():
            if hand[value] >= count:
                out.add(action)
    if table is not None:
        out.add(PASS)
    return out


def oracle(game: SkybirdsGame) -> set[int]:
    """The legal actions of the player to act, from the rules."""
    layout = ActionLayout(game.config.num_players, game.config.tokens)
    seat, phase, step = game.actor, game.phase, game.step
    if phase == Phase.TAKE:
        return take_oracle(game, layout)
    if phase == Phase.TRADE:
        return trade_oracle(game, layout)
    if phase == Phase.PRE_CAMPAIGN:
        return pre_campaign_oracle(game, layout)
    has_tokens = any(
        game.tokens[seat][i] != MAT and t.bonus in SHAPES | MODIFIERS
        for i, t in enumerate(game.config.tokens)
    )
    moves = complete_moves(game) if has_tokens else set()
    if step == Step.START:
        return plain_legal(game) | {layout.use(used[0]) for used, *_ in moves}
    used = tuple(game.pend_tokens)
    prefix = tuple(game.pend_cards)
    out = set()
    if step == Step.TOKENS:
        for tokens, *_ in moves:
            if tokens[: len(used)] == used and len(tokens) > len(used):
                out.add(layout.use(tokens[len(used)]))
    for tokens, naturals, wild, declare in moves:
        if tokens != used or naturals[: len(prefix)] != prefix:
            continue
        if step == Step.DECLARE:
            if naturals == prefix and wild == game.pend_wild:
                out.add(layout.declare(declare))
        elif len(naturals) > len(prefix):
            out.add(layout.add(naturals[len(prefix)]))
        elif wild:
            out.add(layout.wild(wild))
        elif prefix:
            out.add(layout.done)
    return out


def held(game: SkybirdsGame, seat: int, name: str) -> bool:
    return game.tokens[seat][game.config.names.index(name)] != MAT


def may_take(game: SkybirdsGame, seat: int, index: int) -> bool:
    """Prerequisites: none, one of them held, or (an AND token) all held."""
    token = game.config.tokens[index]
    if not token.prerequisites:
        return True
    have = [held(game, seat, p) for p in token.prerequisites]
    if token.needs_all and not game.config.short_game:
        return all(have)
    return any(have)


def take_oracle(game: SkybirdsGame, layout: ActionLayout) -> set[int]:
    seat, n = game.actor, game.config.num_players
    place = game.finish.index(seat) + 1
    out = set()
    last = place == n
    if not last or n == 2:
        for i, token in enumerate(game.config.tokens):
            if game.tokens[seat][i] == MAT and place <= token.ribbon and may_take(game, seat, i):
                out.add(layout.take(i))
    if game.plus_one[seat] < data.PLUS_ONE_TOKENS:
        out.add(layout.plus_one)
    return out


def trade_oracle(game: SkybirdsGame, layout: ActionLayout) -> set[int]:
    seat = game.actor
    out = {layout.done}
    for i, token in enumerate(game.config.tokens):
        cost = {3: 2, 2: 3, 1: 4}[token.ribbon]
        if (
            game.tokens[seat][i] == MAT
            and token.bonus != "armistice"
            and game.plus_one[seat] >= cost
            and may_take(game, seat, i)
        ):
            out.add(layout.trade(i))
    return out


def pre_campaign_oracle(game: SkybirdsGame, layout: ActionLayout) -> set[int]:
    seat, n = game.actor, game.config.num_players
    hand = game.hands[seat]
    if game.step == Step.START:
        out = {layout.done}
        for i, token in enumerate(game.config.tokens):
            need = SWAP_CARDS.get(token.bonus, 0)
            if (
                need
                and game.tokens[seat][i] != MAT
                and not game.pre_used[seat] >> i & 1
                and sum(hand) >= need
                and any(sum(game.hands[o]) >= need for o in range(n) if o != seat)
            ):
                out.add(layout.use(i))
        return out
    need = SWAP_CARDS[game.config.tokens[game.pend_token].bonus]
    if game.step == Step.TARGET:
        return {
            layout.target(seat, o) for o in range(n) if o != seat and sum(game.hands[o]) >= need
        }
    chosen = list(game.pend_cards)
    out = set()
    for kind in range(11):
        trial = [*chosen, kind]
        if trial != sorted(trial):
            continue
        rest = list(hand)
        ok = True
        for k in trial:
            rest[k] -= 1
            ok = ok and rest[k] >= 0
        # the remaining gives must be completable with cards >= kind
        if ok and sum(rest[kind:]) >= need - len(trial):
            out.add(layout.give(kind))
    return out
