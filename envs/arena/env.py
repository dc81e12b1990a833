"""Berzerkerbirdz Extreme Sports Arena: a roll-and-move board game with challenges (``arena_v0``).

| | |
| --- | --- |
| Import | ``from flockgym.envs import arena_v0`` |
| Agents | ``player_0`` .. ``player_{n-1}``, n = 2..6 (default 4) |
| Actions | ``Discrete(257 + 51n)`` with the shipped box (461 at 4 players) |
| Observation | ``Box(0, 1, (738 + 159n,), float32)`` + ``action_mask`` int8 (1374 at 4 players) |
| Parallel | ``arena_v0.parallel_env()``: PettingZoo's turn-based AEC-to-parallel conversion |

Each player is a character on a board of two one-way loops: gyms in the
corners of the outer loop, maneuver cards between them, four AstroPortal
spaces and the two ends of the Nebula Slide; world cards on the inner loop.
A turn: roll (d6, d8 for Berzerkerbirdz), spend trophies (+2 each) after
seeing it, move the full total (forks at the entrances, a trophy from each gym
passed, stop on a player to challenge them, through the slide or not, an
encounter where the move ends on a portal), then one action: train at a gym
or challenge for the card on the space or a card of a player there. A fifth
world, or defending a third world, wins at once; otherwise the most worlds
after ``max_rounds`` full rounds. The full rules, the reconstructed box (board,
every card) and every ruling are in ``docs/rules/arena.md``.

Setup begins with the characters: every seat the ``characters`` option does not
name wishes for one (``wish <name>``, in seat order), hidden from the other
seats until all have wished; a character wished by several is rolled off on d6
in the open (the highest picks, ties roll again) and the losers wish again
among the characters left. Then the starting corners, then the first player.

A turn is several steps of the same agent: one step per real choice (a
decision with a single legal action is taken by the env). Defending a
standard challenge is a step of the defender in the challenger's turn. Dice are
chance events drawn from the env's seeded generator; ``env.unwrapped.last_rolls``
(and ``view(agent)["last_rolls"]``) lists every roll since the agent to act last
stepped, as ``{"player", "purpose", "die", "result"}``.

Options
-------
``num_players`` (2-6, default 4), ``reward``, ``illegal_action``,
``render_mode``, ``max_steps`` (default 20,000; see ``docs/api.md``), and:

- ``max_rounds`` (``40``): full rounds before the time victory (the
  rulebook's two hours); the most worlds win, equal counts tie.
- ``world_challenge`` (``"offset"``): a world's challenge number on the board
  is its number + 2, as for maneuvers; ``"printed"``: the number itself.
- ``dark_matter`` (``"two"``): dark-matter dice read 2 whatever the medals;
  ``"medals"``: a medal reads that 2 as it would a rolled 2.
- ``nova_invazorz`` (``"turn_back"``): Nova Debris Field 1-2 lets an
  Invazorz turn one Berzerkerbirdz back; ``"become"``: the Invazorz becomes a
  Berzerkerbirdz of its choice (the rulebook read literally).
- ``fifth_world`` (``"held"``): the five-worlds victory counts worlds held
  now; ``"won"``: worlds won over the game, kept or not.
- ``engine`` (``"compiled"``): the rules engine, ``"compiled"`` (the C++
  engine of ``envs/arena/native``: the same decisions, rolls, observations and
  state dicts; the heuristic bot's ``act_on_table`` decides in C++ too, while
  the view and the text board read a Python copy of its state) or ``"python"`` (``rules.py``,
  the reference). Where the compiled one cannot load, the Python engine runs
  and a warning says so once. A game saved by one loads into the other. The
  OpenSpiel bridge plays either, its chance nodes feeding each die.
- ``data`` (``None``): path of another box file (YAML, as ``arena.yaml``); a
  malformed file is an ``OptionError`` naming the entry and the field.

Scenarios: ``reset(options=...)`` keys (agents as ``"player_1"``):
``characters`` ({agent: character name}), ``forms`` ({agent: "astrobirdz" |
"berzerkerbirdz" | "invazorz"}), ``positions`` ({agent: space id}; the others
choose a corner), ``trophies`` ({agent: n}), ``maneuvers`` / ``worlds``
({agent: [card names]}), ``medals`` ({agent: ["bronze", ...]}),
``gym_powers`` ({agent: [gym names]}), ``medal_cards`` ({agent: [extra-die
medal card names]}), ``board`` ({space id: card name}), ``gyms`` ([a gym name
per corner]), ``first_player`` (an agent: no roll for it), ``turn`` (``2`` or
more: the first-turn rule is over) and ``dice`` (forced results consumed in
order by every roll of the game, setup rolls included, before the generator
takes over; a result the die rolled cannot show is an ``OptionError`` naming
the roll, and the step that rolled it changes nothing). Seats that
``characters`` does not name wish for theirs first, and the board is dealt
when the last is given: the board pieces (``trophies``, ``maneuvers``,
``worlds``, ``medals``, ``gym_powers``, ``medal_cards``, ``board``, ``gyms``)
then need every seat's character named.

Actions
-------
| segment | size | string | when |
| --- | --- | --- | --- |
| corner | 4 | ``corner 2`` | the starting corner (1-4) |
| roll | 1 | ``roll`` | roll the movement die (after powers or a medal die) |
| spend | 41 | ``spend 2`` | trophies, after the movement roll or before a challenge/defence roll |
| to | 50 | ``to 17`` | move to that space: a fork, or where an effect sends you |
| stop / slide / stay | 3 | ``stop`` | stop to challenge; go through the slide; end the move on it |
| train | 1 | ``train`` | take a gym power card |
| challenge | 50 | ``challenge maneuver Spacefreeze Cryo Blast`` | the card on this space |
| challenge medal | 1 | ``challenge medal`` | the medal card on this space |
| challenge player | 50(n-1) | ``challenge player_2 world Hoverion`` | a card of a player here |
| end | 1 | ``end`` | no (more) action; decline an optional effect |
| pick | 50 | ``pick Hoverion`` | the card an effect asks for |
| place | 50 | ``place 17`` | where a returned card or another fingerboard goes |
| player | n-1 | ``player_2`` | the player an effect names |
| become | 18 | ``become Spaceboardzerka`` | the character to become |
| use | 8 | ``use Halfpipe Hall`` | use a gym power card |
| add | 12 | ``add Stunt Die`` | add a medal card's extra die |
| wish | 18 | ``wish Spaceboardzerka`` | setup: the character wished for (hidden) |

Segments in this order; ids in :mod:`flockgym.envs.arena.actions`. Player
segments are relative (k = 1..n-1 seats to the left); their strings name the
agent. Action mask: exact, from the engine's ``legal_actions``; all zeros for
an agent not to act.

Observation
-----------
From the observer's seat ("per seat": observer first, then its left
neighbour, ...). Every entry lies in [0, 1] (S spaces, C cards, K medal
cards, G gyms, H characters):

| field | size | encoding |
| --- | --- | --- |
| phase | 13 | one-hot phase (order below; all zero once over) |
| task | 26 | one-hot: what a pick is for (the task names of ``docs/rules/arena.md``) |
| round | 1 | full rounds played / max_rounds |
| supply | 1 | trophies in the supply / 40 |
| medal_supply | 3 | bronze, silver, gold left / 6 |
| medal_stack | 1 | medal cards in the stack / 12 |
| steps_left, move_total | 2 | spaces still to move, this move's total / the largest move |
| moving | 2 | left its space this move; stopped early to challenge |
| challenge | 6 | one-hot: maneuver, world, medal, homeworld, favourite, standard |
| challenge_need | 1 | the number to meet / the largest card number |
| challenge_spent | 2 | trophies spent by challenger, defender / 40 |
| last_encounter | 17 | one-hot table (0 Nebula Slide, 1-8 AstroPortal), one-hot result 1-8 |
| last_challenge | 3 | success; total, defender's total / the largest total |
| recent_rolls | 16 | the last 8 rolls, newest first: result, sides / 8 |
| position | Sn | per seat: one-hot space |
| identity | (3+H)n | per seat: one-hot form, one-hot character |
| trophies | 2n | per seat: trophies; Star Cluster trophies (/ 40) |
| medals | 3n | per seat: bronze, silver, gold |
| status | 3n | per seat: a turn to lose; dark matter turns / 3; first turn |
| wished | n | per seat: has wished for a character this round of setup (not what) |
| own_wish | H | one-hot: the character the observer itself wished for (its own only) |
| worlds_won | n | per seat: worlds gained over the game / 5 (at most 1) |
| gym_powers | Gn | per seat: power cards held per gym / 2 |
| roles | 5n | per seat: on turn; to act; defender; forced target; placed by a pick |
| roll_prep | 3n | per seat: gym bonus, gold reading, extra dice for the coming roll |
| card_holder | C(2+n) | per card: one-hot board, out of play, held by seat |
| card_info | 2C | per card: permanently defended; its space / 49 |
| medal_holder | K(2+n) | per medal card: one-hot stack, board, held by seat |
| medal_space | K | per medal card: its space / 49 |
| space_item | 4S | per space: one-hot nothing, maneuver, world, medal card |
| space_need | S | per space: challenge number there / the largest |
| space_named | S | per space: its card names the observer's character |
| corners | 4(G+2) | per corner: one-hot gym, trophies / 5, power cards / 2 |
| task_card | C | one-hot: the card a pick is about |

Phases in order: corner, pre_roll, move_spend, move, action, challenge_spend,
defend_spend, pick_card, pick_space, pick_player, pick_character, gym_card, wish.
The medal stack's order is face down: it is never shown.

Rewards: option ``reward`` = ``win`` (default, at game end), ``score`` (each
step, the change in worlds held) or ``rank`` (by worlds held); game points
(``env.unwrapped.scores``) are worlds held.

Version history: v0, first release.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ..core.aec import FlockAECEnv
from ..core.compiled import ENGINES
from ..core.errors import OptionError, StateDictError
from ..core.options import Option, int_range, scenario_seat, warn_unknown_reset_options
from ..core.wrappers import FlockOrderEnforcingWrapper
from . import data
from .actions import ActionLayout
from .config import (
    DARK_MATTER_MODES,
    FIFTH_WORLD_MODES,
    NOVA_INVAZORZ_MODES,
    WORLD_CHALLENGES,
    ArenaConfig,
)
from .data import FORMS, MEDALS, Box, BoxError
from .native import CompiledArenaGame, compiled_engine_available
from .observer import ArenaObserver, game_view, observation_size, render_text
from .rules import ArenaGame, ForcedDiceError, Scenario


def _path_ok(value: Any) -> bool:
    return value is None or (isinstance(value, str) and bool(value.strip()))


GAME_OPTIONS: tuple[Option, ...] = (
    int_range("max_rounds", 40, 1, None, "full rounds before the time victory (the most "
              "worlds win; equal counts tie)"),
    Option("world_challenge", "offset", "a world's challenge number on the board: its "
           "number + 2 ('offset', as for maneuvers) or 'printed' (the number)",
           choices=WORLD_CHALLENGES),
    Option("dark_matter", "two", "dark-matter dice: 'two' (every die reads 2, medals or "
           "not) or 'medals' (a medal reads that 2 as a rolled 2)", choices=DARK_MATTER_MODES),
    Option("nova_invazorz", "turn_back", "Nova Debris Field 1-2 for an Invazorz: "
           "'turn_back' (stays an Invazorz, may turn one Berzerkerbirdz back) or 'become' "
           "(becomes a Berzerkerbirdz of its choice, as read literally)",
           choices=NOVA_INVAZORZ_MODES),
    Option("fifth_world", "held", "the five-worlds victory: 'held' (a fifth world held "
           "now) or 'won' (a fifth world won over the game, kept or not)",
           choices=FIFTH_WORLD_MODES),
    Option("engine", "compiled", "the rules engine: 'compiled' (the C++ engine, identical "
           "decision by decision; where it cannot load, the Python engine runs and a warning "
           "says so once) or 'python' (rules.py, the reference)",
           choices=ENGINES, affects_spaces=False),
    Option("data", None, "path of another box file (YAML like the shipped arena.yaml: "
           "a regular .yaml/.yml file of at most 1 MiB); None: the shipped box",
           check=_path_ok, allowed="None or a file path (str)",
           reads_file=True),
)  # fmt: skip

SCENARIO_KEYS = ("characters", "forms", "positions", "trophies", "maneuvers", "worlds",
                 "medals", "gym_powers", "medal_cards", "board", "gyms", "first_player",
                 "turn", "dice")  # fmt: skip


def config_from_options(options: dict[str, Any]) -> ArenaConfig:
    config = ArenaConfig(
        num_players=options["num_players"],
        max_rounds=options["max_rounds"],
        world_challenge=options["world_challenge"],
        dark_matter=options["dark_matter"],
        nova_invazorz=options["nova_invazorz"],
        fifth_world=options["fifth_world"],
        data=options["data"],
    )
    try:
        config.check()
    except ValueError as err:
        raise OptionError(f"option {err}") from None
    return config


class _ScenarioReader:
    """``reset(options=...)`` in words and agent ids -> a :class:`Scenario`; every
    mistake is an ``OptionError`` naming the key and the expected form."""

    def __init__(self, box: Box, n: int, options: dict[str, Any]) -> None:
        self.box, self.n, self.options = box, n, options

    def fail(self, key: str, message: str) -> None:
        raise OptionError(f"reset option {key!r}: {message}")

    def mapping(self, key: str, form: str) -> dict[Any, Any]:
        value = self.options.get(key, {})
        if not isinstance(value, dict):
            self.fail(key, f"must be a dict such as {form}, got {value!r:.60}")
        return value

    def by_agent(self, key: str, form: str) -> dict[int, Any]:
        return {scenario_seat(a, self.n): v for a, v in self.mapping(key, form).items()}

    def name(self, key: str, value: Any, index: dict[str, int], what: str) -> int:
        if not isinstance(value, str) or value.lower() not in index:
            self.fail(key, f"{value!r:.60} is not a {what} of the box")
        return index[value.lower()]

    def names(self, key: str, value: Any, index: dict[str, int], what: str) -> list[int]:
        if not isinstance(value, (list, tuple)):
            self.fail(key, f"each entry must be a list of {what} names, got {value!r:.60}")
        return [self.name(key, v, index, what) for v in value]

    def integer(self, key: str, value: Any, low: int, high: int | None) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            self.fail(key, f"{value!r:.60} must be an integer")
        if value < low or (high is not None and value > high):
            span = f"{low}..{high}" if high is not None else f">= {low}"
            self.fail(key, f"{value!r} must be an integer {span}")
        return int(value)

    def read(self) -> Scenario:
        box, n = self.box, self.n
        warn_unknown_reset_options(self.options, SCENARIO_KEYS)
        sc = Scenario()
        for seat, name in self.by_agent("characters", "{'player_0': 'Spaceboardzerka'}").items():
            sc.characters[seat] = self.name("characters", name, box.character_named, "character")
        for seat, form in self.by_agent("forms", "{'player_0': 'berzerkerbirdz'}").items():
            if form not in FORMS:
                self.fail("forms", f"{form!r:.40} is not one of {', '.join(FORMS)}")
            sc.forms[seat] = FORMS.index(form)
        for seat, space in self.by_agent("positions", "{'player_0': 17}").items():
            sc.positions[seat] = self.integer("positions", space, 0, box.num_spaces - 1)
        for seat, count in self.by_agent("trophies", "{'player_0': 3}").items():
            sc.trophies[seat] = self.integer("trophies", count, 0, box.trophies)
        for key, kind in (("maneuvers", "maneuver"), ("worlds", "world")):
            for seat, names in self.by_agent(key, "{'player_0': ['Hoverion']}").items():
                cards = self.names(key, names, box.card_named, f"{kind} card")
                for card in cards:
                    if box.cards[card].kind != kind:
                        self.fail(key, f"{box.cards[card].name} is not a {kind} card")
                sc.cards.setdefault(seat, []).extend(cards)
        medal_index = {m: i for i, m in enumerate(MEDALS)}
        for seat, medals in self.by_agent("medals", "{'player_0': ['bronze']}").items():
            sc.medals[seat] = self.names(
                "medals", medals, medal_index, "medal (bronze, silver, gold)"
            )
        for seat, gyms in self.by_agent("gym_powers", "{'player_0': ['Halfpipe Hall']}").items():
            sc.gym_powers[seat] = self.names("gym_powers", gyms, box.gym_named, "gym")
        for seat, cards in self.by_agent("medal_cards", "{'player_0': ['Stunt Die']}").items():
            sc.medal_cards[seat] = self.names("medal_cards", cards, box.medal_card_named,
                                              "medal card")  # fmt: skip
        for space, name in self.mapping("board", "{17: 'Spacefreeze Cryo Blast'}").items():
            if isinstance(space, str) and space.isdigit():
                space = int(space)  # JSON keys are strings
            sid = self.integer("board", space, 0, box.num_spaces - 1)
            sc.board[sid] = self.name("board", name, box.card_named, "maneuver or world card")
        if "gyms" in self.options:
            gyms = self.options["gyms"]
            if not isinstance(gyms, (list, tuple)) or len(gyms) != len(box.corners):
                self.fail("gyms", f"must be a list of {len(box.corners)} gym names, one per "
                                  f"corner, got {gyms!r:.60}")  # fmt: skip
            sc.gyms = self.names("gyms", list(gyms), box.gym_named, "gym")
        if "first_player" in self.options:
            sc.first_player = scenario_seat(self.options["first_player"], n)
        if "turn" in self.options:
            sc.turn = self.integer("turn", self.options["turn"], 1, None)
        if "dice" in self.options:
            dice = self.options["dice"]
            if not isinstance(dice, (list, tuple)):
                self.fail("dice", f"must be a list of die results such as [6, 2, 3], got "
                                  f"{dice!r:.60}")  # fmt: skip
            sc.dice = [self.integer("dice", v, 1, data.MAX_SIDES) for v in dice]
        return sc


class raw_env(FlockAECEnv):
    """The unwrapped Arena AEC env; ``env()`` adds PettingZoo's order checks."""

    env_id: ClassVar[str] = "arena_v0"
    player_counts: ClassVar[tuple[int, ...]] = (2, 3, 4, 5, 6)
    default_players: ClassVar[int] = 4
    default_max_steps: ClassVar[int] = 20_000
    """The longest of thousands of random 6-player games at the default 40 rounds
    takes about 500 steps: 40 times that. Raise it with a much larger max_rounds."""
    game_options: ClassVar[tuple[Option, ...]] = GAME_OPTIONS
    option_samples: ClassVar[tuple[dict[str, Any], ...]] = (
        {},
        {"world_challenge": "printed", "dark_matter": "medals"},
        {"nova_invazorz": "become", "fifth_world": "won"},
        {"max_rounds": 3, "world_challenge": "offset", "dark_matter": "two"},
        {"max_rounds": 1},
        {"data": str(data.DEFAULT_PATH), "max_rounds": 8},
        {"engine": "python", "max_rounds": 8, "nova_invazorz": "become"},
    )
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "arena_v0",
        "is_parallelizable": False,
    }

    def _check_option_combination(self) -> None:
        path = self.options["data"]
        try:
            self.box: Box = data.load_box(path)
        except BoxError as err:
            raise OptionError(f"option data={path!r}: {err}") from None

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.config = config_from_options(self.options)
        self.layout = ActionLayout(self.box, self.num_players)
        self.observer = ArenaObserver(self.box, self.num_players)
        self.compiled = self.options["engine"] == "compiled" and compiled_engine_available()
        """True when the compiled engine plays (option ``engine``, and it is built)."""
        self._out = [
            np.empty(self.observer.size, dtype=np.float32) for _ in range(self.num_players)
        ]

    @property
    def arena(self) -> ArenaGame:
        """The rules engine, typed (with the compiled engine: a Python game in the
        same state, for the view, the text board and the bots)."""
        game = self._require_game()
        if isinstance(game, CompiledArenaGame):
            return game.python_game()
        assert isinstance(game, ArenaGame)
        return game

    # -- game hooks --

    def _num_actions(self) -> int:
        return ActionLayout(self.box, self.num_players).size

    def _observation_size(self) -> int:
        return observation_size(self.box, self.num_players)

    def _new_game(
        self, rng: np.random.Generator, scenario: dict[str, Any]
    ) -> ArenaGame | CompiledArenaGame:
        sc = _ScenarioReader(self.box, self.num_players, scenario).read()
        try:
            if self.compiled:
                return CompiledArenaGame.new(self.config, rng, sc)
            return ArenaGame.new(self.config, rng, sc)
        except ForcedDiceError as err:
            raise OptionError(str(err)) from None
        except OptionError:
            raise
        except ValueError as err:
            raise OptionError(f"impossible Arena scenario: {err}") from None

    def _game_from_dict(self, data_: dict[str, Any]) -> ArenaGame | CompiledArenaGame:
        game: ArenaGame | CompiledArenaGame
        if self.compiled:
            game = CompiledArenaGame.from_dict(data_, self.config)
        else:
            game = ArenaGame.from_dict(data_, self.config)
        if game.config != self.config:
            raise StateDictError(
                f"game.config: saved Arena config {game.config} differs from this env's "
                f"{self.config}"
            )
        return game

    def _on_new_game(self) -> None:
        self.observer.invalidate()

    def _encode_observation(self, seat: int) -> np.ndarray:
        game = self.game
        if isinstance(game, CompiledArenaGame):
            return game.observation(seat, self._out[seat])
        return self.observer.encode(game, seat)  # type: ignore[arg-type]

    def step(self, action: Any) -> None:
        try:
            super().step(action)
        except ForcedDiceError as err:
            raise OptionError(str(err)) from None

    # -- words --

    def view(self, agent: str) -> dict[str, Any]:
        """What ``agent`` may see, in words (JSON types); see :func:`.observer.game_view`."""
        return game_view(self.arena, self.seat_of(agent), self.possible_agents)

    @property
    def last_rolls(self) -> list[dict[str, Any]]:
        """Every roll since the agent to act last stepped (its own included)."""
        game = self.arena
        seat = game.current_player()
        if seat < 0:
            seat = game.turn_seat
        agents = self.possible_agents
        return [
            {"player": agents[r[0]], "purpose": r[1], "die": f"d{r[2]}", "result": r[3]}
            for r in game.rolls_since(seat)
        ]

    def _render_text(self, seat: int | None) -> str:
        """The board as text (everything is public; ``seat`` is marked ``(you)``
        and picks whose rolls since its last step are listed)."""
        game = self.arena
        view = game_view(game, 0 if seat is None else seat, self.possible_agents)
        return render_text(view)


def env(**options: Any) -> Any:
    """The Arena AEC env with PettingZoo's order checks.

    Options (all keyword): ``num_players`` (2-6, default 4), ``reward``,
    ``illegal_action``, ``render_mode``, ``max_steps`` and the game options of
    ``docs/rules/arena.md`` (``max_rounds``, ``world_challenge``,
    ``dark_matter``, ``data``).
    """
    return FlockOrderEnforcingWrapper(raw_env(**options))


def parallel_env(**options: Any) -> Any:
    """The Arena through PettingZoo's turn-based AEC-to-parallel conversion."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return turn_based_aec_to_parallel(env(**options))
