"""Skybirds: a climbing game of Squadrons, Medallions and the Aerodrome (``skybirds_v0``).

| | |
| --- | --- |
| Import | ``from flockgym.envs import skybirds_v0`` |
| Agents | ``player_0`` .. ``player_{n-1}``, n = 2..4 (default 4) |
| Actions | ``Discrete(123 + n + 3K)``, K tokens: ``Discrete(156 + n)`` on the shipped Aerodrome |
| Observation | ``Box(0, 1, (64 + 10n + n^2 + 2K + 3nK,), float32)`` + ``action_mask`` |
| Shipped | observation ``(86 + 43n + n^2,)``, mask ``(156 + n,)`` int8 |
| Parallel | ``skybirds_v0.parallel_env()``: PettingZoo's turn-based AEC-to-parallel conversion |

A Great War is a series of Campaigns. In each, players shed their Aces in
Dogfights: the leader plays 1-6 equal Aces (the Squadron Size); the others in
turn pass or beat the last Squadron with one of the same size (more
Medallions, or as many and a higher value) or with a single Medallion Ace.
Whoever played last when everyone else has passed leads the next Dogfight.
Players who go out take tokens from their Aerodrome by place and
prerequisites; tokens score VP and carry two uses of a bonus that breaks a
rule. The Great War ends after the Dogfight in which a player takes the
Armistice; the highest VP wins. The full rules, the Aerodrome table and our
rulings are in ``docs/rules/skybirds.md``.

Options
-------
``num_players`` (2-4, default 4), ``reward``, ``illegal_action``,
``render_mode``, ``max_steps`` (see ``docs/api.md``), and:

- ``aerodrome`` (``None``): the shipped Aerodrome; or another table with the
  same columns (token, column, prerequisites, ribbon, vp_front, vp_back,
  bonus, timing), as a list of rows or a path to a .json/.yaml/.yml/.csv file.
- ``max_campaigns`` (``30``): a Great War still running after this many
  Campaigns is truncated (a PettingZoo truncation, no win reward).
- ``short_game`` (``False``): the rulebook's shorter game: the Armistice
  needs only one of its two prerequisites.
- ``armistice_ends`` (``"dogfight"``): the Great War ends after the Dogfight
  in which the Armistice is taken; ``"campaign"``: after that Campaign.
- ``tokens_per_turn`` (``"any"``): a Squadron may use several different
  tokens (each once); ``"one"``: at most one.
- ``engine`` (``"compiled"``): the rules engine that plays: the C++ one
  (``native.py``), or ``"python"``, ``rules.py`` (the reference), identical
  decision for decision and several times slower. Where the compiled engine
  cannot be loaded the Python one runs and a warning says so once. It
  changes nothing else: a game saved by one loads into the other. With the
  compiled engine, ``env.unwrapped.skybirds`` and the state attributes of
  ``env.unwrapped.game`` (``hands``, ``table``, ...) are copies to read.

Scenarios: ``reset(options=...)`` keys ``hands`` ({agent: Aces}, e.g.
``{"player_0": ["G", "4", "4"]}``: that player's whole hand, at most the hand
size; the others are dealt from the shuffle; if every hand is given the rest
stays in the box), ``tokens`` ({agent: {token: "front" | "back"}}, held from
before this Campaign), ``plus_one`` ({agent: 0..8}), ``fractional`` ({agent:
"3/4" | "1/2" | "1/4"}), ``campaign`` (the Campaign number to start at) and
``leader`` (the agent leading the first Dogfight; only when the given hands
keep Roland Garros out of play, otherwise his holder leads).

Actions
-------
With ``K`` Aerodrome tokens (row order of the table; the shipped Aerodrome:
A1 A2 A3 B1 B2 B3 C1 C2 D1 D2 Armistice):

| segment | ids | meaning | string |
| --- | --- | --- | --- |
| set | 0..38 | k equal Aces of value v (1x1..1x5, 2x1, ..., 9x2, 10x1) | ``"5 5"`` |
| garros | 39..77 | Roland Garros with k equal Aces (k <= 5) | ``"G 4"`` |
| garros alone | 78 | Roland Garros on his own | ``"G"`` |
| pass | 79 | pass in this Dogfight | ``"pass"`` |
| use | 80..79+K | use a token's bonus | ``"use B3"`` |
| add | 80+K..90+K | add an Ace (G, 1..10) to the Squadron being built | ``"add 5"`` |
| done | 91+K | Squadron complete / no more Pre-Campaign tokens or trades | ``"done"`` |
| wild | 92+K..101+K | add the wild Ace, by its printed value 1..10 | ``"wild 7"`` |
| declare | 102+K..111+K | declare the wild Ace's value 1..10 | ``"declare 5"`` |
| target | 112+K..110+K+n | the swap opponent k = 1..n-1 seats to the left | ``"target player_2"`` |
| give | 111+K+n..121+K+n | an Ace (G, 1..10) given in a swap | ``"give 5"`` |
| take | 122+K+n..121+2K+n | take a token from the Aerodrome | ``"take C1"`` |
| +1VP | 122+2K+n | take a +1VP token | ``"+1VP"`` |
| trade | 123+2K+n..122+3K+n | +1VP tokens for a token (2/3/4 by ribbon) | ``"trade 2 for A2"`` |

A move is asked in steps of the same player where one id would not do:

- **Squadron without tokens**: one id of the set / garros / garros alone
  segments, or ``pass``.
- **Squadron with tokens**: ``use X`` (one or more tokens, in Aerodrome order),
  then the Aces one by one in ascending order (``add G`` first), then ``done``,
  or, with a wild-Ace token, ``wild <printed value>`` and ``declare <value>``.
  Example: ``use B3``, ``add 5``, ``add 5``, ``wild 7``, ``declare 5`` plays
  three 5s. Medallion tokens need no further choice: the Squadron carries
  their Medallions whichever of its Aces bears them.
- **Pre-Campaign swap**: ``use A3`` / ``use D1``, ``target player_k``, then the
  Aces to give (ascending); ``done`` ends the player's Pre-Campaign turn.
- **Taking a token** after going out: ``take X`` or ``+1VP`` (asked only when
  there is a choice). **Trading** after a Campaign: ``trade n for X`` any
  number of times, then ``done`` (asked only when a trade is affordable).

Action mask: exact (from the rules engine's ``legal_actions``) at every step,
and a step never leads to a dead end: ``use X`` is offered only if some
Squadron can use X (with tokens later in the order), ``add v`` only if some
legal Squadron continues with it, and so on. All zeros for an agent not to act.

Observation
-----------
From the observer's seat; "per seat" fields list the observer first, then
its left neighbour, and so on (n entries of the given width). All entries lie
in [0, 1].

| field | size | encoding |
| --- | --- | --- |
| phase | 4 | one-hot: pre_campaign, dogfight, take, trade (all zero once over) |
| step | 6 | one-hot: start, tokens, cards, declare, target, give |
| campaign | 1 | Campaign number / max_campaigns |
| armistice | 1 | 1 once the Armistice is taken (the Great War is ending) |
| garros_due | 1 | 1 while Roland Garros must start the Campaign |
| table | 5 | Squadron to beat: present, size/6, value/10, Medallions/most, Squadron Size/6 |
| played | 11 | Aces played this Campaign per kind (G, 1..10) / deck count |
| fractional_left | 3 | the 3/4, 1/2, 1/4 tokens not yet taken |
| to_act | n | per seat: 1 for the player to act |
| table_player | n | per seat: 1 for who played the Squadron to beat |
| passed | n | per seat: passed since the last Squadron |
| cards_left | n | per seat: Aces in hand / hand size |
| place | n*n | per seat: one-hot finishing place this Campaign (zero: not out) |
| tokens | 2Kn | per seat, per token: held face up, held flipped |
| pre_used | Kn | per seat, per token: used before this Campaign |
| plus_one | n | per seat: +1VP tokens held / 8 |
| fractional | 3n | per seat: one-hot fractional token held (3/4, 1/2, 1/4) |
| vp | n | per seat: Victory Points / the most a player can hold |
| hand | 11 | own Aces per kind (G, 1..10) / deck count |
| pending_tokens | K | tokens used on the Squadron being built |
| pending_cards | 11 | Aces added to the Squadron (or chosen to give) per kind / deck count |
| pending_wild | 10 | one-hot printed value of the wild Ace added |
| pending_swap | K | one-hot swap token being used |
| pending_target | n | one-hot swap opponent (from the observer's seat) |

Nothing hidden leaks: a hand is seen only by its holder (the cards a swap
moves show only in the two hands involved); the box is never shown.

Rewards: option ``reward`` = ``win`` (default, at the end of the Great War:
+1 to the highest VP, shared on a tie), ``score`` (each step's change in VP:
tokens taken, flipped and returned, +1VP and fractional tokens) or ``rank``.
A truncated Great War pays no win or rank reward. Game points (VP, with
fractions) are ``env.unwrapped.scores``.

A learner on ``reward="win"`` starts with no signal here: random play (and an
untrained policy's, near enough) uses up the tokens the Armistice needs and
does not take it, so its Great Wars run to ``max_campaigns`` and are truncated,
paying no win reward. ``flockgym eval --env skybirds_v0 --players random,random
--option num_players=2 --games 20`` ends all 40 of its games without a winner,
and so at 4 players and with ``short_game=True`` (the shorter game does not
change this for random play). Start from ``reward="score"`` (each token's VP
pays as it is taken) and add the win at the end of the war, so that ending it
ahead pays and not only piling up VP: the shipped configs
(``configs/skybirds/ppo.yaml``, ``ppo_2p.yaml``) train on ``reward: score``
plus ``env.win_bonus: 1.0``.

Version history: v0, first release.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ..core.aec import FlockAECEnv
from ..core.errors import OptionError, StateDictError
from ..core.options import Option, int_range, scenario_seat, warn_unknown_reset_options
from ..core.wrappers import FlockOrderEnforcingWrapper
from . import data
from .actions import ActionLayout
from .basics import ARMISTICE_ENDS, BACK, FRONT, TOKENS_PER_TURN, SkybirdsConfig
from .native import ENGINES, NativeSkybirdsGame, native_available
from .observer import SkybirdsObserver, observation_size, render_text, view
from .rules import SkybirdsGame


def _aerodrome_ok(value: Any) -> bool:
    return value is None or isinstance(value, (str, Path, list, tuple))


GAME_OPTIONS: tuple[Option, ...] = (
    Option("aerodrome", None, "None (the shipped Aerodrome) or another table with the same "
           "columns: a list of rows or a path to a regular .json/.yaml/.yml/.csv file of "
           "at most 1 MiB",
           check=_aerodrome_ok, allowed="None, a list of rows or a path to a table file",
           reads_file=True),
    int_range("max_campaigns", 30, 1, None, "truncate a Great War still running after this "
              "many Campaigns"),
    Option("short_game", False, "the shorter game: the Armistice needs only one of its two "
           "prerequisites", choices=(False, True)),
    Option("armistice_ends", "dogfight", "taking the Armistice ends the Great War after the "
           "current 'dogfight' (ruling) or after the current 'campaign'",
           choices=ARMISTICE_ENDS),
    Option("tokens_per_turn", "any", "'any': a Squadron may use several different tokens; "
           "'one': at most one", choices=TOKENS_PER_TURN),
    Option("engine", "compiled", "the rules engine: 'compiled' (C++) or 'python' (the "
           "reference), identical play; the Python one runs where the compiled cannot load",
           choices=ENGINES, affects_spaces=False),
)  # fmt: skip

SCENARIO_KEYS = ("hands", "tokens", "plus_one", "fractional", "campaign", "leader")

CUSTOM_AERODROME: tuple[dict[str, Any], ...] = tuple(
    {**row, "vp_front": row["vp_front"] + 1} if row["column"] == "A" else dict(row)
    for row in data.DEFAULT_AERODROME_ROWS
)
"""A table differing from the shipped one (A tokens worth one more), for option samples."""


def config_from_options(options: dict[str, Any]) -> SkybirdsConfig:
    """The rules config of validated env options (errors re-raised as OptionError)."""
    try:
        tokens = data.parse_aerodrome(options["aerodrome"])
    except data.AerodromeError as err:
        raise OptionError(f"option {err}") from None
    config = SkybirdsConfig(
        num_players=options["num_players"],
        tokens=tokens,
        max_campaigns=options["max_campaigns"],
        short_game=options["short_game"],
        armistice_ends=options["armistice_ends"],
        tokens_per_turn=options["tokens_per_turn"],
    )
    try:
        config.check()
    except ValueError as err:
        raise OptionError(f"option {err}") from None
    return config


def scenario_to_rules(options: dict[str, Any], config: SkybirdsConfig) -> dict[str, Any]:
    """Translate ``reset(options=...)`` (agent ids, card and token names) into
    rules arguments; a wrong form is an OptionError naming the key."""
    warn_unknown_reset_options(options, SCENARIO_KEYS)
    n, names = config.num_players, config.names

    def seat_of(agent: Any) -> int:
        return scenario_seat(agent, n)

    def mapping(key: str, example: str) -> dict[Any, Any]:
        value = options.get(key, {})
        if not isinstance(value, dict):
            raise OptionError(
                f"reset option {key!r} must be a dict keyed by agent, e.g. {example}, "
                f"got {value!r:.60}"
            )
        return value

    def hand_of(agent: Any, cards: Any) -> list[int]:
        if not isinstance(cards, (list, tuple)):
            raise OptionError(
                f"reset option hands[{agent!r}] must be a list of Aces such as ['G', '4', '4'], "
                f"got {cards!r:.60}"
            )
        try:
            return [data.parse_card(c) for c in cards]
        except ValueError as err:
            raise OptionError(f"reset option hands[{agent!r}]: {err}") from None

    def tokens_of(agent: Any, held: Any) -> dict[int, int]:
        if not isinstance(held, dict):
            raise OptionError(
                f"reset option tokens[{agent!r}] must be a dict {{token: 'front' | 'back'}}, "
                f"got {held!r:.60}"
            )
        out = {}
        for name, state in held.items():
            if name not in names:
                raise OptionError(
                    f"reset option tokens[{agent!r}]: unknown token {name!r}; "
                    f"tokens: {', '.join(names)}"
                )
            if state not in ("front", "back"):
                raise OptionError(
                    f"reset option tokens[{agent!r}][{name!r}]={state!r}; allowed: 'front', 'back'"
                )
            out[names.index(name)] = FRONT if state == "front" else BACK
        return out

    def count_of(agent: Any, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 8:
            raise OptionError(f"reset option plus_one[{agent!r}]={value!r}; allowed: 0..8")
        return value

    def fraction_of(agent: Any, value: Any) -> int:
        if value not in data.FRACTIONAL:
            raise OptionError(
                f"reset option fractional[{agent!r}]={value!r}; allowed: "
                + ", ".join(repr(f) for f in data.FRACTIONAL)
            )
        return data.FRACTIONAL.index(value)

    campaign = options.get("campaign", 1)
    if (
        isinstance(campaign, bool)
        or not isinstance(campaign, int)
        or not (1 <= campaign <= config.max_campaigns)
    ):
        raise OptionError(
            f"reset option campaign={campaign!r} is not allowed; allowed: 1..{config.max_campaigns}"
        )
    leader = options.get("leader")
    return {
        "hands": {
            seat_of(a): hand_of(a, c)
            for a, c in mapping("hands", "{'player_0': ['G', '4']}").items()
        },
        "tokens": {
            seat_of(a): tokens_of(a, t)
            for a, t in mapping("tokens", "{'player_0': {'A1': 'front'}}").items()
        },
        "plus_one": {
            seat_of(a): count_of(a, c) for a, c in mapping("plus_one", "{'player_0': 2}").items()
        },
        "fractional": {
            seat_of(a): fraction_of(a, f)
            for a, f in mapping("fractional", "{'player_0': '3/4'}").items()
        },
        "campaign": campaign,
        "leader": None if leader is None else seat_of(leader),
    }


def new_game_from_scenario(
    config: SkybirdsConfig, rng: np.random.Generator, scenario: dict[str, Any]
) -> SkybirdsGame:
    """Deal a Great War with a scenario; impossible scenarios raise OptionError."""
    args = scenario_to_rules(scenario, config)
    try:
        return SkybirdsGame.new(config, rng, **args)
    except ValueError as err:
        raise OptionError(f"impossible Skybirds scenario: {err}") from None


class raw_env(FlockAECEnv):
    """The unwrapped Skybirds AEC env; ``env()`` adds PettingZoo's order checks."""

    env_id: ClassVar[str] = "skybirds_v0"
    player_counts: ClassVar[tuple[int, ...]] = data.PLAYER_COUNTS
    default_players: ClassVar[int] = 4
    game_options: ClassVar[tuple[Option, ...]] = GAME_OPTIONS
    default_max_steps: ClassVar[int] = 100_000
    """Step cap (option ``max_steps``): random 4-player Great Wars of 30
    Campaigns take at most about 3,000 steps, so no normal game reaches it."""
    option_samples: ClassVar[tuple[dict[str, Any], ...]] = (
        {},
        {"short_game": True, "armistice_ends": "campaign", "max_campaigns": 3},
        {"tokens_per_turn": "one", "max_campaigns": 1},
        {"aerodrome": list(CUSTOM_AERODROME), "max_campaigns": 5},
    )
    """A spread of game options covering every value of every game option."""
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "skybirds_v0",
        "is_parallelizable": False,
    }

    def __init__(self, **options: Any) -> None:
        self._config: SkybirdsConfig | None = None
        super().__init__(**options)
        if isinstance(self.options["aerodrome"], tuple):
            self.options["aerodrome"] = list(self.options["aerodrome"])
        self.layout = ActionLayout(self.num_players, self.config.tokens)
        self.observer = SkybirdsObserver(self.config)
        self.native = self.options["engine"] == "compiled" and native_available()
        """True when the compiled engine plays (option ``engine``, where it loads)."""

    @property
    def config(self) -> SkybirdsConfig:
        """The rules config of this env's options (built once)."""
        if self._config is None:
            self._config = config_from_options(self.options)
        return self._config

    def _check_option_combination(self) -> None:
        """The Aerodrome table is read and validated with the other options."""
        _ = self.config

    @property
    def skybirds(self) -> SkybirdsGame:
        """The rules engine, typed: with the compiled engine, a Python engine in
        its state (a snapshot: changing it changes nothing in the env)."""
        game = self._require_game()
        if isinstance(game, NativeSkybirdsGame):
            return game.to_python()
        assert isinstance(game, SkybirdsGame)
        return game

    # -- game hooks --

    def _num_actions(self) -> int:
        return ActionLayout(self.num_players, self.config.tokens).size

    def _observation_size(self) -> int:
        return observation_size(self.num_players, len(self.config.tokens))

    def _new_game(
        self, rng: np.random.Generator, scenario: dict[str, Any]
    ) -> SkybirdsGame | NativeSkybirdsGame:
        if self.native:
            args = scenario_to_rules(scenario, self.config)
            try:
                return NativeSkybirdsGame.new(self.config, rng, **args)
            except ValueError as err:
                raise OptionError(f"impossible Skybirds scenario: {err}") from None
        return new_game_from_scenario(self.config, rng, scenario)

    def _game_from_dict(self, data_: dict[str, Any]) -> SkybirdsGame | NativeSkybirdsGame:
        game = SkybirdsGame.from_dict(data_)
        if game.config != self.config:
            raise StateDictError(
                "game.config: the saved Skybirds options differ from this env's "
                f"({game.config.to_dict()} vs {self.config.to_dict()})"
            )
        return NativeSkybirdsGame.from_python(game) if self.native else game

    def _engine_from_python(self, game: SkybirdsGame) -> SkybirdsGame | NativeSkybirdsGame:  # type: ignore[override]
        """A resampled game without the loader: the compiled engine loads its
        plain fields; a Python engine is rebuilt from them (hand counts, cached
        moves and version counters recounted from the new hands)."""
        if self.native:
            return NativeSkybirdsGame.from_python(game)
        return NativeSkybirdsGame.game_of(game.config, NativeSkybirdsGame.fields_of(game))

    def _on_new_game(self) -> None:
        self.observer.forget()

    def _encode_observation(self, seat: int) -> np.ndarray:
        game = self.game
        if isinstance(game, NativeSkybirdsGame):
            return game.encode(seat)
        return self.observer.encode(game, seat)  # type: ignore[arg-type]

    # -- words --

    def view(self, agent: str) -> dict[str, Any]:
        """What ``agent`` may see, in words and card strings (JSON types)."""
        return view(self._readable_game(), self.seat_of(agent))

    def _render_text(self, seat: int | None) -> str:
        return render_text(self._readable_game(), seat)

    def _readable_game(self) -> SkybirdsGame:
        """The Python engine, or the compiled engine's mirror of its state (to read)."""
        game = self._require_game()
        if isinstance(game, NativeSkybirdsGame):
            return game.mirror()
        assert isinstance(game, SkybirdsGame)
        return game


def env(**options: Any) -> Any:
    """The Skybirds AEC env with PettingZoo's order checks.

    Options (all keyword): ``num_players`` (2-4, default 4), ``reward``,
    ``illegal_action``, ``render_mode``, and the game options of
    ``docs/rules/skybirds.md`` (``aerodrome``, ``max_campaigns``,
    ``short_game``, ``armistice_ends``, ``tokens_per_turn``).
    """
    return FlockOrderEnforcingWrapper(raw_env(**options))


def parallel_env(**options: Any) -> Any:
    """Skybirds through PettingZoo's turn-based AEC-to-parallel conversion:
    each ``step`` takes a dict of actions and applies the one of the agent to
    act (``infos[agent]["active_agent"]``); the others are ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return turn_based_aec_to_parallel(env(**options))
