"""A rule-based Asrus player, the baseline a trained agent must beat.

It plays the way a decent casual player does:

* **Near the destination, away from the crowd.** For each card in hand it
  estimates, from the cards it has not seen this round, how likely the others
  are to play each distance (players favour close cards), then the chance that
  its own distance stays unique and that nobody wins closer. A card's value is
  that chance times the points the win would bring, and it draws its card with
  probability in proportion to value rather than always the best: a player
  whose choice can be predicted is the one others collide with, and copies of
  the bot at one table would otherwise all aim at the same distance.
* **Specials when they decide the turn.** Close when its best distance is
  likely to be duplicated; Majority on a number others are likely to crowd;
  Retrograde with a far card nobody will match; Double (or a Triple joker) on a
  card it expects to win with; Blackhole when it expects to lose anyway. A
  special it still holds when the round is about to run out is used on the best
  remaining chance rather than wasted.

It reads only the ``view`` of its own seat (hand, specials, destination, the
cards revealed this round, how many cards each player holds) and the action
mask, like any player at the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.bots import legal_from_mask
from ..core.compiled import act_on_compiled_table
from ..core.rng import make_rng
from . import data
from .native import NativeAsrusGame, NativeHeuristicBot
from .rules import encode_action

CLOSENESS_DECAY = 0.55
"""How much less likely an opponent is to play a card one step farther away."""
CLOSE_GAIN_THRESHOLD = 0.2
MAJORITY_CROWD_THRESHOLD = 0.9
RETROGRADE_MIN_DISTANCE = 5
DOUBLE_MIN_WIN_CHANCE = 0.45
BLACKHOLE_MAX_WIN_CHANCE = 0.08
MIX_SHARPNESS = 1.0
"""The plain card is drawn with probability proportional to value ** this."""


@dataclass(frozen=True)
class Candidate:
    """One way to play this turn and what we expect of it."""

    number: int
    power: str | None
    joker: bool
    win_chance: float
    gain: float

    loss_avoided: float = 0.0
    """What we expect to pay another winner, saved when we win instead."""

    @property
    def value(self) -> float:
        return self.win_chance * (self.gain + self.loss_avoided)


def unseen_counts(view: dict[str, Any]) -> list[float]:
    """Copies of each number that could be in an opponent's hand (index = number):
    the game's deck (the view's ``deck``, which a variant may have reduced) less
    what this seat has seen."""
    deck = view["deck"]
    counts = [0.0] + [float(deck[str(n)]) for n in data.NUMBERS]
    for card in view["hand"]:
        counts[int(card)] -= 1
    for card in view["revealed_this_round"]:
        counts[int(card)] -= 1
    destination = int(view["destination"])
    if view["destination_card"] and str(destination) not in view["revealed_this_round"]:
        counts[destination] -= 1
    return [max(0.0, c) for c in counts]


def opponent_distance_probabilities(
    unseen: list[float], destination: int, hand_left: int
) -> dict[float, float]:
    """Probability that one opponent plays each distance.

    An opponent holds ``hand_left`` cards drawn from the unseen pool; among the
    distances it holds it prefers close ones (weight decays with distance) and
    avoids distance 0, which never wins.
    """
    pool = max(1.0, sum(unseen))
    weights: dict[float, float] = {}
    for number in data.NUMBERS:
        if unseen[number] <= 0:
            continue
        distance = abs(number - destination)
        holds = 1.0 - (1.0 - unseen[number] / pool) ** max(1, hand_left)
        preference = 0.05 if distance == 0 else CLOSENESS_DECAY**distance
        weights[distance] = weights.get(distance, 0.0) + holds * preference
    total = sum(weights.values()) or 1.0
    return {d: w / total for d, w in weights.items()}


def number_probabilities(
    unseen: list[float], destination: int, by_distance: dict[float, float]
) -> list[float]:
    """Probability that one opponent plays each number (index = number), from the
    distance probabilities split between the two numbers at each distance."""
    result = [0.0] * 16
    for number in data.NUMBERS:
        distance = abs(number - destination)
        twin = destination - distance if number > destination else destination + distance
        share_twin = unseen[twin] if 1 <= twin <= 15 and twin != number else 0.0
        both = unseen[number] + share_twin
        if both > 0 and distance in by_distance:
            result[number] = by_distance[distance] * unseen[number] / both
    return result


class WinModel:
    """How likely a distance is to win this turn, for one decision.

    A distance wins when nobody else plays it and no distance that beats it
    (closer, or farther under Retrograde) is played by exactly one opponent.
    The per-distance factors are computed once; answers are remembered, as a
    hand asks about the same few distances many times (each card alone and
    with each special) and the bot also acts inside training loops."""

    def __init__(self, probs: dict[float, float], opponents: int, retro: float) -> None:
        self.probs, self.opponents, self.retro = probs, opponents, retro
        self._nobody_alone = {
            d: 1.0 - min(1.0, opponents * p * (1.0 - p) ** max(0, opponents - 1))
            for d, p in probs.items()
        }
        """Per distance: the chance that it is not played by exactly one opponent."""
        self._known: dict[tuple[float, bool], float] = {}

    def chance(self, distance: float, farthest: bool) -> float:
        key = (distance, farthest)
        known = self._known.get(key)
        if known is None:
            known = self._compute(distance, farthest)
            self._known[key] = known
        return known

    def _compute(self, distance: float, farthest: bool) -> float:
        if distance <= 0:
            return 0.0
        chance = (1.0 - self.probs.get(distance, 0.0)) ** self.opponents
        for other, factor in self._nobody_alone.items():
            if (other > distance) if farthest else (0 < other < distance):
                chance *= factor
        return chance

    def mixed(self, distance: float) -> float:
        """Win chance when an opponent's Retrograde may flip the turn to farthest-wins."""
        closest = self.chance(distance, False)
        if self.retro <= 0:
            return closest
        return (1.0 - self.retro) * closest + self.retro * self.chance(distance, True)


def retrograde_chance(view: dict[str, Any]) -> float:
    """Chance that some opponent plays Retrograde this turn, assuming each spends
    its specials evenly over the turns left and a special is R one time in five."""
    hand_left = max(1, int(view["hand_left"]))
    me = view["agent"]
    none = 1.0
    for agent, held in view["specials_held"].items():
        if agent != me:
            none *= 1.0 - min(1.0, held / hand_left) / len(data.SPECIAL_KINDS)
    return 1.0 - none


class AsrusHeuristicBot:
    """Plays near the destination, dodges likely duplicates, saves its specials
    for turns they decide; see the module docstring."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = make_rng(seed)
        self._compiled: NativeHeuristicBot | None = None
        """The compiled bot of :meth:`act_on_table`, made on its first use."""

    def act_on_table(self, raw: Any, agent: str) -> int | None:
        """The same choice as :meth:`act`, made by the compiled bot straight from
        a compiled engine (no view built); None on the Python engine (then
        :meth:`act` is asked); see :func:`~flockgym.envs.core.compiled.act_on_compiled_table`."""
        return act_on_compiled_table(self, raw, agent, NativeAsrusGame, NativeHeuristicBot)

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        legal = {int(a) for a in legal_from_mask(observation)}
        candidates = [c for c in self.candidates(view) if self._encode(c) in legal]
        if not candidates:
            return int(self.rng.choice(sorted(legal)))
        plain = [c for c in candidates if c.power is None]
        best_plain = self._mixed_choice(plain)
        specials = [c for c in candidates if c.power is not None]
        choice = best_plain
        if specials:
            best_special = max(specials, key=lambda c: c.value)
            if best_special.value > best_plain.value * 1.15 or self._specials_expiring(view):
                choice = best_special if best_special.value >= best_plain.value else choice
            blackhole = self._blackhole(view, best_plain, candidates)
            if blackhole is not None and choice is best_plain:
                choice = blackhole
        return self._encode(choice)

    def _mixed_choice(self, plain: list[Candidate]) -> Candidate:
        """A card drawn with probability in proportion to its value.

        A unique distance is what wins, so a player who always plays its single
        best card is predictable: copies of this bot at one table would all aim
        at the same distance and knock each other out. Drawing in proportion to
        value keeps the good cards likely and the table spread out; measured
        over the three fields of ``docs/baselines.md`` it beats both the
        always-best choice and sharper draws (value squared or cubed)."""
        best = max(plain, key=lambda c: c.value)
        if best.value <= 0:
            return best
        weights = np.array([max(c.value, 0.0) for c in plain]) ** MIX_SHARPNESS
        return plain[int(self.rng.choice(len(plain), p=weights / weights.sum()))]

    # -- evaluation --

    def candidates(self, view: dict[str, Any]) -> list[Candidate]:
        """Every card in hand, alone and with each special held, valued."""
        destination = int(view["destination"])
        opponents = len(view["points"]) - 1
        hand_left = int(view["hand_left"])
        unseen = unseen_counts(view)
        probs = opponent_distance_probabilities(unseen, destination, hand_left)
        per_number = number_probabilities(unseen, destination, probs)
        powers = self._powers_held(view)
        model = WinModel(probs, opponents, retrograde_chance(view))
        typical_loss = sum(d * p for d, p in probs.items())
        result = []
        for number in sorted({int(c) for c in view["hand"]}):
            distance = abs(number - destination)
            base_gain = distance * opponents * (2 if number in (1, 15) else 1)
            plain = model.mixed(distance)
            result.append(Candidate(number, None, False, plain, base_gain, typical_loss))
            for power, joker in powers:
                chance, gain = self._with_power(
                    power, number, distance, base_gain, plain, model, per_number, opponents
                )
                result.append(Candidate(number, power, joker, chance, gain, typical_loss))
        return result

    @staticmethod
    def _with_power(
        power: str,
        number: int,
        distance: int,
        base_gain: float,
        plain: float,
        model: WinModel,
        per_number: list[float],
        opponents: int,
    ) -> tuple[float, float]:
        """(win chance, points if won) of playing ``number`` with ``power``."""
        if power == "C":
            return model.mixed(distance - 0.5), base_gain
        if power == "D":
            return plain, 2 * base_gain
        if power == "T":
            return plain, 3 * base_gain
        if power == "R":
            return model.chance(distance, True), base_gain
        if power == "M":
            crowd = per_number[number] * opponents
            if distance == 0 or crowd < MAJORITY_CROWD_THRESHOLD:
                return 0.0, base_gain
            return min(0.9, crowd / (1.0 + crowd)), base_gain
        return 0.0, 0.0  # B and X never win a turn by themselves

    def _blackhole(
        self, view: dict[str, Any], best: Candidate, candidates: list[Candidate]
    ) -> Candidate | None:
        """Blackhole (or an Explosion joker) when we expect to lose this turn."""
        if best.win_chance > BLACKHOLE_MAX_WIN_CHANCE:
            return None
        spoilers = [c for c in candidates if c.power in ("B", "X") and c.number == best.number]
        return spoilers[0] if spoilers else None

    @staticmethod
    def _specials_expiring(view: dict[str, Any]) -> bool:
        return len(view["specials"]) >= int(view["hand_left"])

    @staticmethod
    def _powers_held(view: dict[str, Any]) -> list[tuple[str, bool]]:
        held = set(view["specials"])
        powers = [(k, False) for k in data.SPECIAL_KINDS if k in held]
        if "J" in held:
            powers += [(p, True) for p in data.JOKER_POWERS]
        return powers

    @staticmethod
    def _encode(candidate: Candidate) -> int:
        return encode_action(candidate.number, candidate.power, candidate.joker)
