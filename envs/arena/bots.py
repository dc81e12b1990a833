"""A rule-based Arena player, the baseline a trained agent must beat.

It plays the way a decent casual player does, from its seat's ``view`` and the
action mask only:

* **Heads for challenges it can probably win.** Every space it could end its
  move on gets a value: the best action there (a maneuver, a world once it
  holds four maneuvers, a medal card, a card of a player standing there,
  training), each worth its prize times the exact chance of winning it with
  its dice, medals, bonuses and the trophies it would spend; an AstroPortal
  is worth a typical encounter, and every gym passed while it has trophies
  adds one. It looks ahead through the forks (and through stopping on a
  player, or the Nebula Slide) to pick the trophies to spend after the roll
  and the way to go.
* **Spends trophies where they tip a roll**: before a challenge or a defence
  it spends the number that gains the most chance per trophy, and uses its gym
  power cards and medal dice when they raise the chance.
* **Trains at gyms when trophies are short**, takes gym power cards when sent
  to a gym, turns into a Berzerkerbirdz whenever it can (d8 dice).
* **Guards its worlds**: defending a world it spends freely (a world kept is
  defended for good; the third wins), and it loses its least useful card when
  a table makes it lose one.
* Table picks: the best card, the richest or leading opponent to hit, the space
  with the best prospects.
* **Wishes for the strongest character left**: the board is dealt only after
  the wishes, so it wishes by the heuristic's own measured win rate per
  character (:data:`.data.HEURISTIC_CHARACTER_ORDER`).
* **Slides at most** :data:`SLIDES_PER_TURN` **times a turn.** A player holding
  nothing for the table to take can only roll the 6 (a whole new turn from any
  space), and the best space to start that turn from is next to a slide end:
  sliding again and again is each time the best-looking move, and the game
  would never go on. After that many slides in one turn it stays.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..core.bots import legal_from_mask
from ..core.rng import make_rng
from .actions import ActionLayout
from .data import HEURISTIC_CHARACTER_ORDER, box_tables, load_box
from .dice import distribution
from .native import CompiledArenaBot, CompiledArenaGame
from .observer import bot_view

TROPHY_COST = 0.15
"""What a trophy is worth kept: each is +2 on a later roll."""
MANEUVER_VALUE = 1.0
WORLD_VALUE = 3.5
MEDAL_CARD_VALUE = 0.35
PORTAL_VALUE = 0.45
"""A typical AstroPortal encounter: more cards and trophies than losses."""
GYM_PASS_VALUE = 0.12
SLIDES_PER_TURN = 3
"""Nebula Slides the heuristic goes through in one turn before it stays (see
the module docstring)."""
TRAIN_SHORT, TRAIN_VALUE = 0.5, 0.25


@functools.lru_cache(maxsize=512)
def reading(sides: int, levels: tuple[tuple[int, int], ...], level: int) -> tuple[int, ...]:
    """Face -> reading with medal ``level`` (0 none); ``levels`` = (below, reads)."""
    out = [0]
    for face in range(1, sides + 1):
        if level and face <= levels[level - 1][0]:
            out.append(levels[level - 1][1])
        else:
            out.append(face)
    return tuple(out)


def added_up(values: Any) -> float:
    """``values`` added one by one, first to last: the compiled bot adds in the
    same order, so their sums agree to the last bit (``sum`` of floats compensates
    its rounding from Python 3.12 on, which a plain C++ loop does not)."""
    total = 0.0
    for value in values:
        total += value
    return total


@functools.lru_cache(maxsize=4096)
def tail(table: tuple[int, ...], count: int, need: int) -> float:
    """Chance that ``count`` dice read by ``table`` add up to ``need`` or more."""
    if need <= 0:
        return 1.0
    dist = distribution(table, count)
    return added_up(dist[need:]) if need < len(dist) else 0.0


class Roller:
    """One player's dice for a roll, from the view: sides, count, reading."""

    def __init__(self, bot_view: View, agent: str, extra: int = 0) -> None:
        p = bot_view.players[agent]
        box = bot_view.box
        self.sides = box["dice"]["challenge"][p["form"]]
        self.count = box["rules"]["challenge_dice"] + extra + p["roll_prep"]["extra_dice"]
        level = 3 if p["roll_prep"]["gold_reading"] else bot_view.medal_level(agent)
        self.dark = p["dark_matter_turns"] > 0
        self.dark_value = box["rules"]["dark_matter_value"]
        self.table = reading(self.sides, bot_view.levels, level)

    def at_least(self, need: int) -> float:
        if self.dark:
            return 1.0 if self.dark_value * self.count >= need else 0.0
        return tail(self.table, self.count, need)

    def any_at_least(self, target: int) -> float:
        if self.dark:
            return 1.0 if self.dark_value >= target else 0.0
        misses = sum(1 for face in range(1, self.sides + 1) if self.table[face] < target)
        return 1.0 - (misses / self.sides) ** self.count

    def distribution(self) -> tuple[float, ...]:
        if self.dark:
            dist = [0.0] * (self.dark_value * self.count + 1)
            dist[-1] = 1.0
            return tuple(dist)
        return distribution(self.table, self.count)


@functools.lru_cache(maxsize=8192)
def beats(mine: tuple[float, ...], theirs: tuple[float, ...], margin: int) -> float:
    """Chance that my sum exceeds theirs by more than ``margin`` (kept: the same
    two rollers meet again and again in a game)."""
    cumulative = np.cumsum((0.0, *theirs))
    total = 0.0
    for s, p in enumerate(mine):
        limit = s - margin
        if p and limit > 0:
            total += p * cumulative[min(limit, len(theirs))]
    return float(total)


@functools.lru_cache(maxsize=32)
def action_layout(data_path: str | None, players: int) -> ActionLayout:
    """The action ids of the box the view's ``options`` name."""
    return ActionLayout(load_box(data_path), players)


@functools.lru_cache(maxsize=32)
def view_constants(
    data_path: str | None, world_challenge: str, players: int
) -> tuple[dict[str, Any], dict[str, int], tuple[tuple[int, int], ...], dict[str, tuple[int, int]]]:
    """What a view's box and table size fix, worked out once: the box's tables, each
    card's index, the medal readings (below, reads) and the action segments
    (offset, size). Shared: do not modify them."""
    box = box_tables(data_path, world_challenge)
    card_index = {name: i for i, name in enumerate(box["cards"])}
    levels = tuple((m["below"], m["reads"]) for m in box["rules"]["medal_levels"])
    layout = action_layout(data_path, players)
    segments = {name: (layout.offsets[name], layout.sizes[name]) for name in layout.offsets}
    return box, card_index, levels, segments


class View:
    """The parts of a view the bot reads, indexed."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.raw = view
        self.me = view["agent"]
        self.players = view["players"]
        self.agents = list(self.players)
        self.n = len(self.agents)
        self.seat = self.agents.index(self.me)
        options = view["options"]
        self.box, self.card_index, self.levels, self.segments = view_constants(
            options["data"], options["world_challenge"], self.n
        )
        self.spaces = view["board"]["spaces"]
        self.cards = self.box["cards"]
        self.trophy_value = self.box["rules"]["trophy_value"]
        self.landing_memo: dict[int, float] = {}
        self.stop_memo: dict[int, float] = {}
        """Each space's landing and stopping value in this view, worked out once per
        decision: a look-ahead from every space of the board (a new turn's start
        after the Nebula Slide's 6) reaches the same spaces hundreds of times."""
        self.best_memo: dict[float, dict[tuple[int, int, bool], float]] = {}
        """The look-ahead's best value from (space, steps left, moved), per value
        of the Nebula Slide: the same in every move of this decision (the spend
        options look ahead from the same space with more steps)."""
        self.slide_memo: dict[Any, float] = {}
        self._rollers: dict[str, Roller] = {}
        self._move_facts: tuple[dict[int, int], set[int]] | None = None

    def roller(self, agent: str) -> Roller:
        """``agent``'s dice for a roll, read once per decision."""
        roller = self._rollers.get(agent)
        if roller is None:
            roller = self._rollers[agent] = Roller(self, agent)
        return roller

    def move_facts(self) -> tuple[dict[int, int], set[int]]:
        """(trophies on each gym space, the spaces where another player stands)."""
        facts = self._move_facts
        if facts is None:
            spaces = self.spaces
            gyms = {
                sid: spaces[sid]["gym_trophies"]
                for sid in self.raw["board"]["corners"]
                if spaces[sid]["kind"] == "gym"
            }
            # a space where another player stands: another player's position
            crowded = {
                p["position"]
                for a, p in self.players.items()
                if a != self.me and p["position"] >= 0
            }
            facts = self._move_facts = (gyms, crowded)
        return facts

    def medal_level(self, agent: str) -> int:
        medals = self.players[agent]["medals"]
        return (
            3 if "gold" in medals else 2 if "silver" in medals else 1 if "bronze" in medals else 0
        )

    def bonus(self, agent: str, kind: str) -> int:
        b = self.players[agent]["bonus"]
        return b["amount"] if b["kind"] == kind else 0

    def card_bonus(self, agent: str, card: str) -> int:
        b = self.cards[card]["bonus"]
        return b["amount"] if b and b["form"] == self.players[agent]["form"] else 0

    def id(self, segment: str, index: int = 0) -> int:
        return self.segments[segment][0] + index

    def relative(self, agent: str) -> int:
        return (self.agents.index(agent) - self.seat) % self.n

    def challengeable(self, agent: str) -> list[tuple[str, str]]:
        p = self.players[agent]
        out = [("maneuver", m) for m in p["maneuvers"]]
        return out + [("world", w) for w in p["worlds"] if w not in p["defended_worlds"]]

    def others_on(self, space: int) -> list[str]:
        return [a for a in self.spaces[space]["players"] if a != self.me]


class ArenaHeuristicBot:
    """See the module docstring."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = make_rng(seed)
        self.slides: tuple[Any, int] = (None, 0)
        """(the turn, slides gone through in it): the turn is the round and the
        seat on turn, as the view tells them."""
        self._compiled: CompiledArenaBot | None = None
        """The compiled bot of :meth:`act_on_table`, made on its first use."""

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        legal = {int(a) for a in legal_from_mask(observation)}
        v = View(view)
        choice = self._choose(v, legal)
        if choice in legal:
            return choice
        return int(self.rng.choice(sorted(legal)))  # never reached when the view is complete

    def act_on_table(self, raw: Any, agent: str) -> int | None:
        """The move :meth:`act` makes, made by the compiled bot straight from a
        compiled engine (no view built); None on the Python engine (then
        :meth:`act` is asked). A bot plays one table, always one way: the
        compiled bot starts from this bot's generator and slide count as they
        are at its first use, and keeps its own from then on."""
        game = getattr(raw, "game", None)
        if not isinstance(game, CompiledArenaGame) or game.current_player() != raw.seat_of(agent):
            return None
        if self._compiled is None:
            self._compiled = CompiledArenaBot(self.rng, self._slides_by_seat(raw))
        return self._compiled.act_in(game)

    def _slides_by_seat(self, raw: Any) -> tuple[int, int, int] | None:
        """:attr:`slides` as the compiled bot keeps it: (round, seat on turn, count)."""
        (turn, on_turn), count = self.slides if self.slides[0] else ((None, None), 0)
        if turn is None or on_turn is None:
            return None
        return (turn - 1, raw.seat_of(on_turn), count)

    def act_on_env(self, env: Any, agent: str, observation: dict[str, np.ndarray]) -> int:
        """The move :meth:`act` makes with ``env.view(agent)``, from a view of only
        the keys this bot reads (:func:`.observer.bot_view`, the same values):
        self-play calls it instead of building the whole view for the bot (and
        on the compiled engine, the compiled bot answers: :meth:`act_on_table`)."""
        fast = self.act_on_table(env, agent)
        if fast is not None:
            return fast
        game = env.arena
        view = bot_view(game, env.seat_of(agent), env.possible_agents)
        return self.act(observation, view)

    # ---- dispatch -------------------------------------------------------------------------

    def _choose(self, v: View, legal: set[int]) -> int:
        phase = v.raw["phase"]
        if phase == "wish":
            return self._wish(v, legal)
        if phase == "corner":
            return self._corner(v, legal)
        if phase == "pre_roll":
            return self._pre_roll(v, legal)
        if phase == "move_spend":
            return self._move_spend(v, legal)
        if phase == "move":
            return self._move(v, legal)
        if phase == "action":
            return self._action(v, legal)
        if phase == "challenge_spend":
            return self._challenge_spend(v, legal)
        if phase == "defend_spend":
            return self._defend_spend(v, legal)
        if phase == "gym_card":
            return v.id("train")
        return self._pick(v, legal)

    # ---- values of prizes and of landing places -----------------------------------------------

    def prize(self, v: View, kind: str, card: str | None = None) -> float:
        me = v.players[v.me]
        if kind == "world":
            if len(me["worlds"]) + 1 >= v.box["rules"]["win_worlds"]:
                return 100.0
            return WORLD_VALUE
        if kind == "medal":
            return MEDAL_CARD_VALUE
        count = len(me["maneuvers"]) + 1
        value = MANEUVER_VALUE
        if count == v.box["rules"]["maneuvers_for_worlds"]:
            value += 0.7  # opens the worlds
        if count in (3, 5, 7):
            value += 0.3  # a medal (and the transformation roll)
        return value

    def best_spend(self, v: View, chance: Any, value: float, trophies: int) -> tuple[float, int]:
        """(expected gain, trophies to spend) for ``chance(extra)`` of winning ``value``."""
        best, best_k = chance(0) * value, 0
        for k in range(1, trophies + 1):
            gain = chance(k * v.trophy_value) * value - TROPHY_COST * k
            if gain > best + 1e-9:
                best, best_k = gain, k
        return best, best_k

    def challenge_chance(self, v: View, kind: str, item: str | None, defender: str | None) -> Any:
        """``chance(extra)``: the chance of winning this challenge with ``extra``
        added to the total (trophies, powers)."""
        me = v.players[v.me]
        roller = v.roller(v.me)
        waiting = me["star_cluster_trophies"] * v.trophy_value + me["roll_prep"]["bonus"]
        if kind == "medal":
            target = v.box["rules"]["medal_target"] - v.bonus(v.me, "medal") - waiting
            return lambda extra: roller.any_at_least(target - extra)
        assert item is not None
        card = v.cards[item]
        bonus = v.card_bonus(v.me, item) + waiting
        if kind in ("maneuver", "world"):
            need = card["challenge"] - v.bonus(v.me, kind) - bonus
            return lambda extra: roller.at_least(need - extra)
        assert defender is not None
        bonus += v.bonus(v.me, "attack")
        if card["character"] == me["character"]:  # homeworld or favourite trick
            need = card["number"] - bonus
            return lambda extra: roller.at_least(need - extra)
        theirs = v.roller(defender)
        their_mod = v.bonus(defender, "defence") + v.card_bonus(defender, item)
        their_mod += v.players[defender]["trophies"] // 2 * v.trophy_value  # they may spend
        mine = roller.distribution()
        their_dist = theirs.distribution()
        return lambda extra: beats(mine, their_dist, their_mod - bonus - extra)

    def action_options(self, v: View, space: int) -> list[tuple[float, str, Any]]:
        """(value, kind, detail) of each action at ``space``."""
        me = v.players[v.me]
        sp = v.spaces[space]
        trophies = me["trophies"]
        out: list[tuple[float, str, Any]] = [(0.0, "end", None)]
        if sp["kind"] == "gym" and sp["gym_power_cards"] > 0:
            first = me["first_turn"] or v.raw["turn"] == 1  # (new turns inside the first)
            first_home = first and me["start_corner"] == space
            if not first_home:
                out.append((TRAIN_SHORT if trophies < 2 else TRAIN_VALUE, "train", None))
        card = sp.get("card")
        if card:
            kind = v.cards[card]["kind"]
            if kind == "maneuver" or len(me["maneuvers"]) >= v.box["rules"]["maneuvers_for_worlds"]:
                gain, _ = self.best_spend(
                    v, self.challenge_chance(v, kind, card, None), self.prize(v, kind), trophies
                )
                out.append((gain, "card", card))
        if sp.get("medal_card"):
            gain, _ = self.best_spend(
                v, self.challenge_chance(v, "medal", None, None), MEDAL_CARD_VALUE, trophies
            )
            out.append((gain, "medal", None))
        for other in v.others_on(space):
            for kind, name in v.challengeable(other):
                value = self.prize(v, kind) + (0.5 if kind == "world" else 0.2)  # they lose it
                gain, _ = self.best_spend(
                    v, self.challenge_chance(v, "player", name, other), value, trophies
                )
                out.append((gain, "player", (other, name)))
        return out

    def landing_value(self, v: View, space: int) -> float:
        kind = v.spaces[space]["kind"]
        if kind == "portal":
            return PORTAL_VALUE
        return max(option[0] for option in self.action_options(v, space))

    def stop_value(self, v: View, space: int) -> float:
        options = [o for o in self.action_options(v, space) if o[1] == "player"]
        return max((o[0] for o in options), default=-1.0)

    def slides_this_turn(self, v: View) -> int:
        turn, count = self.slides
        return count if turn == self._turn(v) else 0

    def _turn(self, v: View) -> tuple[Any, Any]:
        return (v.raw["turn"], v.raw["on_turn"])

    def slide_value(self, v: View) -> float:
        """The Nebula Slide's expected worth (results that cannot be done re-roll);
        none once the turn has had its :data:`SLIDES_PER_TURN` slides."""
        if self.slides_this_turn(v) >= SLIDES_PER_TURN:
            return -1e9
        value = v.slide_memo.get(None)
        if value is None:
            value = v.slide_memo[None] = self._slide_worth(v)
        return value

    def _slide_worth(self, v: View) -> float:
        """The mean worth of the slide's results that can be done, from the view."""
        me = v.players[v.me]
        others = [v.players[a] for a in v.agents if a != v.me]
        sides = v.box["dice"]["nebula_slide"][me["form"]]
        results = {
            1: -0.9 if me["maneuvers"] else None,
            2: -WORLD_VALUE if me["worlds"] else None,
            3: -TROPHY_COST if me["trophies"] else None,
            4: TROPHY_COST if any(o["trophies"] for o in others) else None,
            5: WORLD_VALUE if any(o["worlds"] for o in others) else None,
            6: 0.6,
            7: 1.0 if "gold" not in me["medals"] else None,
            8: 0.45,
        }
        values = [x for r in range(1, sides + 1) if (x := results[r]) is not None]
        return added_up(values) / len(values)

    def move_value(self, v: View, start: int, steps: int, entered: bool) -> float:
        """The best the move can end in, looking ahead through every choice."""
        landing, stop = v.landing_memo, v.stop_memo
        slide = self.slide_value(v)
        gyms, crowded = v.move_facts()
        memo = v.best_memo.setdefault(slide, {})
        spaces = v.spaces

        def best(space: int, left: int, moved: bool) -> float:
            key = (space, left, moved)
            value = memo.get(key)
            if value is not None:
                return value
            options = []
            if left == 0:
                if space not in landing:
                    landing[space] = self.landing_value(v, space)
                options.append(landing[space])
            else:
                for nxt in spaces[space]["next"]:
                    gain = GYM_PASS_VALUE if gyms.get(nxt, 0) > 0 else 0.0
                    options.append(best(nxt, left - 1, True) + gain)
                if moved and space in crowded:
                    if space not in stop:
                        stop[space] = self.stop_value(v, space)
                    options.append(stop[space])
            if moved and spaces[space]["kind"] == "slide":
                options.append(slide)
            value = memo[key] = max(options)
            return value

        return best(start, steps, entered)

    # ---- phases ---------------------------------------------------------------------------

    def _wish(self, v: View, legal: set[int]) -> int:
        """The strongest character left: the board is not dealt yet, so the wish
        follows the heuristic's measured win rate per character
        (``HEURISTIC_CHARACTER_ORDER``); a box's characters missing there come
        last, in box order."""
        names = list(v.box["characters"])
        rank = {name: i for i, name in enumerate(HEURISTIC_CHARACTER_ORDER)}
        order = sorted(range(len(names)), key=lambda i: (rank.get(names[i], len(rank)), i))
        for i in order:
            action = v.id("wish", i)
            if action in legal:
                return action
        return min(legal)

    def _corner(self, v: View, legal: set[int]) -> int:
        corners = v.raw["board"]["corners"]
        sides = v.box["dice"]["first_turn"]
        scores = [
            added_up(self.move_value(v, corner, r, False) for r in range(1, sides + 1))
            for corner in corners
        ]
        return v.id("corner", int(np.argmax(scores)))

    def _pre_roll(self, v: View, legal: set[int]) -> int:
        me = v.players[v.me]
        for name in dict.fromkeys(me["gym_powers"]):
            power = v.box["gyms"][name]["power"]["kind"]
            action = v.id("use", list(v.box["gyms"]).index(name))
            if action in legal and power in ("transform", "trophies"):
                return action
        for name in me["medal_cards"]:
            uses = v.box["medal_cards"][name]["extra_die"]
            action = v.id("add", list(v.box["medal_cards"]).index(name))
            if action in legal and uses == ["movement"]:
                return action
        return v.id("roll")

    def _move_spend(self, v: View, legal: set[int]) -> int:
        me = v.players[v.me]
        here, roll = me["position"], v.raw["steps_left"]
        for name in dict.fromkeys(me["gym_powers"]):
            action = v.id("use", list(v.box["gyms"]).index(name))
            if action in legal and v.box["gyms"][name]["power"]["kind"] == "trophies":
                return action
        best_k, best = 0, self.move_value(v, here, roll, False)
        for k in range(1, me["trophies"] + 1):
            value = self.move_value(v, here, roll + k * v.trophy_value, False) - TROPHY_COST * k
            if value > best + 0.05:
                best, best_k = value, k
        return v.id("spend", best_k)

    def _move(self, v: View, legal: set[int]) -> int:
        me = v.players[v.me]
        here, left = me["position"], v.raw["steps_left"]
        gyms = v.move_facts()[0]
        options: list[tuple[float, int]] = []
        for nxt in v.spaces[here]["next"]:
            action = v.id("to", nxt)
            if action in legal:
                gain = GYM_PASS_VALUE if gyms.get(nxt, 0) > 0 else 0.0
                options.append((self.move_value(v, nxt, left - 1, True) + gain, action))
        if v.id("stop") in legal:
            options.append((self.stop_value(v, here), v.id("stop")))
        if v.id("slide") in legal:
            options.append((self.slide_value(v), v.id("slide")))
        if v.id("stay") in legal:
            options.append((self.landing_value(v, here), v.id("stay")))
        choice = max(options)[1]
        if choice == v.id("slide"):
            # a transform power first: the slide roll becomes a d8 (7 and 8 are good)
            use = v.id("use")
            powers = sorted(a for a in legal if use <= a < use + len(v.box["gyms"]))
            if powers:
                return powers[0]
            self.slides = (self._turn(v), self.slides_this_turn(v) + 1)
        return choice

    def _action(self, v: View, legal: set[int]) -> int:
        me = v.players[v.me]
        best_value, best_action = -1e9, min(legal)
        for value, kind, detail in self.action_options(v, me["position"]):
            if kind == "end":
                action = v.id("end")
            elif kind == "train":
                action = v.id("train")
            elif kind == "medal":
                action = v.id("challenge_medal")
            elif kind == "card":
                action = v.id("challenge", v.card_index[detail])
            else:
                other, name = detail
                k = v.relative(other)
                action = v.id("challenge_player", (k - 1) * len(v.cards) + v.card_index[name])
            if action in legal and value > best_value:
                best_value, best_action = value, action
        return best_action

    def _spend_or_power(self, v: View, legal: set[int], chance: Any, value: float) -> int:
        """Use the power or medal die that raises the chance most, else spend."""
        me = v.players[v.me]
        base, k = self.best_spend(v, chance, value, me["trophies"])
        best_gain, best_action = base, v.id("spend", k)
        gyms = list(v.box["gyms"])
        for name in dict.fromkeys(me["gym_powers"]):
            action = v.id("use", gyms.index(name))
            if action not in legal:
                continue
            power = v.box["gyms"][name]["power"]
            if power["kind"] in ("transform", "trophies"):
                return action  # always worth it
            if power["kind"] == "bonus":
                gain, _ = self.best_spend(
                    v, lambda e, a=power["amount"]: chance(e + a), value, me["trophies"]
                )
                if gain - 0.2 > best_gain:
                    best_gain, best_action = gain - 0.2, action
        for name in me["medal_cards"]:
            action = v.id("add", list(v.box["medal_cards"]).index(name))
            if action in legal and base < 0.8 * value:
                return action  # one more die
        for name in dict.fromkeys(me["gym_powers"]):
            action = v.id("use", gyms.index(name))
            kind = v.box["gyms"][name]["power"]["kind"]
            if action in legal and kind in ("gold_reading", "extra_die") and base < 0.7 * value:
                return action
        return best_action

    def _challenge_spend(self, v: View, legal: set[int]) -> int:
        ch = v.raw["challenge"]
        kind = ch["kind"]
        if kind in ("maneuver", "world"):
            chance = self.challenge_chance(v, kind, ch["item"], None)
            value = self.prize(v, kind)
        elif kind == "medal":
            chance, value = self.challenge_chance(v, "medal", None, None), MEDAL_CARD_VALUE
        else:
            card_kind = v.cards[ch["item"]]["kind"]
            chance = self.challenge_chance(v, "player", ch["item"], ch["defender"])
            value = self.prize(v, card_kind) + 0.3
        return self._spend_or_power(v, legal, chance, value)

    def _defend_spend(self, v: View, legal: set[int]) -> int:
        ch = v.raw["challenge"]
        me = v.players[v.me]
        challenger = ch["challenger"]
        item = ch["item"]
        card_kind = v.cards[item]["kind"]
        value = WORLD_VALUE + 1.0 if card_kind == "world" else MANEUVER_VALUE
        if (
            card_kind == "world"
            and len(me["defended_worlds"]) + 1 >= v.box["rules"]["win_defended"]
        ):
            value = 100.0
        theirs = v.roller(challenger).distribution()
        their_mod = ch["spent"][0] * v.trophy_value + v.bonus(challenger, "attack")
        their_mod += v.card_bonus(challenger, item) + v.players[challenger]["roll_prep"]["bonus"]
        their_mod += v.players[challenger]["star_cluster_trophies"] * v.trophy_value
        mine = v.roller(v.me).distribution()
        my_mod = v.bonus(v.me, "defence") + v.card_bonus(v.me, item) + me["roll_prep"]["bonus"]
        my_mod += me["star_cluster_trophies"] * v.trophy_value

        def keep(extra: int) -> float:
            # the defender keeps the card unless the challenger rolls strictly higher
            return 1.0 - beats(theirs, mine, my_mod + extra - their_mod)

        return self._spend_or_power(v, legal, keep, value)

    # ---- table picks ------------------------------------------------------------------------

    def _pick(self, v: View, legal: set[int]) -> int:
        task = v.raw["task"]
        me = v.players[v.me]
        others = [a for a in v.agents if a != v.me]

        def leader_key(agent: str) -> tuple[int, int, int]:
            p = v.players[agent]
            return (len(p["worlds"]), len(p["maneuvers"]), p["trophies"])

        def pick(name: str) -> int:
            return v.id("pick", v.card_index[name])

        if task in ("slide_lose_maneuver", "asteroid_discard"):
            easiest = min(me["maneuvers"], key=lambda m: v.cards[m]["challenge"])
            return pick(easiest)  # the easiest to win back
        if task == "slide_lose_world":
            open_worlds = [w for w in me["worlds"] if w not in me["defended_worlds"]]
            return pick((open_worlds or me["worlds"])[0])
        if task == "slide_return":
            # as far as possible from the other players, where the card is hard to reach
            places = [a - v.id("place") for a in sorted(legal)]
            return v.id("place", max(places, key=lambda s: self._distance_from_others(v, s)))
        if task in ("slide_take_trophy", "dark_matter_other", "wormhole_player", "nova_turn_back"):
            targets = [a for a in others if v.id("player", v.relative(a) - 1) in legal]
            if not targets:
                return v.id("end")
            key = (
                (lambda a: v.players[a]["trophies"]) if task == "slide_take_trophy" else leader_key
            )
            return v.id("player", v.relative(max(targets, key=key)) - 1)
        if task == "slide_take_world":
            worlds = [(leader_key(a), w in v.players[a]["defended_worlds"], w)
                      for a in others for w in v.players[a]["worlds"]]  # fmt: skip
            return pick(max(worlds)[2])
        if task in ("black_hole_world", "zoominium_world", "dark_matter_maneuver",
                    "space_time_maneuver", "zoominium_maneuver"):  # fmt: skip
            names = [name for name in v.cards if pick(name) in legal]
            return pick(max(names, key=lambda n: v.cards[n]["challenge"]))  # hardest to win
        if task == "wormhole_place":
            places = [a - v.id("place") for a in sorted(legal)]
            return v.id("place", min(places, key=lambda s: self._space_prospect(v, s)))
        if task in ("star_cluster_become", "nova_become"):
            chars = [
                c
                for c in v.box["characters"]
                if v.id("become", list(v.box["characters"]).index(c)) in legal
            ]
            return v.id("become", list(v.box["characters"]).index(self._best_character(v, chars)))
        if task == "space_time_target":
            targets = [a for a in others if v.id("player", v.relative(a) - 1) in legal]
            return v.id("player", v.relative(max(targets, key=leader_key)) - 1)
        # a space to go to: the one with the best prospects
        spaces = [
            a - v.id("to") for a in sorted(legal) if v.id("to") <= a < v.id("to", len(v.spaces))
        ]
        if task in ("slide_gym", "nova_gym"):
            return v.id("to", max(spaces, key=lambda s: (v.spaces[s]["gym_power_cards"],
                                                         v.spaces[s]["gym_trophies"])))  # fmt: skip
        if task == "slide_new_turn":
            return v.id("to", max(spaces, key=lambda s: self._space_prospect(v, s)))
        return v.id("to", max(spaces, key=lambda s: self.landing_value(v, s)))

    def _space_prospect(self, v: View, space: int) -> float:
        """What a move starting on ``space`` is likely to reach (a d6 roll)."""
        return added_up(self.move_value(v, space, r, False) for r in range(1, 7)) / 6

    def _distance_from_others(self, v: View, space: int) -> int:
        at = v.spaces[space]["at"]
        spots = [v.spaces[v.players[a]["position"]]["at"] for a in v.agents if a != v.me]
        return min((abs(at[0] - r) + abs(at[1] - c) for r, c in spots), default=0)

    def _best_character(self, v: View, chars: list[str]) -> str:
        """The character whose bonus helps most: worlds, then maneuvers, then the rest."""
        order = {"world": 0, "attack": 1, "maneuver": 2, "defence": 3, "movement": 4,
                 "gym_trophy": 5, "medal": 6}  # fmt: skip

        def key(name: str) -> tuple[int, int]:
            c = v.box["characters"][name]
            b = (
                c["berzerkerbirdz_bonus"]
                if not c["invazorz"] and c["berzerkerbirdz_bonus"]
                else c["bonus"]
            )
            return (order.get(b["kind"], 9), -b["amount"])

        return min(chars, key=key)
