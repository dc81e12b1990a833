"""Saved Astrobirdz games: every field of a state dict checked against the rules.

A state dict comes from disk or from a user, so :func:`validate_state_dict`
checks it before anything is built: types and ranges, each of the 54 cards in
exactly one place, hand sizes for the turn and phase, whose turn it is,
guesses, tricks and who won them, the Berzerkerbirdz and the dealer, the
AstroBoard, pending choices, scores; each problem is a :class:`StateDictError`
naming the field (``game.hands[2]: ...``). Writing is
:meth:`AstrobirdzGame.to_dict` in ``rules.py``.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

from ..core.errors import StateDictError
from ..core.game import NO_PLAYER
from ..core.rng import rng_from_dict
from ..core.validate import short_repr
from . import data
from .basics import (
    CHOICE_PHASES,
    PHASE_NAMES,
    AstrobirdzConfig,
    Phase,
    TurnScore,
    astroboard_holder_of,
    astroboard_partners_of,
    bits,
    data_cards,
    first_leader_of,
    from_left_of,
    guess_order_of,
    mask_of,
    play_order_of,
    seat_with_bird,
    trick_winner,
)
from .data import NO_RULE, Effect, colour_of, number_of

STATE_FIELDS = (
    "config", "rng", "turn", "scores", "birds", "dealer", "hands", "deck", "discards",
    "trump_card", "trump", "phase", "actor", "choosers", "need", "allowed", "chosen",
    "partner", "traded", "guess_order", "guesses", "peeked", "astroboard", "trick",
    "trick_order", "tricks", "astro_partner", "known", "discarded", "hand_size", "transfer",
    "last_turn", "last_trick_winners", "over",
)  # fmt: skip
"""The keys of :meth:`AstrobirdzGame.to_dict`, in order."""

STAGES = {
    Phase.CHOOSE_TRUMP: 0, Phase.DISCARD: 0, Phase.PASS_RIGHT: 0, Phase.PASS_LEFT: 1,
    Phase.SURFETTE_PARTNER: 2, Phase.SURFETTE_CARDS: 2, Phase.NITRO_PEEK: 3, Phase.GUESS: 3,
    Phase.PLAY: 4, Phase.ASTROBOARD: 5, Phase.ASTROBOARD_TRICK: 5, Phase.OVER: 6,
}  # fmt: skip
"""How far into a turn each phase is: after-deal effects, the pass-cards rule,
Surfette, guesses, tricks, the AstroBoard power, the end of the game."""

SURFETTE_STAGE, GUESS_STAGE, PLAY_STAGE, BOARD_STAGE = 2, 3, 4, 5
TRICK_KEYS = ("cards", "order", "winner", "holder")
CARD_IDS = {data.card_text(c): c for c in range(data.NUM_CARDS)}
"""Card ids by their saved text (``"R4"``)."""
TURN_SCORE_KEYS = tuple(TurnScore.__dataclass_fields__)


def validate_state_dict(d: Any) -> dict[str, Any]:
    """Check every field of a saved game (:meth:`AstrobirdzGame.to_dict`)
    against the rules, before anything is built: types and ranges, each of the
    54 cards in exactly one place, hand sizes for the turn and phase, whose
    turn it is, guesses, tricks and who won them, the Berzerkerbirdz and the
    dealer, the AstroBoard, pending choices, scores. Returns the fields parsed
    (the :class:`AstrobirdzGame` keyword arguments); raises
    :class:`StateDictError` naming the first wrong field (``game.hands[2]: ...``)
    and what is allowed."""
    return _StateReader(d).read()


class _StateReader:
    """The checks of :func:`validate_state_dict`, one small method per field
    group; ``self.f`` collects the parsed fields as they pass."""

    def __init__(self, d: Any) -> None:
        self.d = d
        self.f: dict[str, Any] = {}

    # -- reporting and reading values --

    @staticmethod
    def fail(name: str, problem: str) -> NoReturn:
        raise StateDictError(f"game.{name}: {problem}")

    def integer(self, name: str, value: Any, low: int, high: int, allowed: str = "") -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(
                name, f"{_shown(value)} is not allowed; allowed: {allowed or f'{low}..{high}'}"
            )
        return value

    def seat(self, name: str, value: Any, none_ok: bool = True) -> int:
        n = self.n
        if none_ok:
            return self.integer(name, value, -1, n - 1, f"-1 (none) or a seat 0..{n - 1}")
        return self.integer(name, value, 0, n - 1, f"a seat 0..{n - 1}")

    def listed(self, name: str, value: Any, length: int | None = None) -> list[Any]:
        if not isinstance(value, list):
            what = "a list" if length is None else f"a list of {length} (one per seat)"
            self.fail(name, f"{_shown(value)} is not allowed; allowed: {what}")
        if length is not None and len(value) != length:
            self.fail(name, f"has {len(value)} entries; allowed: {length} (one per seat)")
        return value

    def card(self, name: str, value: Any) -> int:
        card = CARD_IDS.get(value) if type(value) is str else None
        if card is not None:  # the saved form; anything else is read (or refused) below
            return card
        if not isinstance(value, str):
            self.fail(name, f"{_shown(value)} is not a card; allowed: a card string such as 'R4'")
        try:
            return data.parse_card(value)
        except ValueError as err:
            self.fail(name, str(err))

    def cards(self, name: str, value: Any) -> list[int]:
        texts = self.listed(name, value)
        out = [self.card(f"{name}[{i}]", t) for i, t in enumerate(texts)]
        if len(set(out)) != len(out):
            twice = sorted({data.card_text(c) for c in out if out.count(c) > 1})
            self.fail(name, f"names {', '.join(twice)} more than once")
        return out

    def seats(self, name: str, value: Any) -> list[int]:
        return [
            self.seat(f"{name}[{i}]", s, none_ok=False)
            for i, s in enumerate(self.listed(name, value))
        ]

    def per_seat_cards(self, name: str, value: Any) -> list[int]:
        rows = self.listed(name, value, self.n)
        return [mask_of(self.cards(f"{name}[{s}]", row)) for s, row in enumerate(rows)]

    # -- the whole dict --

    def read(self) -> dict[str, Any]:
        d = self.d
        if not isinstance(d, dict):
            raise StateDictError(
                f"game: {_shown(d)} is not allowed; allowed: a dict of the fields "
                f"{', '.join(STATE_FIELDS)}"
            )
        missing = [k for k in STATE_FIELDS if k not in d]
        unknown = sorted(str(k) for k in d if k not in STATE_FIELDS)
        if missing or unknown:
            raise StateDictError(
                f"game: missing field(s) {missing or 'none'}, unknown field(s) "
                f"{unknown or 'none'}; "
                f"expected exactly {', '.join(STATE_FIELDS)}"
            )
        self._read_values()
        self._check_cards_in_one_place()
        self._check_birds_and_dealer()
        self._check_trump_and_phase()
        self._check_hand_size_and_hands()
        self._check_choices()
        self._check_surfette()
        self._check_guesses()
        self._check_tricks()
        self._check_astroboard()
        self._check_actor()
        self._check_known_and_discards()
        self._check_last_turn()
        return self.f

    def _read_values(self) -> None:
        """Types and ranges of every field: the deal, then the turn's progress."""
        d, f = self.d, self.f
        f["config"] = config = self._config(d["config"])
        self.n = n = config.num_players
        try:
            f["rng"] = rng_from_dict(d["rng"])
        except StateDictError as err:
            self.fail("rng", str(err))
        f["turn"] = self.integer("turn", d["turn"], 1, config.turns)
        # A game starts at most at MAX_SCORE (scenarios) and adds less than
        # MAX_TURN_POINTS a turn: the bound grows with the turn, so every state
        # a loaded one plays into loads again.
        top = data.MAX_SCORE + f["turn"] * data.MAX_TURN_POINTS
        f["scores_"] = [
            self.integer(
                f"scores[{s}]",
                v,
                0,
                top,
                f"a whole number 0..{top} ({data.MAX_SCORE:,} and "
                f"{data.MAX_TURN_POINTS} a turn, at turn {f['turn']})",
            )
            for s, v in enumerate(self.listed("scores", d["scores"], n))
        ]
        f["birds"] = [
            self.integer(f"birds[{s}]", v, 0, 6, "0 (none) or a Berzerkerbird 1-6")
            for s, v in enumerate(self.listed("birds", d["birds"], n))
        ]
        f["dealer"] = self.seat("dealer", d["dealer"], none_ok=False)
        f["hands"] = self.per_seat_cards("hands", d["hands"])
        f["deck"] = self.cards("deck", d["deck"])
        f["discards"] = self.cards("discards", d["discards"])
        f["trump_card"] = self.card("trump_card", d["trump_card"])
        f["trump"] = self.integer(
            "trump",
            d["trump"],
            -1,
            data.NUM_COLOURS - 1,
            "0..5 (R O Y G B P), or -1 while a player chooses it",
        )
        phase = d["phase"]
        if phase not in PHASE_NAMES:
            self.fail("phase", f"{_shown(phase)} is not allowed; allowed: {', '.join(PHASE_NAMES)}")
        f["phase"] = Phase(PHASE_NAMES.index(phase))
        f["actor"] = self.seat("actor", d["actor"])
        self._read_turn_values()

    def _read_turn_values(self) -> None:
        """Types and ranges of the fields of the turn in progress."""
        d, f, n = self.d, self.f, self.n
        f["choosers"] = self.seats("choosers", d["choosers"])
        f["need"] = [
            self.integer(f"need[{s}]", v, 0, 3)
            for s, v in enumerate(self.listed("need", d["need"], n))
        ]
        f["allowed"] = self.per_seat_cards("allowed", d["allowed"])
        f["chosen"] = [
            self.cards(f"chosen[{s}]", row)
            for s, row in enumerate(self.listed("chosen", d["chosen"], n))
        ]
        f["partner"] = self.seat("partner", d["partner"])
        f["traded"] = self.integer("traded", d["traded"], 0, 2)
        f["guess_order"] = self.seats("guess_order", d["guess_order"])
        f["guesses"] = [
            self.integer(
                f"guesses[{s}]", v, -1, data.MAX_HAND, f"-1 (not yet) or 0..{data.MAX_HAND}"
            )
            for s, v in enumerate(self.listed("guesses", d["guesses"], n))
        ]
        f["peeked"] = self.seat("peeked", d["peeked"])
        f["astroboard"] = self.seat("astroboard", d["astroboard"])
        f["trick"] = self.cards("trick", d["trick"])
        f["trick_order"] = self.seats("trick_order", d["trick_order"])
        self._read_tricks(d["tricks"])
        f["astro_partner"] = self.seat("astro_partner", d["astro_partner"])
        rows = self.listed("known", d["known"], n)
        f["known"] = [self.per_seat_cards(f"known[{o}]", row) for o, row in enumerate(rows)]
        f["discarded"] = self.per_seat_cards("discarded", d["discarded"])
        f["hand_size"] = self.integer("hand_size", d["hand_size"], 0, data.MAX_HAND)
        transfer = self.listed("transfer", d["transfer"])
        if transfer and len(transfer) != 3:
            self.fail(
                "transfer", f"{_shown(transfer)} is not allowed; allowed: [] or [from, to, trick]"
            )
        f["transfer"] = [
            self.integer(f"transfer[{i}]", v, 0, max(n, data.MAX_HAND) - 1)
            for i, v in enumerate(transfer)
        ]
        f["last_turn"] = self._last_turn_items(d["last_turn"])
        f["last_trick_winners"] = self.seats("last_trick_winners", d["last_trick_winners"])
        if not isinstance(d["over"], bool):
            self.fail("over", f"{_shown(d['over'])} is not allowed; allowed: true or false")
        f["over"] = d["over"]
        f["played"] = mask_of([c for t in f["finished"] for c in t])
        f["known_any"] = any(any(row) for row in f["known"])
        config = f["config"]
        self.effect = (config.rule_cards[f["trump_card"]] if config.trump_rules else NO_RULE).effect
        self.stage = STAGES[f["phase"]]

    def _config(self, value: Any) -> AstrobirdzConfig:
        names = tuple(AstrobirdzConfig.__dataclass_fields__)
        if not isinstance(value, dict) or set(value) != set(names):
            keys = sorted(value) if isinstance(value, dict) else _shown(value)
            self.fail(
                "config", f"{keys} is not allowed; allowed: a dict of exactly {', '.join(names)}"
            )
        flags = ("berzerkerbirdz", "trump_rules", "pass_cards")
        for name in flags:
            if not isinstance(value[name], bool):
                self.fail(
                    f"config.{name}",
                    f"{_shown(value[name])} is not allowed; allowed: true or false",
                )
        for name in ("highest_bonus", "highest_bonus_ties", "green_7"):
            if not isinstance(value[name], str):
                self.fail(f"config.{name}", f"{_shown(value[name])} is not a string")
        players = value["num_players"]
        if isinstance(players, bool) or not isinstance(players, int):
            self.fail("config.num_players", f"{_shown(players)} is not allowed; allowed: 2..6")
        ages = value["ages"]
        if ages is not None and not (
            isinstance(ages, list)
            and all(
                # an int is any whole number >= 0 (math.isfinite of a huge int overflows)
                (isinstance(a, int) and not isinstance(a, bool) and a >= 0)
                or (isinstance(a, float) and math.isfinite(a) and a >= 0)
                for a in ages
            )
        ):
            self.fail(
                "config.ages",
                f"{_shown(ages)} is not allowed; allowed: null or one finite age >= 0 per seat",
            )
        config = AstrobirdzConfig(**{**value, "ages": None if ages is None else tuple(ages)})
        try:
            config.check()
        except ValueError as err:
            self.fail("config", str(err))
        return config

    def _read_tricks(self, value: Any) -> None:
        tricks = self.listed("tricks", value)
        if len(tricks) > data.MAX_HAND:
            self.fail("tricks", f"{len(tricks)} tricks; allowed: at most {data.MAX_HAND}")
        cards, orders, winners, holders = [], [], [], []
        for k, trick in enumerate(tricks):
            name = f"tricks[{k}]"
            if not isinstance(trick, dict) or set(trick) != set(TRICK_KEYS):
                self.fail(
                    name,
                    f"{_shown(trick)} is not allowed; allowed: a dict of {', '.join(TRICK_KEYS)}",
                )
            cards.append(self.cards(f"{name}.cards", trick["cards"]))
            orders.append(self.seats(f"{name}.order", trick["order"]))
            winners.append(self.seat(f"{name}.winner", trick["winner"], none_ok=False))
            holders.append(self.seat(f"{name}.holder", trick["holder"], none_ok=False))
        f = self.f
        f["finished"], f["finished_orders"] = cards, orders
        f["trick_winners"], f["holders"] = winners, holders

    def _last_turn_items(self, value: Any) -> list[TurnScore] | None:
        if value is None:
            return None
        items = []
        for s, item in enumerate(self.listed("last_turn", value, self.n)):
            name = f"last_turn[{s}]"
            if not isinstance(item, dict) or set(item) != set(TURN_SCORE_KEYS):
                self.fail(
                    name,
                    f"{_shown(item)} is not allowed; allowed: a dict of "
                    f"{', '.join(TURN_SCORE_KEYS)}",
                )
            for key in TURN_SCORE_KEYS:
                self.integer(
                    f"{name}.{key}",
                    item[key],
                    -data.MAX_SCORE,
                    data.MAX_SCORE,
                    f"a whole number -{data.MAX_SCORE}..{data.MAX_SCORE}",
                )
            items.append(TurnScore(**item))
        return items

    # -- the rules --

    def _check_cards_in_one_place(self) -> None:
        """Each of the 54 cards in exactly one of deck, discards, trump_card,
        hands, trick, tricks."""
        f = self.f
        places: list[tuple[str, list[int]]] = [
            ("deck", f["deck"]),
            ("discards", f["discards"]),
            ("trump_card", [f["trump_card"]]),
            *((f"hands[{s}]", bits(h)) for s, h in enumerate(f["hands"])),
            ("trick", f["trick"]),
            *((f"tricks[{k}].cards", t) for k, t in enumerate(f["finished"])),
        ]
        where: dict[int, str] = {}
        for name, cards in places:
            for card in cards:
                if card in where:
                    self.fail(
                        name,
                        f"{data.card_text(card)} is also in game.{where[card]}; each of "
                        "the 54 cards must be in exactly one place",
                    )
                where[card] = name
        missing = [data.card_text(c) for c in range(data.NUM_CARDS) if c not in where]
        if missing:
            raise StateDictError(
                f"game.deck/discards/trump_card/hands/trick/tricks: {', '.join(missing)} "
                "missing; each of the 54 cards must be in exactly one place"
            )

    def _check_birds_and_dealer(self) -> None:
        f, n = self.f, self.n
        birds = f["birds"]
        if f["config"].berzerkerbirdz:
            if len(set(birds)) != n or 0 in birds:
                self.fail(
                    "birds",
                    f"{birds} is not allowed; allowed: one distinct Berzerkerbird 1-6 per seat",
                )
            before = birds[1:] + birds[:1] if self.effect.rotate_berzerkerbirdz else birds
            dealer = min(range(n), key=lambda s: before[s])
            why = "the lowest Berzerkerbird deals" + (
                " (before Orange 5 moved the birds left)"
                if self.effect.rotate_berzerkerbirdz
                else ""
            )
        else:
            if any(birds):
                self.fail(
                    "birds", f"{birds} is not allowed; allowed: {[0] * n} (berzerkerbirdz=False)"
                )
            dealer = (f["turn"] - 1) % n
            why = f"without Berzerkerbirdz turn {f['turn']} is dealt by seat {dealer}"
        if f["dealer"] != dealer:
            self.fail("dealer", f"{f['dealer']}, but {why}: allowed {dealer}")

    def _check_trump_and_phase(self) -> None:
        f, effect, phase = self.f, self.effect, self.f["phase"]
        name = PHASE_NAMES[phase]
        choosing = phase == Phase.CHOOSE_TRUMP
        if choosing != (f["trump"] < 0):
            self.fail(
                "trump",
                f"{f['trump']} in phase {name}; allowed: -1 exactly while the trump colour is "
                "chosen",
            )
        if not effect.trump_chooser and f["trump"] != colour_of(f["trump_card"]):
            self.fail(
                "trump",
                f"{f['trump']}, but nobody chooses the trump colour under "
                f"{data.card_text(f['trump_card'])}: allowed {colour_of(f['trump_card'])}",
            )
        allowed = {
            Phase.CHOOSE_TRUMP: bool(effect.trump_chooser),
            Phase.DISCARD: effect.discard_one and f["turn"] > 1,
            Phase.PASS_RIGHT: bool(effect.pass_right),
            Phase.PASS_LEFT: f["config"].pass_cards and data.cards_to_pass(f["hand_size"]) > 0,
            Phase.SURFETTE_PARTNER: data.SURFETTE in f["birds"],
            Phase.SURFETTE_CARDS: data.SURFETTE in f["birds"],
            Phase.NITRO_PEEK: data.NITRO in f["birds"],
            Phase.OVER: f["turn"] == f["config"].turns,
        }.get(phase, True)
        if not allowed:
            self.fail(
                "phase",
                f"{name} cannot happen on turn {f['turn']} with these birds, rule card "
                f"{data.card_text(f['trump_card'])} and options",
            )
        if f["over"] != (phase == Phase.OVER):
            self.fail("over", f"{f['over']} in phase {name}; allowed: true exactly in phase over")

    def _check_hand_size_and_hands(self) -> None:
        f, n, effect = self.f, self.n, self.effect
        turn = f["turn"]
        expected = turn
        if effect.extra_draws:
            expected += min(effect.extra_draws, (data.NUM_CARDS - 1 - n * turn) // n)
        if effect.discard_one and turn > 1 and f["phase"] != Phase.DISCARD:
            expected -= 1
        if f["hand_size"] != expected:
            self.fail(
                "hand_size",
                f"{f['hand_size']}, but turn {turn} under rule card "
                f"{data.card_text(f['trump_card'])} plays {expected} tricks",
            )
        in_trick = set(f["trick_order"][: len(f["trick"])]) if f["phase"] == Phase.PLAY else set()
        for seat, hand in enumerate(f["hands"]):
            if self.stage < PLAY_STAGE:
                holds = expected
            elif self.stage == PLAY_STAGE:
                holds = expected - len(f["finished"]) - (seat in in_trick)
            else:
                holds = 0
            if len(bits(hand)) != holds:
                self.fail(
                    f"hands[{seat}]",
                    f"{len(bits(hand))} cards, but in phase "
                    f"{PHASE_NAMES[f['phase']]} of turn {turn} this hand holds {holds}",
                )

    def _check_choices(self) -> None:
        """Cards being chosen (discards, passes, Surfette's trade), seat by seat."""
        f, n, phase = self.f, self.n, self.f["phase"]
        need, allowed, chosen, choosers = f["need"], f["allowed"], f["chosen"], f["choosers"]
        expected_need, expected_allowed = [0] * n, [0] * n
        if phase in CHOICE_PHASES:
            count = data.cards_to_pass(f["hand_size"]) if phase == Phase.PASS_LEFT else 1
            expected_need = [count] * n
            expected_allowed = [self._choosable(seat) for seat in range(n)]
            self._check_choosers(count)
        elif phase == Phase.SURFETTE_CARDS:
            surfette = seat_with_bird(f["birds"], data.SURFETTE)
            expected_need[surfette] = min(2, f["hand_size"])
            expected_allowed[surfette] = f["hands"][surfette]
            if len(chosen[surfette]) >= expected_need[surfette]:
                self.fail(
                    f"chosen[{surfette}]",
                    f"{len(chosen[surfette])} cards; allowed: fewer "
                    f"than {expected_need[surfette]} while Surfette chooses",
                )
        elif choosers:
            self.fail("choosers", f"{choosers} in phase {PHASE_NAMES[phase]}; allowed: []")
        where = f"in phase {PHASE_NAMES[phase]}"
        if need != expected_need:
            self.fail("need", f"{need} {where}; allowed: {expected_need}")
        if allowed != expected_allowed:
            shown = [data_cards(a) for a in expected_allowed]
            self.fail("allowed", f"{[data_cards(a) for a in allowed]} {where}; allowed: {shown}")
        for seat in range(n):
            if mask_of(chosen[seat]) & ~expected_allowed[seat]:
                self.fail(
                    f"chosen[{seat}]",
                    f"{[data.card_text(c) for c in chosen[seat]]} {where}; "
                    f"allowed: cards of {data_cards(expected_allowed[seat])}",
                )

    def _check_choosers(self, count: int) -> None:
        """Seats choose one at a time from the dealer's left: those before the
        one choosing have chosen ``count`` cards, those after none."""
        f, n = self.f, self.n
        choosers, chosen = f["choosers"], f["chosen"]
        order = from_left_of(f["dealer"], n)
        done = order[: n - len(choosers)]
        if not choosers or choosers != order[len(done) :]:
            self.fail(
                "choosers",
                f"{choosers}; allowed: the seats still to choose, a suffix of "
                f"{order} (from the dealer's left), not empty",
            )
        for seat in order:
            have = len(chosen[seat])
            if seat in done:
                ok, allowed = have == count, f"{count} (it has chosen)"
            elif seat == choosers[0]:
                ok, allowed = have < count, f"fewer than {count} (it is choosing)"
            else:
                ok, allowed = have == 0, "none (it chooses later)"
            if not ok:
                self.fail(f"chosen[{seat}]", f"{have} cards; allowed: {allowed}")

    def _choosable(self, seat: int) -> int:
        """Cards ``seat`` may choose in a discard or pass: its hand, or for
        Yellow 3/4 its lowest/highest numbered cards."""
        hand = self.f["hands"][seat]
        which = self.effect.pass_right
        if self.f["phase"] != Phase.PASS_RIGHT or not hand:
            return hand
        numbers = [number_of(c) for c in bits(hand)]
        target = min(numbers) if which == "lowest" else max(numbers)
        return mask_of([c for c in bits(hand) if number_of(c) == target])

    def _check_surfette(self) -> None:
        f, phase = self.f, self.f["phase"]
        surfette = seat_with_bird(f["birds"], data.SURFETTE)
        partner, traded = f["partner"], f["traded"]
        if self.stage < SURFETTE_STAGE or phase == Phase.SURFETTE_PARTNER or surfette < 0:
            ok, allowed = partner == -1 and traded == 0, "-1 and 0 (no trade yet)"
        elif phase == Phase.SURFETTE_CARDS:
            ok = partner not in (-1, surfette) and traded == 0
            allowed = "the partner (another seat) and 0 while Surfette chooses her cards"
        else:
            top = min(2, f["hand_size"])
            ok = (partner == -1 and traded == 0) or (
                partner not in (-1, surfette) and 1 <= traded <= top
            )
            allowed = f"-1 and 0 (declined), or another seat and 1..{top} cards"
        if not ok:
            self.fail(
                "partner/traded",
                f"{partner}/{traded} in phase {PHASE_NAMES[phase]}; allowed: {allowed}",
            )

    def _check_guesses(self) -> None:
        f, n, phase = self.f, self.n, self.f["phase"]
        guesses, top = f["guesses"], f["hand_size"]
        order = guess_order_of(f["dealer"], f["birds"])
        if self.stage < GUESS_STAGE:
            if f["guess_order"] or any(g != -1 for g in guesses):
                self.fail(
                    "guesses",
                    f"{guesses} with guess_order {f['guess_order']} before the guesses; allowed: "
                    "all -1 and []",
                )
        else:
            if f["guess_order"] != order:
                self.fail(
                    "guess_order",
                    f"{f['guess_order']}; allowed: {order} (from the dealer's left, Max last)",
                )
            made = [s for s in order if guesses[s] >= 0]
            if made != order[: len(made)] or any(g > top for g in guesses):
                self.fail(
                    "guesses",
                    f"{guesses}; allowed: 0..{top} for the seats that have guessed, in guess "
                    "order, -1 for the rest",
                )
            if self.stage == GUESS_STAGE and len(made) == n:
                self.fail(
                    "guesses",
                    f"{guesses}: everyone has guessed, but the phase is {PHASE_NAMES[phase]}",
                )
            if self.stage > GUESS_STAGE and len(made) != n:
                self.fail(
                    "guesses",
                    f"{guesses}: allowed in phase {PHASE_NAMES[phase]}: a guess 0..{top} per seat",
                )
        nitro = seat_with_bird(f["birds"], data.NITRO)
        waiting = [s for s in order if guesses[s] < 0]
        looked = nitro >= 0 and (
            self.stage > GUESS_STAGE
            or guesses[nitro] >= 0
            or (phase == Phase.GUESS and waiting[:1] == [nitro])
        )
        if (looked and f["peeked"] in (-1, nitro)) or (not looked and f["peeked"] != -1):
            allowed = "another seat than Nitro's" if looked else "-1 (Nitro has not looked)"
            self.fail("peeked", f"{f['peeked']} in phase {PHASE_NAMES[phase]}; allowed: {allowed}")

    def _check_tricks(self) -> None:
        """Finished tricks and the current one: who led, the play order, who
        won, and that everyone followed the led colour when able."""
        f, n, phase = self.f, self.n, self.f["phase"]
        birds, finished = f["birds"], f["finished"]
        if self.stage < PLAY_STAGE:
            if finished or f["trick"] or f["trick_order"]:
                self.fail(
                    "tricks",
                    "tricks are played only from phase play on; allowed before "
                    "it: [] (and trick, trick_order [])",
                )
            return
        leader = first_leader_of(f["dealer"], birds)
        for k, cards in enumerate(finished):
            order = play_order_of(leader, birds)
            name = f"tricks[{k}]"
            if f["finished_orders"][k] != order:
                self.fail(
                    f"{name}.order",
                    f"{f['finished_orders'][k]}; allowed: {order} (led by seat {leader})",
                )
            if len(cards) != n:
                self.fail(f"{name}.cards", f"{len(cards)} cards; allowed: one per seat ({n})")
            winner = order[trick_winner(cards, f["trump"], self.effect)]
            if f["trick_winners"][k] != winner:
                self.fail(
                    f"{name}.winner", f"{f['trick_winners'][k]}, but seat {winner} won those cards"
                )
            leader = winner
        if self.stage == PLAY_STAGE:
            order = play_order_of(leader, birds)
            if len(finished) >= f["hand_size"]:
                self.fail(
                    "tricks",
                    f"{len(finished)} finished of {f['hand_size']} in phase play; allowed: fewer",
                )
            if f["trick_order"] != order:
                self.fail(
                    "trick_order", f"{f['trick_order']}; allowed: {order} (led by seat {leader})"
                )
            if len(f["trick"]) >= n:
                self.fail(
                    "trick",
                    f"{len(f['trick'])} cards; allowed: fewer than {n} (a full trick is finished)",
                )
        elif len(finished) != f["hand_size"] or f["trick"] or f["trick_order"]:
            self.fail(
                "tricks",
                f"{len(finished)} finished, trick {data_cards(mask_of(f['trick']))} "
                f"in phase {PHASE_NAMES[phase]}; allowed: all {f['hand_size']} finished, "
                "trick and trick_order []",
            )
        plays = [*zip(finished, f["finished_orders"], strict=True), (f["trick"], f["trick_order"])]
        for k, (cards, order) in enumerate(plays):
            self._check_followed(
                f"tricks[{k}]" if k < len(finished) else "trick", cards, order, plays[k + 1 :]
            )

    def _check_followed(
        self,
        name: str,
        cards: list[int],
        order: list[int],
        later: list[tuple[list[int], list[int]]],
    ) -> None:
        """Nobody played off the led colour while holding it: the cards a
        seat played in later tricks, and the cards it holds now, were in its
        hand then."""
        if not cards:
            return
        led = colour_of(cards[0])
        for position in range(1, len(cards)):
            seat, card = order[position], cards[position]
            if colour_of(card) == led:
                continue
            held = bits(self.f["hands"][seat])
            held += [t[o.index(seat)] for t, o in later if seat in o[: len(t)]]
            kept = [c for c in held if colour_of(c) == led]
            if kept:
                self.fail(
                    name,
                    f"seat {seat} played {data.card_text(card)} on a "
                    f"{data.COLOUR_NAMES[led]} lead while holding {data.card_text(kept[0])}; "
                    "a player must follow the led colour",
                )

    def _check_astroboard(self) -> None:
        f, n, phase = self.f, self.n, self.f["phase"]
        board, partner, transfer = f["astroboard"], f["astro_partner"], f["transfer"]
        if self.stage < PLAY_STAGE:
            expected = -1
        else:
            expected = astroboard_holder_of(f["guesses"], f["guess_order"], f["birds"])
        if board != expected:
            self.fail(
                "astroboard",
                f"{board} in phase {PHASE_NAMES[phase]}; allowed: {expected} "
                f"({'the highest guess, ties as ruled' if expected >= 0 else 'not given yet'})",
            )
        won = [f["trick_winners"].count(s) for s in range(n)]
        partners = astroboard_partners_of(board, f["guesses"], won) if board >= 0 else []
        if phase == Phase.ASTROBOARD and not partners:
            self.fail("phase", "astroboard, but the holder has nobody to use the power with")
        choosing = phase == Phase.ASTROBOARD_TRICK
        if choosing != (partner >= 0) or (choosing and partner not in partners):
            self.fail(
                "astro_partner",
                f"{partner} in phase {PHASE_NAMES[phase]}; allowed: one of {partners} while the "
                "holder picks the trick, else -1",
            )
        holders, winners = f["holders"], f["trick_winners"]
        moved = [k for k in range(len(holders)) if holders[k] != winners[k]]
        if phase != Phase.OVER or not transfer:
            if transfer:
                self.fail(
                    "transfer",
                    f"{transfer} with tricks {moved} moved in phase "
                    f"{PHASE_NAMES[phase]}; allowed: [] (a move is scored at once, and the "
                    "next turn starts afresh)",
                )
            if moved:
                k = moved[0]
                self.fail(
                    f"tricks[{k}].holder",
                    f"{holders[k]}, but seat {winners[k]} won it and nothing moved it",
                )
            return
        giver, receiver, index = transfer
        other = receiver if giver == board else giver
        legal = (
            board in (giver, receiver)
            and other in partners
            and giver != receiver
            and index < len(winners)
            and winners[index] == giver
            and giver == (other if f["guesses"][board] > won[board] else board)
        )
        if not legal or moved != [index] or holders[index] != receiver:
            self.fail(
                "transfer",
                f"{transfer}; allowed: [giver, receiver, trick] of a legal AstroBoard move, that "
                "trick held by the receiver, every other by its winner",
            )

    def _check_actor(self) -> None:
        f, phase = self.f, self.f["phase"]
        birds, config = f["birds"], f["config"]
        if phase == Phase.CHOOSE_TRUMP:
            chooser = self.effect.trump_chooser
            expected = {"youngest": config.youngest, "oldest": config.oldest}.get(
                chooser, f["dealer"]
            )
        elif phase in CHOICE_PHASES:
            expected = f["choosers"][0]
        elif phase in (Phase.SURFETTE_PARTNER, Phase.SURFETTE_CARDS):
            expected = seat_with_bird(birds, data.SURFETTE)
        elif phase in (Phase.NITRO_PEEK, Phase.GUESS):
            expected = next(s for s in f["guess_order"] if f["guesses"][s] < 0)
            nitro_first = birds[expected] == data.NITRO and f["peeked"] < 0
            if (phase == Phase.NITRO_PEEK) != nitro_first:
                self.fail(
                    "phase",
                    f"{PHASE_NAMES[phase]}, but seat {expected} is to "
                    f"guess{' and Nitro looks first' if nitro_first else ''}",
                )
        elif phase == Phase.PLAY:
            expected = f["trick_order"][len(f["trick"])]
        elif phase in (Phase.ASTROBOARD, Phase.ASTROBOARD_TRICK):
            expected = f["astroboard"]
        else:
            expected = NO_PLAYER
        if f["actor"] != expected:
            self.fail(
                "actor",
                f"{f['actor']}, but in phase {PHASE_NAMES[phase]} seat {expected} is to act",
            )

    def _check_known_and_discards(self) -> None:
        f = self.f
        for observer, row in enumerate(f["known"]):
            for seat, known in enumerate(row):
                wrong = known & ~f["hands"][seat] if seat != observer else known
                if wrong:
                    self.fail(
                        f"known[{observer}][{seat}]",
                        f"{data_cards(wrong)}; allowed: cards in hand {seat} that seat {observer} "
                        "can tell are there (none of its own)",
                    )
        discards, effect = mask_of(f["discards"]), self.effect
        card = data.card_text(f["trump_card"])
        if effect.discard_one:
            done = f["turn"] > 1 and f["phase"] != Phase.DISCARD
            if any(len(bits(m)) != int(done) for m in f["discarded"]):
                self.fail(
                    "discarded",
                    f"{[data_cards(m) for m in f['discarded']]} under {card}; "
                    f"allowed: {'one card' if done else 'no card'} per seat",
                )
        elif effect.replace_numbers:
            check_replaced_discards(effect, f["discards"], f["trump_card"])
        elif f["discards"]:
            self.fail(
                "discards",
                f"{data_cards(discards)} under rule card {card}; allowed: [] "
                "(only Orange 3 and 7 discard)",
            )
        seen = 0
        for seat, mask in enumerate(f["discarded"]):
            if mask & ~discards or mask & seen:
                self.fail(
                    f"discarded[{seat}]",
                    f"{data_cards(mask)}; allowed: cards of game.discards that no other seat "
                    "discarded",
                )
            seen |= mask
        if seen != discards:
            self.fail(
                "discarded",
                f"{[data_cards(m) for m in f['discarded']]} does not account for the discards "
                f"{data_cards(discards)}",
            )

    def _check_last_turn(self) -> None:
        f = self.f
        items = f["last_turn"]
        if items is None:
            if f["over"] or f["last_trick_winners"]:
                self.fail(
                    "last_turn", "null, but a turn was scored; allowed: the tally of every seat"
                )
            return
        if not f["last_trick_winners"]:
            self.fail(
                "last_trick_winners",
                "[], but a turn was scored; allowed: who won each of its tricks",
            )
        for seat, item in enumerate(items):
            raw = (
                item.trick_points
                + item.exact
                + item.highest
                + item.astroboard
                + item.turbo
                + item.card_points
                + item.berzerkerbird
                + item.first_last
                - item.penalty
            )
            if (
                item.floored != max(0, raw)
                or item.total != (item.floored + item.parity) * item.multiplier
            ):
                self.fail(
                    f"last_turn[{seat}]",
                    "its items do not add up to floored and total (floored = max(0, points - "
                    "penalty), total = (floored + parity) x multiplier)",
                )


def check_replaced_discards(effect: Effect, discards: list[int], trump_card: int) -> None:
    """Under a rule card that replaces only some numbers (the 1s and 2s), the
    discards hold only those: a :class:`StateDictError` on ``game.discards``
    otherwise. Part of :func:`validate_state_dict`, and alone the one check a
    resampled deal can fail (the resampler deals any unseen card into a
    discard slot and deals again when this refuses)."""
    if any(number_of(c) not in effect.replace_numbers for c in discards):
        raise StateDictError(
            f"game.discards: {data_cards(mask_of(discards))}; allowed under "
            f"{data.card_text(trump_card)}: only the 1s and 2s replaced"
        )


def _shown(value: Any) -> str:
    """``repr`` cut to a readable length (a state may hold anything)."""
    return short_repr(value, 60)
