"""Saved Skybirds games: reading a state dict back, field by field.

A state dict comes from disk or from a user, so every field is checked (type,
range, and that the fields agree with each other and leave the player to act a
legal move) before the game is used; each problem is a :class:`StateDictError`
naming ``game.<field>``. :func:`read_state` checks each field alone and returns
the engine's attributes; :meth:`SkybirdsGame.from_dict` in ``rules.py`` builds
the game from them and has :func:`check_consistency` check that they agree.
Writing is :meth:`SkybirdsGame.to_dict`. This module stands below the engine:
it imports the types of :mod:`.basics` and reads the game only through the
engine it is handed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.errors import StateDictError
from ..core.game import NO_PLAYER
from ..core.rng import rng_from_dict
from ..core.validate import short_repr
from . import data
from .basics import (
    BACK,
    MAT,
    PHASE_NAMES,
    STEP_NAMES,
    Phase,
    SkybirdsConfig,
    Squadron,
    Step,
    count_vector,
)
from .data import CARD_COUNTS, FRACTIONAL, MAX_SQUADRON, NUM_KINDS, PLUS_ONE_TOKENS

if TYPE_CHECKING:
    from .rules import SkybirdsGame

STATE_KEYS = (
    "config", "rng", "campaign", "phase", "step", "actor", "hands", "box", "played", "table",
    "squadron_size", "last_player", "passes", "passed", "position", "garros_due", "finish",
    "tokens", "plus_one", "fractional", "pool", "armistice_by", "over", "truncated", "pending",
    "pre_queue", "pre_used", "takes", "campaign_over", "dogfight_over", "trade_queue",
    "first_leader", "last_winner", "last_squadron",
)  # fmt: skip


class _Reader:
    """Reads fields of a saved game, raising StateDictError naming ``game.<field>``."""

    def __init__(self, config: SkybirdsConfig) -> None:
        self.config, self.n = config, config.num_players

    def fail(self, where: str, problem: str) -> StateDictError:
        return StateDictError(f"game.{where}: {problem}")

    def integer(self, where: str, value: Any, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return self._bad(where, value, f"an integer {low}..{high}")
        return value

    def _bad(self, where: str, value: Any, allowed: str) -> Any:
        raise self.fail(where, f"{short_repr(value, 60)} is not allowed; allowed: {allowed}")

    def boolean(self, where: str, value: Any) -> bool:
        if not isinstance(value, bool):
            return self._bad(where, value, "true or false")
        return value

    def seat(self, where: str, value: Any, none_ok: bool = False) -> int:
        low = -1 if none_ok else 0
        allowed = f"{'-1 (none) or ' if none_ok else ''}0..{self.n - 1}"
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value < self.n:
            return self._bad(where, value, allowed)
        return value

    def seats(self, where: str, value: Any, distinct: bool = True) -> list[int]:
        items = self.listed(where, value)
        out = [self.seat(f"{where}[{i}]", v) for i, v in enumerate(items)]
        if distinct and len(set(out)) != len(out):
            raise self.fail(where, f"{out} names a seat twice")
        return out

    def listed(self, where: str, value: Any, length: int | None = None) -> list[Any]:
        if not isinstance(value, list):
            return self._bad(where, value, "a list")
        if length is not None and len(value) != length:
            raise self.fail(where, f"must have {length} entries (one per seat), got {len(value)}")
        return value

    def cards(self, where: str, value: Any) -> list[int]:
        items = self.listed(where, value)
        out = []
        for i, text in enumerate(items):
            try:
                out.append(data.parse_card(text))
            except ValueError as err:
                raise self.fail(f"{where}[{i}]", str(err)) from None
        return out

    def token(self, where: str, name: Any) -> int:
        if name not in self.config.names:
            return self._bad(where, name, ", ".join(self.config.names))
        return self.config.names.index(name)

    def choice(self, where: str, value: Any, names: tuple[str, ...]) -> int:
        if value not in names:
            return self._bad(where, value, ", ".join(names))
        return names.index(value)

    def squadron(self, where: str, value: Any) -> Squadron | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            return self._bad(where, value, "null or a dict")
        keys = {"player", "cards", "size", "value", "medallions", "tokens", "wild", "declare"}
        if set(value) != keys:
            raise self.fail(where, f"must have exactly the keys {', '.join(sorted(keys))}")
        cards = sorted(self.cards(f"{where}.cards", value["cards"]))
        size = self.integer(f"{where}.size", value["size"], 1, MAX_SQUADRON)
        if not 1 <= len(cards) <= MAX_SQUADRON:
            raise self.fail(f"{where}.cards", f"a Squadron has 1..{MAX_SQUADRON} Aces")
        return Squadron(
            player=self.seat(f"{where}.player", value["player"]),
            cards=tuple(cards),
            size=size,
            value=self.integer(f"{where}.value", value["value"], 0, 10),
            medallions=self.integer(
                f"{where}.medallions", value["medallions"], 0, self.config.max_medallions
            ),
            tokens=tuple(
                self.token(f"{where}.tokens[{i}]", t)
                for i, t in enumerate(self.listed(f"{where}.tokens", value["tokens"]))
            ),
            wild=self.integer(f"{where}.wild", value["wild"], 0, 10),
            declare=self.integer(f"{where}.declare", value["declare"], 0, 10),
        )


def read_state(d: Any) -> dict[str, Any]:
    """The attributes of a :class:`SkybirdsGame` from a saved dict, each field
    checked alone: types and ranges, every Ace in exactly one place, token
    states, the Armistice's holder. Whether they agree with each other (the
    phase and step with whose turn it is and with a move in progress) is
    :func:`check_consistency`'s, once the game is built from them."""
    if not isinstance(d, dict):
        raise StateDictError(f"game must be a dict, got {type(d).__name__}")
    missing = [k for k in STATE_KEYS if k not in d]
    unknown = sorted(str(k) for k in d if k not in STATE_KEYS)
    if missing or unknown:
        raise StateDictError(
            "game: "
            + (f"missing field(s) {', '.join(missing)}" if missing else "")
            + ("; " if missing and unknown else "")
            + (f"unknown field(s) {', '.join(unknown)}" if unknown else "")
        )
    config = SkybirdsConfig.from_dict(d["config"])
    r = _Reader(config)
    n, names = config.num_players, config.names
    try:
        rng = rng_from_dict(d["rng"])
    except StateDictError as err:
        raise StateDictError(f"game.rng: {err}") from None
    fields: dict[str, Any] = {"config": config, "rng": rng}
    fields["campaign"] = r.integer("campaign", d["campaign"], 1, config.max_campaigns)
    fields["phase"] = Phase(r.choice("phase", d["phase"], PHASE_NAMES))
    fields["step"] = Step(r.choice("step", d["step"], STEP_NAMES))
    fields["over"] = r.boolean("over", d["over"])
    fields["truncated"] = r.boolean("truncated", d["truncated"])
    done = fields["over"] or fields["truncated"]
    fields["actor"] = NO_PLAYER if done else r.seat("actor", d["actor"])
    if done and d["actor"] != NO_PLAYER:
        r._bad("actor", d["actor"], f"{NO_PLAYER} once the Great War is over")
    hands = r.listed("hands", d["hands"], n)
    fields["hands"] = [count_vector(r.cards(f"hands[{s}]", h)) for s, h in enumerate(hands)]
    for s, hand in enumerate(fields["hands"]):
        if sum(hand) > config.hand_size:
            raise r.fail(f"hands[{s}]", f"holds {sum(hand)} Aces; at most {config.hand_size}")
    fields["box"] = count_vector(r.cards("box", d["box"]))
    fields["played"] = count_vector(r.cards("played", d["played"]))
    total = [
        sum(col) for col in zip(*fields["hands"], fields["box"], fields["played"], strict=True)
    ]
    if total != list(CARD_COUNTS):
        wrong = [
            f"{data.card_text(k)}: {total[k]} (deck {CARD_COUNTS[k]})"
            for k in range(NUM_KINDS)
            if total[k] != CARD_COUNTS[k]
        ]
        raise r.fail("hands", f"hands + box + played do not add up to the deck: {', '.join(wrong)}")
    fields["table"] = r.squadron("table", d["table"])
    fields["last_squadron"] = r.squadron("last_squadron", d["last_squadron"])
    fields["squadron_size"] = r.integer("squadron_size", d["squadron_size"], 0, MAX_SQUADRON)
    fields["last_player"] = r.seat("last_player", d["last_player"], none_ok=True)
    fields["passes"] = r.integer("passes", d["passes"], 0, n - 1)
    fields["passed"] = [
        r.boolean(f"passed[{s}]", v) for s, v in enumerate(r.listed("passed", d["passed"], n))
    ]
    fields["position"] = r.seat("position", d["position"])
    fields["garros_due"] = r.boolean("garros_due", d["garros_due"])
    fields["finish"] = r.seats("finish", d["finish"])
    rows = r.listed("tokens", d["tokens"], n)
    fields["tokens"] = []
    for s, row in enumerate(rows):
        if not isinstance(row, dict):
            r._bad(f"tokens[{s}]", row, "a dict {token: 'front' | 'back'}")
        states = [MAT] * len(names)
        for name, state in row.items():
            index = r.token(f"tokens[{s}]", name)
            states[index] = r.choice(f"tokens[{s}].{name}", state, ("front", "back")) + 1
            if states[index] == BACK and config.tokens[index].uses == 0:
                raise r.fail(f"tokens[{s}].{name}", "this token is never flipped")
        fields["tokens"].append(states)
    fields["plus_one"] = [
        r.integer(f"plus_one[{s}]", v, 0, PLUS_ONE_TOKENS)
        for s, v in enumerate(r.listed("plus_one", d["plus_one"], n))
    ]
    fields["fractional"] = [
        -1 if v is None else r.choice(f"fractional[{s}]", v, FRACTIONAL)
        for s, v in enumerate(r.listed("fractional", d["fractional"], n))
    ]
    fields["pool"] = [
        r.choice(f"pool[{i}]", v, FRACTIONAL) for i, v in enumerate(r.listed("pool", d["pool"]))
    ]
    held = [f for f in fields["fractional"] if f >= 0]
    if sorted(held + fields["pool"]) != list(range(len(FRACTIONAL))) or fields["pool"] != sorted(
        fields["pool"]
    ):
        raise r.fail(
            "pool",
            "the fractional tokens held and in the pool must be 3/4, 1/2, 1/4 once each, "
            "the pool largest first",
        )
    fields["armistice_by"] = r.seat("armistice_by", d["armistice_by"], none_ok=True)
    armistice = config.bonus_index("armistice")
    if (fields["armistice_by"] >= 0) != any(row[armistice] != MAT for row in fields["tokens"]):
        raise r.fail(
            "armistice_by", "must name the seat holding the Armistice token (-1: nobody holds it)"
        )
    if fields["armistice_by"] >= 0 and fields["tokens"][fields["armistice_by"]][armistice] == MAT:
        raise r.fail("armistice_by", f"seat {fields['armistice_by']} does not hold the Armistice")
    pending = d["pending"]
    if not isinstance(pending, dict) or set(pending) != {
        "tokens",
        "cards",
        "wild",
        "token",
        "target",
    }:
        r._bad("pending", pending, "a dict with keys tokens, cards, wild, token, target")
    fields["pend_tokens"] = [
        r.token(f"pending.tokens[{i}]", t)
        for i, t in enumerate(r.listed("pending.tokens", pending["tokens"]))
    ]
    fields["pend_cards"] = r.cards("pending.cards", pending["cards"])
    fields["pend_wild"] = r.integer("pending.wild", pending["wild"], 0, 10)
    fields["pend_token"] = (
        -1 if pending["token"] is None else r.token("pending.token", pending["token"])
    )
    fields["pend_target"] = r.seat("pending.target", pending["target"], none_ok=True)
    fields["pre_queue"] = r.seats("pre_queue", d["pre_queue"])
    pre_used = r.listed("pre_used", d["pre_used"], n)
    fields["pre_used"] = []
    for s, used in enumerate(pre_used):
        bits = 0
        for i, name in enumerate(r.listed(f"pre_used[{s}]", used)):
            bits |= 1 << r.token(f"pre_used[{s}][{i}]", name)
        fields["pre_used"].append(bits)
    fields["takes"] = r.seats("takes", d["takes"])
    fields["campaign_over"] = r.boolean("campaign_over", d["campaign_over"])
    fields["dogfight_over"] = r.boolean("dogfight_over", d["dogfight_over"])
    fields["trade_queue"] = r.seats("trade_queue", d["trade_queue"])
    fields["first_leader"] = r.seat("first_leader", d["first_leader"])
    fields["last_winner"] = r.seat("last_winner", d["last_winner"], none_ok=True)
    return fields


def check_consistency(game: SkybirdsGame) -> None:
    """The fields of a game built from :func:`read_state` agree with each other
    and leave the player to act a legal move."""
    r = _Reader(game.config)
    n = game.config.num_players
    done = game.over or game.truncated
    if done != (game.phase == Phase.OVER):
        raise r.fail("phase", "must be 'over' exactly when over or truncated is true")
    if game.over and game.truncated:
        raise r.fail("truncated", "a Great War is either over (Armistice) or truncated, not both")
    if game.over and game.armistice_by < 0:
        raise r.fail("over", "the Great War ends only when someone has taken the Armistice")
    if game.garros_due != (game.garros_holder() >= 0) and game.phase != Phase.OVER:
        raise r.fail("garros_due", "must be true exactly while a hand holds Roland Garros")
    if game.phase == Phase.DOGFIGHT and game.garros_due and game.actor != game.garros_holder():
        raise r.fail("actor", "Roland Garros's holder leads the first Dogfight")
    for seat in game.takes:
        if seat not in game.finish:
            raise r.fail("takes", f"seat {seat} takes a token but did not finish")
    if game.phase == Phase.TAKE and (not game.takes or game.takes[0] != game.actor):
        raise r.fail("takes", "in the take phase the first seat of takes is the actor")
    if game.phase == Phase.TRADE and (not game.trade_queue or game.trade_queue[0] != game.actor):
        raise r.fail("trade_queue", "in the trade phase the first seat of trade_queue is the actor")
    if game.phase == Phase.PRE_CAMPAIGN and (not game.pre_queue or game.pre_queue[0] != game.actor):
        raise r.fail(
            "pre_queue", "in the pre_campaign phase the first seat of pre_queue is the actor"
        )
    if game.phase == Phase.DOGFIGHT and not game.left[game.actor]:
        raise r.fail("actor", f"seat {game.actor} has no cards and cannot play in a Dogfight")
    if game.table is not None and game.squadron_size == 0:
        raise r.fail("squadron_size", "a Dogfight with a Squadron on the table has a Squadron Size")
    if game.table is not None and game.table.player != game.last_player:
        raise r.fail("table.player", "the Squadron on the table is the last player's")
    if game.table is not None and len(game.table.cards) != game.table.size:
        raise r.fail("table.size", "a Squadron's size is its number of Aces")
    if sum(game.passed) != game.passes:
        raise r.fail("passes", f"{game.passes} passes but passed marks {sum(game.passed)} seats")
    if game.phase == Phase.DOGFIGHT and game.table is None and game.passes:
        raise r.fail("passes", "nobody passes before a Dogfight is led")
    _check_step(game, r)
    if not done and not game.legal_actions():
        raise r.fail("phase", "the state leaves the player to act no legal action")
    if len(game.finish) > n:
        raise r.fail("finish", f"more than {n} seats")
    _check_finish(game, r)


def _check_finish(game: SkybirdsGame, r: _Reader) -> None:
    """A seat is in ``finish`` once it has played out its hand: a seat listed
    there holds no cards (but the last one of a Campaign that is over), and in a
    Dogfight a seat without cards is listed (else it would finish twice)."""
    listed = game.finish[: len(game.finish) - (1 if game.campaign_over else 0)]
    for seat in listed:
        if game.left[seat]:
            raise r.fail("finish", f"seat {seat} is listed as finished but holds cards")
    if game.phase == Phase.DOGFIGHT and not game.campaign_over:
        for seat in range(game.config.num_players):
            if not game.left[seat] and seat not in game.finish:
                raise r.fail("finish", f"seat {seat} has played out its hand but is not listed")


def _check_step(game: SkybirdsGame, r: _Reader) -> None:
    """The step fits the phase, and a move in progress is one the rules allow."""
    phase, step = game.phase, game.step
    allowed = {
        Phase.PRE_CAMPAIGN: (Step.START, Step.TARGET, Step.GIVE),
        Phase.DOGFIGHT: (Step.START, Step.TOKENS, Step.CARDS, Step.DECLARE),
        Phase.TAKE: (Step.START,),
        Phase.TRADE: (Step.START,),
        Phase.OVER: (Step.START,),
    }[phase]
    if step not in allowed:
        raise r.fail(
            "step",
            f"{STEP_NAMES[step]!r} is not a step of {PHASE_NAMES[phase]!r}; allowed: "
            + ", ".join(STEP_NAMES[s] for s in allowed),
        )
    building = phase == Phase.DOGFIGHT and step != Step.START
    if bool(game.pend_tokens) != building:
        raise r.fail(
            "pending.tokens", "tokens are used exactly while a Squadron is being built with them"
        )
    if phase == Phase.DOGFIGHT and step in (Step.START, Step.TOKENS) and game.pend_cards:
        raise r.fail("pending.cards", "no Ace is added before the tokens are chosen")
    if (game.pend_wild != 0) != (phase == Phase.DOGFIGHT and step == Step.DECLARE):
        raise r.fail("pending.wild", "a wild Ace is pending exactly in the declare step")
    swapping = phase == Phase.PRE_CAMPAIGN and step != Step.START
    if (game.pend_token >= 0) != swapping:
        raise r.fail(
            "pending.token", "a swap token is pending exactly in the target and give steps"
        )
    if swapping and not game.config.swap_cards[game.pend_token]:
        raise r.fail("pending.token", f"{game.config.names[game.pend_token]} is not a swap token")
    if (game.pend_target >= 0) != (phase == Phase.PRE_CAMPAIGN and step == Step.GIVE):
        raise r.fail("pending.target", "a swap target is pending exactly in the give step")
    if phase == Phase.PRE_CAMPAIGN and step != Step.GIVE and game.pend_cards:
        raise r.fail("pending.cards", "Aces are chosen to give only in the give step")
    if building:
        game._turn_sets = None
        used, _ = game._pending_bits()
        if game.pend_tokens != sorted(set(game.pend_tokens)):
            raise r.fail("pending.tokens", "tokens are used once each, in Aerodrome order")
        if not any(s & used == used for s in game.turn_token_sets()):
            raise r.fail("pending.tokens", "no Squadron can use these tokens now")
    if phase == Phase.DOGFIGHT and step in (Step.CARDS, Step.DECLARE):
        prefix = tuple(game.pend_cards)
        moves = game.pending_moves()
        if not any(
            m[0][: len(prefix)] == prefix
            and (step != Step.DECLARE or (m[0] == prefix and m[1] == game.pend_wild))
            for m in moves
        ):
            raise r.fail("pending.cards", "no legal Squadron starts with these Aces")
