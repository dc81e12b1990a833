"""Every registered flockgym env as an OpenSpiel game.

``import flockgym.openspiel`` registers each env of :data:`flockgym.envs.ENVS` with
pyspiel as ``flockgym_<game>`` (``asrus_v0`` -> ``flockgym_asrus``), so OpenSpiel's
algorithms (MCTS, ISMCTS, CFR, ...) run on them::

    import pyspiel
    import flockgym.openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game("flockgym_asrus", {"num_players": 3})
    state = game.new_initial_state()

The bridge is generic: a new registered env is bridged without new code.

* Game parameters are the env's options whose default is a bool, an int, a float
  or a string (``num_players``, ``reward``, ``max_steps``, the game's own), checked
  by the env itself (an error names the option and its allowed values), plus
  ``seed``: the k-th state of a game object that is used is dealt from
  ``derive_seed(seed, k)`` (``state.deal_seed``).
* Chance: an engine whose dice can be fed (a Python engine rolling through
  ``roll_die(seat, sides, purpose)``, or a compiled one with
  ``dice_from_outside(faces, max_sides)``: the Arena's, compiled where it
  loads, :func:`bridge_engine`) gets an explicit chance node for every die,
  with its exact probabilities (``1/sides`` a face); everything else
  (shuffles, deals, draws) stays sampled by the env's own seeded generator
  inside ``apply_action``. A step that rolls is played again from its start
  with one more face each time (on the compiled engine, a copy in C++).
  An engine with ``draw_for_die()`` has it called for each chance die (the
  compiled one does the same inside), so its generator moves on as under its
  own roll and a later deal (the Arena's board, dealt after the character
  wishes) is the env's: both engines give the same states, decision by decision.
  The declared chance mode is OpenSpiel's for what the state shows: explicit
  stochastic with dice, deterministic without (no chance node; what the env
  draws is fixed by the generator hidden in the state).
* Serialization: ``State.serialize`` / ``Game.deserialize_state``, pyspiel's
  ``serialize_game_and_state`` and pickle, for every game: a state's core
  pickles as one JSON string (:class:`SavedCore`), checked field by field when
  it is read; :meth:`FlockGame.deserialize_state` also refuses a pickled part
  that names anything else.
* Strings and tensors come from the seat's own view and observation. The
  information state has perfect recall: a digest of everything the seat has
  observed since the deal (its own moves and every change of its observation
  vector, in order), then its current ``view`` (canonical JSON); its tensor is
  the observation vector followed by 64 bits of that digest. The digest is
  folded step by step, lazily (a state that is never read, as most of a
  search's are, pays nothing; the first read folds the steps since the last
  one), never by replaying the game from its start. The observation string is
  the env's text from that seat and the observation tensor its observation
  vector: what the seat sees now.
* ``apply_action`` refuses an illegal action (a ``ValueError`` naming the legal
  ones) before anything changes: pyspiel does not check legality for a Python
  game, so the bridge does.
* ``returns()`` sums the env's step rewards per seat, ``action_to_string`` and
  ``string_to_action`` are the env's action strings, ``clone()`` copies the engine
  (its generator included) and the AEC bookkeeping.
* A perfect-information search reads hidden cards: OpenSpiel's Python
  ``MCTSBot`` (and the async MCTS, AlphaZero) on a flockgym game gets a
  :class:`PerfectInformationWarning` once per process; its C++ bots
  (``pyspiel.MCTSBot``) cannot be seen from here and get none.
* ``resample_from_infostate`` calls the resampler the game registers
  (``EnvEntry.resampler``, ``"module:function"``, called as ``function(env,
  seat, rng)``), so OpenSpiel's ISMCTS searches what the seat knows.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import enum
import functools
import hashlib
import importlib
import io
import json
import pickle
import sys
import types
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as err:  # pragma: no cover - depends on the install
    raise ImportError(
        "flockgym.openspiel needs OpenSpiel: pip install -c constraints.txt '.[openspiel]'"
    ) from err

from flockgym.envs import ENVS, EnvEntry, make
from flockgym.envs.core.errors import DieNeeded, OptionError, StateDictError
from flockgym.envs.core.game import GameEngine
from flockgym.envs.core.rng import copy_rng, derive_seed

PREFIX = "flockgym_"
MAX_DIE_SIDES = 20
"""The most faces a bridged die may have (the Arena's box allows d2..d20): the
chance outcomes of a die with ``s`` faces are the action ids ``0..s-1``."""

SEED_PARAMETER = "seed"
HIDDEN_OPTIONS = ("render_mode", "illegal_action", "engine")
"""Env options that are not game parameters: the bridge renders nothing, refuses
an illegal move itself (OpenSpiel does not check legality for a Python game's
``apply_action``) before anything changes, and plays on the engine of
:func:`bridge_engine`."""

_PLAIN = (bool, int, float, str)


def game_name(env_id: str) -> str:
    """``asrus_v0`` -> ``flockgym_asrus``: the pyspiel short name of an env."""
    return PREFIX + env_id.rsplit("_", 1)[0]


def env_class(env_id: str) -> type:
    """The raw env class of ``env_id`` (its entry module's ``raw_env``)."""
    module = importlib.import_module(ENVS[env_id].module)
    return module.raw_env  # type: ignore[no-any-return]


def parameter_specification(env_id: str) -> dict[str, Any]:
    """The pyspiel parameters of ``env_id``: every option with a plain default
    (pyspiel parameters are bools, ints, floats and strings), and ``seed``."""
    spec: dict[str, Any] = {}
    for option in env_class(env_id).option_table():
        if option.name in HIDDEN_OPTIONS or option.reads_file:
            continue
        if isinstance(option.default, _PLAIN):
            spec[option.name] = option.default
    spec[SEED_PARAMETER] = 0
    return spec


@functools.cache
def bridge_engine(env_id: str) -> dict[str, str]:
    """The engine option the bridge plays ``env_id`` with: ``{}`` (the env's
    default engine, compiled where it loads: a warning says once when it does
    not and the Python engine runs) unless that engine rolls dice the bridge
    cannot feed while the Python engine's ``roll_die`` can, then
    ``{"engine": "python"}``. The Arena's compiled engine feeds its dice
    (:func:`feeds_dice`), so every game plays its default engine."""
    raw = make(env_id).unwrapped
    raw.reset(seed=0)
    if feeds_dice(raw.game) or not any(
        option.name == "engine" for option in env_class(env_id).option_table()
    ):
        return {}
    python = make(env_id, engine="python").unwrapped
    python.reset(seed=0)
    return {"engine": "python"} if feeds_dice(python.game) else {}


def feeds_dice(engine: Any) -> bool:
    """Whether the bridge can feed ``engine``'s dice, each a chance node: a
    Python engine rolling through ``roll_die`` or a compiled one with
    ``dice_from_outside``."""
    kind = type(engine)
    return callable(getattr(kind, "roll_die", None)) or callable(
        getattr(kind, "dice_from_outside", None)
    )


def _rolls_dice(env_id: str) -> bool:
    """True when the bridge's engine rolls dice it feeds (explicit chance)."""
    raw = make(env_id, **bridge_engine(env_id)).unwrapped
    raw.reset(seed=0)
    return feeds_dice(raw.game)


def game_type(
    env_id: str, options: dict[str, Any] | None = None, explicit: bool | None = None
) -> pyspiel.GameType:
    """What ``env_id`` is for OpenSpiel, for ``options`` (the registry's default
    player count when none are given): win and rank rewards sum to zero at every
    player count (``flockgym.envs.core.rewards``) and are paid at the end; score
    rewards are paid as points are scored and need not sum to zero. ``explicit``:
    whether the engine's dice are chance nodes (found out from the env if None).

    The chance mode is OpenSpiel's by its own definitions: explicit stochastic
    when the dice are chance nodes, deterministic otherwise (no chance node:
    deals, shuffles and draws come from the generator the state carries, so a
    state's moves always lead to the same state). Not sampled stochastic: that
    means chance nodes with unlisted outcomes, and pyspiel cannot serialize a
    Python game declared so (it has no Python hook for ``GetRNGState``)."""
    item: EnvEntry = ENVS[env_id]
    reward = (options or {}).get("reward", "win")
    if explicit is None:
        explicit = _rolls_dice(env_id)
    return pyspiel.GameType(
        short_name=game_name(env_id),
        long_name=f"flockgym {env_id}: {item.summary}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(
            pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
            if explicit
            else pyspiel.GameType.ChanceMode.DETERMINISTIC
        ),
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.GENERAL_SUM
            if reward == "score"
            else pyspiel.GameType.Utility.ZERO_SUM
        ),
        reward_model=(
            pyspiel.GameType.RewardModel.REWARDS
            if reward == "score"
            else pyspiel.GameType.RewardModel.TERMINAL
        ),
        max_num_players=max(item.player_counts),
        min_num_players=min(item.player_counts),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(env_id),
    )


# ---- copying an env fast -------------------------------------------------------------


Fields = tuple[tuple[str, type], ...]
_SHARED_FIELDS: dict[tuple[type, type], tuple[Fields, Fields]] = {}


def _shared_memo(env: Any, engine: GameEngine) -> dict[int, Any]:
    """The objects :func:`_find_shared` names, as a memo for copying ``engine``
    (worked out once per env and engine class; a field holding another kind of
    object than it did then is copied)."""
    classes = (type(env), type(engine))
    fields = _SHARED_FIELDS.get(classes)
    if fields is None:
        fields = _SHARED_FIELDS[classes] = _find_shared(env, engine)
    memo: dict[int, Any] = {}
    for owner, named in zip((vars(env), vars(engine)), fields, strict=True):
        for name, kind in named:
            value = owner.get(name)
            if type(value) is kind:
                memo[id(value)] = value
    return memo


def _find_shared(env: Any, engine: GameEngine) -> tuple[Fields, Fields]:
    """The fields holding objects a copy of ``engine`` shares rather than copies:
    the env's own configuration objects (box, config, action layout: read-only
    once built), the engine's objects of those same kinds (an engine may build
    its own layout) and its frozen dataclasses."""
    observer = getattr(env, "observer", None)
    env_fields: list[tuple[str, type]] = []
    for name, value in vars(env).items():
        if value is observer or value is None:
            continue
        if not isinstance(value, (list, dict, set, tuple, np.ndarray, GameEngine, *_PLAIN)):
            env_fields.append((name, type(value)))
    kinds = {kind for _, kind in env_fields}
    engine_fields: list[tuple[str, type]] = []
    for name, value in vars(engine).items():
        kind = type(value)
        if kind in kinds or (
            dataclasses.is_dataclass(value)
            and not isinstance(value, type)
            and kind.__dataclass_params__.frozen  # type: ignore[attr-defined]
        ):
            engine_fields.append((name, kind))
    return tuple(env_fields), tuple(engine_fields)


_ATOMIC = frozenset({int, float, complex, str, bytes, bool, type(None)})


_PLAIN_KINDS: dict[type, bool] = {}


def _plain_object(kind: type) -> bool:
    """True when objects of ``kind`` keep all their fields in ``__dict__`` (no
    slots), copy as a whole (no ``__deepcopy__``) and may change (not a frozen
    dataclass, not an enum): :func:`_copy` copies them field by field."""
    plain = _PLAIN_KINDS.get(kind)
    if plain is None:
        plain = (
            "__dict__" in dir(kind)
            and not any(getattr(c, "__slots__", ()) for c in kind.__mro__)
            and getattr(kind, "__deepcopy__", None) is None
            and not issubclass(kind, (enum.Enum, tuple, type))
            and not (
                dataclasses.is_dataclass(kind) and kind.__dataclass_params__.frozen  # type: ignore[attr-defined]
            )
        )
        _PLAIN_KINDS[kind] = plain
    return plain


def _copy(value: Any, memo: dict[int, Any]) -> Any:
    """A deep copy of an engine's field, several times faster than
    ``copy.deepcopy`` on the lists of ints an engine is made of: lists, dicts,
    tuples and plain objects are copied field by field (``memo`` keeps shared
    references shared and holds what is not copied at all), writable arrays
    and generators are copied, a bound method follows its object to the copy,
    enums and anything else ``copy.deepcopy`` knows are left to it."""
    kind = type(value)
    if kind in _ATOMIC:
        return value
    key = id(value)
    done = memo.get(key)
    if done is not None:
        return done
    out: Any
    if kind is list:
        if _ATOMIC.issuperset(map(type, value)):  # a list of numbers: copied in C
            out = memo[key] = value[:]
            return out
        out = memo[key] = []
        append = out.append
        for item in value:
            append(item if type(item) in _ATOMIC else _copy(item, memo))
        return out
    if kind is dict:
        out = memo[key] = {}
        for name, item in value.items():
            out[name] = item if type(item) in _ATOMIC else _copy(item, memo)
        return out
    if kind is tuple:
        out = tuple(item if type(item) in _ATOMIC else _copy(item, memo) for item in value)
    elif kind is set or kind is frozenset:
        out = kind(value)
    elif kind is np.ndarray:
        out = value.copy() if value.flags.writeable else value
    elif kind is np.random.Generator:
        out = copy_rng(value)
        memo[id(value.bit_generator)] = out.bit_generator
    elif kind is types.MethodType or kind is types.BuiltinMethodType:
        owner = value.__self__
        twin = _copy(owner, memo)
        out = value if twin is owner else getattr(twin, value.__name__)
    elif isinstance(value, enum.Enum):
        out = value
    elif _plain_object(kind):
        out = memo[key] = object.__new__(kind)
        fields = out.__dict__
        for name, item in vars(value).items():
            fields[name] = item if type(item) in _ATOMIC else _copy(item, memo)
        return out
    else:
        return copy.deepcopy(value, memo)
    memo[key] = out
    return out


_BOOKKEEPING_SHARED = frozenset(
    {"options", "possible_agents", "_seat_of", "observation_spaces", "action_spaces"}
)


class _UnbuiltObserver:
    """Stands in for the observer of a copied env until the copy is read: the
    first use of any of its attributes builds the copy's own observer (a fresh
    one, from the env's class and options) and brings it up to the engine with
    ``_on_new_game``. No two envs share an observer, so reading one state never
    changes what another shows, and a copy that is never read (most of a
    search's) never pays for an observer."""

    __slots__ = ("env",)

    def __init__(self, env: Any) -> None:
        self.env = env

    def __getattr__(self, name: str) -> Any:
        return getattr(own_observer(self.env), name)


class _SilentObserver:
    """The observer of an env while the bridge deals it: the deal's
    ``_on_new_game`` has no cache to drop (the env gets its own observer when
    it is first read), so every method is a no-op."""

    def __getattr__(self, name: str) -> Callable[..., None]:
        return _no_op


def _no_op(*args: Any, **kwargs: Any) -> None:
    return None


def own_observer(env: Any) -> Any:
    """``env``'s own observer, built now if ``env`` is a copy that was never
    read (see :class:`_UnbuiltObserver`)."""
    observer = vars(env).get("observer")
    if not isinstance(observer, (_UnbuiltObserver, _SilentObserver)):
        return observer
    fresh = type(env)(**env.options).observer
    env.observer = fresh
    env._on_new_game()  # built from this env's engine (the Astrobirdz store, ...)
    return fresh


def copy_env(env: Any) -> Any:
    """An independent copy of the raw env ``env`` for the bridge: the engine (and
    its generator) deep-copied, the AEC bookkeeping copied, configuration and
    spaces shared (read-only once built). The copy's observer is its own, built
    when it is first read (:class:`_UnbuiltObserver`). About ten times faster
    than ``env.clone()``, which round-trips JSON."""
    other = copy.copy(env)
    if "observer" in vars(env):
        other.observer = _UnbuiltObserver(other)
    for name, value in vars(env).items():
        if name in _BOOKKEEPING_SHARED:
            continue
        if isinstance(value, (list, set)):
            setattr(other, name, type(value)(value))
        elif isinstance(value, dict):
            setattr(other, name, dict(value))
    other.infos = {agent: {} for agent in env.infos}
    other._history = []
    if env.game is not None:
        other.game = _copy(env.game, _shared_memo(env, env.game))
    return other


# ---- dice as chance nodes ------------------------------------------------------------


class _NeedDie(Exception):
    """Raised inside a step when the engine rolls a die the bridge has not been
    given a face for: the step is then replayed from its start with that face."""

    def __init__(self, seat: int, sides: int, purpose: str) -> None:
        super().__init__(f"player_{seat} rolls a d{sides} ({purpose})")
        self.seat, self.sides, self.purpose = seat, sides, purpose


def _step_with_faces(env: Any, action: int, faces: list[int]) -> None:
    """``env.step(action)`` with the engine's dice showing ``faces`` in order
    (the engine's own ``forced`` results, its scenario mechanism, fed one at a
    time); raises :class:`_NeedDie` at the first die past them."""
    engine = env.game
    feed = getattr(type(engine), "dice_from_outside", None)
    if feed is not None:
        _step_compiled(env, engine, feed, action, faces)
        return
    roll_die = type(engine).roll_die
    draw_for_die = getattr(engine, "draw_for_die", None)
    queue = list(faces)

    def roll(seat: int, sides: int, purpose: str) -> int:
        if not queue:
            raise _NeedDie(seat, sides, purpose)
        if sides > MAX_DIE_SIDES:
            raise ValueError(_too_many_sides(sides))
        if draw_for_die is not None:
            draw_for_die()  # the generator moves on as under the env's own die
        engine.forced.append(queue.pop(0))
        return int(roll_die(engine, seat, sides, purpose))

    engine.roll_die = roll
    try:
        env.step(action)
    finally:
        del engine.roll_die


def _step_compiled(
    env: Any, engine: Any, feed: Callable[..., None], action: int, faces: list[int]
) -> None:
    """:func:`_step_with_faces` on a compiled engine: its C++ rolls show
    ``faces`` as the Python engine's do, and stop at the first die past them."""
    feed(engine, faces, MAX_DIE_SIDES)
    try:
        env.step(action)
    except DieNeeded as need:
        if need.too_many_sides:
            raise ValueError(_too_many_sides(need.sides)) from None
        raise _NeedDie(need.seat, need.sides, need.purpose) from None
    finally:
        feed(engine, None, MAX_DIE_SIDES)


def _too_many_sides(sides: int) -> str:
    return f"a d{sides}: the bridge's dice have at most {MAX_DIE_SIDES} faces"


# ---- perfect-information algorithms ----------------------------------------------------


class PerfectInformationWarning(UserWarning):
    """A perfect-information search was given a flockgym game: it reads the true
    state, hidden cards and future draws included."""


PERFECT_INFORMATION_MODULES = (
    "open_spiel.python.algorithms.mcts",
    "open_spiel.python.algorithms.async_mcts",
    "open_spiel.python.algorithms.alpha_zero",
)
"""OpenSpiel's Python algorithms that search the state as it is (MCTSBot, the
async MCTS, AlphaZero): each asks ``game.get_type()`` when it is built and
clones the state it searches, which is where the bridge sees them."""

_warned_perfect_information = False


def _warn_if_perfect_information(caller: types.FrameType | None, game: str) -> None:
    """Warn (once per process) when ``caller`` is code of a perfect-information
    algorithm: the frame's module names it, whatever object the caller holds.
    OpenSpiel's C++ bots (``pyspiel.MCTSBot``) call the game from C++ and are
    not seen: the docs say so."""
    global _warned_perfect_information
    if _warned_perfect_information or caller is None:
        return
    module = str(caller.f_globals.get("__name__", ""))
    if not module.startswith(PERFECT_INFORMATION_MODULES):
        return
    _warned_perfect_information = True
    warnings.warn(
        f"{game} is an imperfect-information game, but {module} searches the state "
        "as it is: its bot reads the other seats' hidden cards and the draws to "
        "come. For a player that sees only what its seat sees, use ISMCTSBot "
        "(open_spiel.python.algorithms.ismcts, through resample_from_infostate) or "
        "flockgym's search bot (bot spec 'search'). (Warned once per process.)",
        PerfectInformationWarning,
        stacklevel=3,
    )


# ---- the game ------------------------------------------------------------------------


def _resampler(env_id: str) -> Callable[..., Any] | None:
    """The game's resampler (``EnvEntry.resampler``, ``"module:function"``), if any."""
    spec = getattr(ENVS[env_id], "resampler", None)
    if not spec:
        return None
    module_name, name = spec.split(":")
    return getattr(importlib.import_module(module_name), name)  # type: ignore[no-any-return]


class FlockGame(pyspiel.Game):
    """A flockgym env as a pyspiel game (one class per env: see :func:`register`).

    An imperfect-information game: a perfect-information search (OpenSpiel's
    ``MCTSBot``) reads the hidden cards. OpenSpiel's Python ones get a
    :class:`PerfectInformationWarning` once per process; its C++ bots
    (``pyspiel.MCTSBot``) call the game from C++ and get none. Use
    ``ISMCTSBot`` or flockgym's ``search`` bot."""

    env_id: str = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        spec = parameter_specification(self.env_id)
        unknown = sorted(set(given) - set(spec))
        if unknown:
            raise OptionError(
                f"{game_name(self.env_id)}: unknown parameter(s) {', '.join(unknown)}; "
                f"allowed: {', '.join(sorted(spec))}"
            )
        seed = given.pop(SEED_PARAMETER, 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise OptionError(f"parameter seed={seed!r} is not allowed; allowed: an integer >= 0")
        self.seed = seed
        self.options = {
            **given,
            **bridge_engine(self.env_id),
            "illegal_action": "raise",
            "render_mode": None,
        }
        self.template = make(self.env_id, **self.options).unwrapped  # validates the options
        self.template.reset(seed=0)
        self.explicit_dice = feeds_dice(self.template.game)
        self.env_options = dict(self.template.options)
        reward = self.env_options["reward"]
        bound = 1.0 if reward != "score" else 1e9
        max_steps = self.env_options["max_steps"] or 10**9
        info = pyspiel.GameInfo(
            num_distinct_actions=self.template.num_actions,
            max_chance_outcomes=MAX_DIE_SIDES if self.explicit_dice else 0,
            num_players=self.template.num_players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0 if reward != "score" else None,
            max_game_length=max_steps,
        )
        super().__init__(
            game_type(self.env_id, self.env_options, self.explicit_dice), info, params or {}
        )
        self.observation_size = int(
            self.template.observation_space("player_0")["observation"].shape[0]
        )
        self.resampler = _resampler(self.env_id)
        self.shared = _Shared(self)

    def get_type(self) -> pyspiel.GameType:
        """The game type; a perfect-information algorithm of OpenSpiel's that
        asks for it (every one checks it when it is built) gets a
        :class:`PerfectInformationWarning`, once per process."""
        _warn_if_perfect_information(sys._getframe(1), game_name(self.env_id))
        return pyspiel.Game.get_type(self)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickled as its game string (``flockgym_arena(num_players=2,...)``):
        the copy is the game loaded again, whose deals start again from its
        first (``derive_seed(seed, 0)``)."""
        return load_game, (self.to_string(),)

    def deserialize_state(self, text: str) -> FlockState:
        """A state from ``State.serialize()`` text, its pickled part checked to
        hold nothing but a :class:`SavedCore` (so reading it runs no code)
        before pyspiel reads it; the core is checked field by field."""
        _check_serialized(text)
        return pyspiel.Game.deserialize_state(self, text)  # type: ignore[no-any-return]

    def new_initial_state(self) -> FlockState:
        """A new deal: the k-th state of this game object that is used is dealt
        from seed ``derive_seed(seed, k)``, so a game object's deals are
        reproducible; ``state.deal_seed`` is the seed, which ``env.reset(seed=...)``
        deals alike."""
        return FlockState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> FlockObserver:
        """The seat's information state (``perfect_recall``) or observation."""
        return FlockObserver(self, iig_obs_type, params)


class _Shared:
    """What every state of one game object shares (the env template's settings,
    the observer's owner): never copied by a clone."""

    def __init__(self, game: FlockGame) -> None:
        self.env_id = game.env_id
        self.explicit_dice = game.explicit_dice
        self.resampler = game.resampler
        self.template = game.template
        self.num_players = game.template.num_players
        self.seed = game.seed
        self.deals = 0
        self._spare_observers: list[Any] = []

    def lend_observer(self) -> Any:
        """An observer for a throwaway env of the bridge's own (the replay that
        settles a state's recall), given back with :meth:`return_observer`:
        never one a state reads, and reset by its borrower's ``_on_new_game``."""
        if self._spare_observers:
            return self._spare_observers.pop()
        return type(self.template)(**self.template.options).observer

    def return_observer(self, observer: Any) -> None:
        self._spare_observers.append(observer)

    def deal(self) -> tuple[Any, int]:
        """The next deal of this game object (an env with an observer of its
        own, built when it is first read) and its seed: ``derive_seed(seed, k)``
        for the k-th deal. Nothing another state uses is touched."""
        deal_seed = derive_seed(self.seed, self.deals)
        self.deals += 1
        env = copy_env(self.template)
        if "observer" in vars(env):
            env.observer = _SilentObserver()
            env.reset(seed=deal_seed)
            env.observer = _UnbuiltObserver(env)
        else:
            env.reset(seed=deal_seed)
        return env, deal_seed

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


_NO_DIGEST = bytes(16)
RECALL_BITS = 64
"""Bits of a seat's recall digest at the end of its information-state tensor."""


def _fold(digest: bytes, item: bytes) -> bytes:
    """``digest`` followed by ``item``: a chained 128-bit BLAKE2b, the same in
    every process (Python's ``hash`` of a string is not)."""
    return hashlib.blake2b(digest + item, digest_size=16).digest()


def _move_item(action: int) -> bytes:
    return b"m" + action.to_bytes(4, "little")


def _seen_item(vector: np.ndarray) -> bytes:
    """An observation as a 128-bit digest (what the recall folds and keeps)."""
    data = b"o" + np.ascontiguousarray(vector, dtype=np.float32).tobytes()
    return hashlib.blake2b(data, digest_size=16).digest()


class _Recall:
    """What each seat has observed since the deal, folded into a digest per
    seat: its own moves and every change of its observation vector, in order
    (perfect recall, as the env's replaying ``information_state_string`` keeps
    it, at a cost that does not grow with the game).

    The digest is kept up to date lazily. A state that is never asked for an
    information state (a search's clones and rollouts) only notes its moves
    (``trail``) after the env it last agreed with (``base``, never stepped:
    clones share it); the first read replays those moves on a copy of
    ``base``, folding each seat's observation after each step, and from then
    on the state folds its own steps as they are made (``eager``), without
    replaying. A clone starts lazy again."""

    def __init__(self, num_players: int) -> None:
        self.digests: list[bytes] = [_NO_DIGEST] * num_players
        self.seen: list[bytes] | None = None
        """Each seat's last folded observation (its digest); None until the deal
        is folded."""
        self.base: Any = None
        """The env the digests were settled at when ``trail`` holds moves after it."""
        self.trail: list[tuple[int, int, tuple[int, ...]]] = []
        """(seat, action, die faces) of each step since ``base``."""
        self.eager = False

    def copy(self) -> _Recall:
        other = _Recall.__new__(_Recall)
        other.digests = list(self.digests)
        other.seen = None if self.seen is None else list(self.seen)
        other.base = self.base
        other.trail = list(self.trail)
        other.eager = False
        return other

    def settled(self) -> bool:
        return self.seen is not None and not self.trail

    def before_step(self, env: Any) -> None:
        """Called before ``env`` (the state's own) is stepped in place: keep
        what the lazy replay needs."""
        if self.base is None and not (self.eager and self.settled()):
            self.base = copy_env(env)

    def after_step(
        self, before: Any, env: Any, seat: int, action: int, faces: tuple[int, ...]
    ) -> None:
        """Note a finished step of ``seat`` (``before``: the env before it, when
        it was not stepped in place)."""
        if self.eager and self.settled():
            self.digests[seat] = _fold(self.digests[seat], _move_item(action))
            self._fold_views(env, own_observer(env))
            return
        if self.base is None:
            self.base = before if before is not None else copy_env(env)
        self.trail.append((seat, action, faces))

    def settle(self, shared: _Shared, env: Any) -> None:
        """Bring every seat's digest up to ``env`` (the state's own env)."""
        if self.settled():
            self.eager = True
            return
        if not self.trail:  # a state read before its first move
            self.seen = [b""] * shared.num_players
            self._fold_views(env, own_observer(env))
            self.eager = True
            return
        work = copy_env(self.base)
        observer = shared.lend_observer()
        try:
            work.observer = observer
            work._on_new_game()
            if self.seen is None:
                self.seen = [b""] * shared.num_players
                self._fold_views(work, observer)
            for seat, action, faces in self.trail:
                self.digests[seat] = _fold(self.digests[seat], _move_item(action))
                if shared.explicit_dice:
                    _step_with_faces(work, action, list(faces))
                else:
                    work.step(action)
                self._fold_views(work, observer)
        finally:
            shared.return_observer(observer)
        self.trail = []
        self.base = None
        self.eager = True

    def _fold_views(self, env: Any, observer: Any) -> None:
        seen = self.seen
        assert seen is not None
        for seat in range(len(seen)):
            item = _seen_item(env._encode_observation(seat))
            if item != seen[seat]:
                seen[seat] = item
                self.digests[seat] = _fold(self.digests[seat], item)


SAVED_FORMAT = "flockgym-openspiel-state-1"
"""The ``format`` of a serialized state's core (:meth:`_Core.saved`)."""


class SavedCore(str):
    """A state's core as JSON text: what ``State.serialize`` pickles in its
    ``__dict__`` (a string, nothing that runs code when it is read back)."""

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return SavedCore, (str(self),)


def _saved_json(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise StateDictError(f"a serialized flockgym state is not JSON: {err}") from None
    if not isinstance(data, dict) or data.get("format") != SAVED_FORMAT:
        raise StateDictError(
            f"a serialized flockgym state must be a JSON object with format {SAVED_FORMAT!r}"
        )
    return data


def _field(data: dict[str, Any], name: str, ok: Callable[[Any], bool], allowed: str) -> Any:
    value = data.get(name)
    if not ok(value):
        raise StateDictError(
            f"serialized state field {name}={value!r:.60} is not allowed; allowed: {allowed}"
        )
    return value


def _is_int(value: Any, low: int) -> bool:
    return type(value) is int and value >= low


def _int_list(value: Any, n: int) -> bool:
    return isinstance(value, list) and len(value) == n and all(_is_int(v, 0) for v in value)


def _hex_list(value: Any, n: int) -> bool:
    return (
        isinstance(value, list)
        and len(value) == n
        and all(isinstance(v, str) and len(v) == 32 and _is_hex(v) for v in value)
    )


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True


def _numbers(data: dict[str, Any], name: str, n: int) -> list[float]:
    def ok(value: Any) -> bool:
        return (
            isinstance(value, list)
            and len(value) == n
            and all(type(v) in (int, float) and np.isfinite(v) for v in value)
        )

    return [float(v) for v in _field(data, name, ok, f"{n} finite numbers")]


def _saved_pending(value: Any, env: Any, shared: _Shared) -> tuple[int, list[int], _NeedDie] | None:
    """The pending die roll of a saved chance node, checked against the env."""
    if value is None:
        return None
    allowed = (
        "null, or {action: a legal action, faces: faces rolled so far, seat, "
        f"sides: 2..{MAX_DIE_SIDES}, purpose: text}} in a game with explicit dice"
    )
    fields = {"action", "faces", "seat", "sides", "purpose"}
    ok = (
        shared.explicit_dice
        and isinstance(value, dict)
        and set(value) == fields
        and _is_int(value["sides"], 2)
        and value["sides"] <= MAX_DIE_SIDES
        and _is_int(value["seat"], 0)
        and value["seat"] < shared.num_players
        and isinstance(value["purpose"], str)
        and isinstance(value["faces"], list)
        and all(_is_int(f, 1) and f <= MAX_DIE_SIDES for f in value["faces"])
        and _is_int(value["action"], 0)
        and value["action"] < env.num_actions
        and bool(env.game.is_legal_id(value["action"], env.num_actions))
    )
    if not ok:
        raise StateDictError(
            f"serialized state field pending={value!r:.80} is not allowed; allowed: {allowed}"
        )
    need = _NeedDie(value["seat"], value["sides"], value["purpose"])
    return value["action"], list(value["faces"]), need


def _loaded_env(template: Any, state: Any) -> Any:
    """A copy of ``template`` loaded with the env state ``state`` (checked by the
    env's own loader), with an observer of its own built when it is read."""
    env = copy_env(template)
    if "observer" in vars(env):
        env.observer = _SilentObserver()
        env.load_state_dict(state)
        env.observer = _UnbuiltObserver(env)
    else:
        env.load_state_dict(state)
    return env


class _Core:
    """A state's data: the raw env, the pending die roll of a chance node, each
    seat's summed and last rewards, its move count and what it recalls.

    pyspiel clones a Python state by deep-copying its ``__dict__``: this object's
    ``__deepcopy__`` is the fast copy (:func:`copy_env`)."""

    def __init__(self, shared: _Shared, env: Any = None) -> None:
        self.shared = shared
        self._env = env
        self.pending: tuple[int, list[int], _NeedDie] | None = None
        n = shared.num_players
        self.totals = [0.0] * n
        self.last_rewards = [0.0] * n
        self.moves = [0] * n
        self.recall = _Recall(n)
        self.deal_seed: int | None = None

    @property
    def env(self) -> Any:
        """The raw env, dealt on first use: pyspiel makes initial states of its
        own (to size the tensors at every ``observation_tensor`` call), which are
        never played, so a deal is made only for a state that is used."""
        env = self._env
        if env is None:
            env, self.deal_seed = self.shared.deal()
            self._env = env
        return env

    @env.setter
    def env(self, env: Any) -> None:
        self._env = env

    def drawn(self) -> bool:
        """Whether this is a world drawn by ``resample_from_infostate`` (dealt, with
        no deal seed): searching it as it is reads only what was drawn for the
        seat, so ISMCTS's rollouts from its clones (OpenSpiel's
        ``RandomRolloutEvaluator`` is in ``mcts``) are fair use, not a warning."""
        return self._env is not None and self.deal_seed is None

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """pyspiel serializes a Python state by pickling its ``__dict__``: a
        core pickles as :class:`SavedCore`, plain JSON text (the env's
        ``state_dict`` and the bridge's own fields), which the state it is
        given to rebuilds (:meth:`FlockState.__setattr__`)."""
        return SavedCore, (json.dumps(self.saved(), separators=(",", ":")),)

    def saved(self) -> dict[str, Any]:
        """This core as JSON types (its recall settled first)."""
        env = self.env
        self.recall.settle(self.shared, env)
        pending = self.pending
        recall = self.recall
        return {
            "format": SAVED_FORMAT,
            "env": env.state_dict(),
            "deal_seed": self.deal_seed,
            "pending": None
            if pending is None
            else {
                "action": pending[0],
                "faces": list(pending[1]),
                "seat": pending[2].seat,
                "sides": pending[2].sides,
                "purpose": pending[2].purpose,
            },
            "totals": list(self.totals),
            "last_rewards": list(self.last_rewards),
            "moves": list(self.moves),
            "digests": [d.hex() for d in recall.digests],
            "seen": [d.hex() for d in recall.seen or []],
        }

    @classmethod
    def restored(cls, shared: _Shared, text: str) -> _Core:
        """The core saved as ``text`` (:meth:`saved`), every field checked: a
        ``StateDictError`` names the first that is wrong."""
        data = _saved_json(text)
        n = shared.num_players
        env = _loaded_env(shared.template, data["env"])
        core = cls(shared, env)
        core.deal_seed = _field(
            data, "deal_seed", lambda v: v is None or _is_int(v, 0), "null or an integer >= 0"
        )
        core.totals = _numbers(data, "totals", n)
        core.last_rewards = _numbers(data, "last_rewards", n)
        core.moves = _field(data, "moves", lambda v: _int_list(v, n), f"{n} integers >= 0")
        core.pending = _saved_pending(data.get("pending"), env, shared)
        digests = _field(data, "digests", lambda v: _hex_list(v, n), f"{n} hex digests of 16 bytes")
        seen = _field(data, "seen", lambda v: _hex_list(v, n), f"{n} hex digests of 16 bytes")
        core.recall.digests = [bytes.fromhex(d) for d in digests]
        core.recall.seen = [bytes.fromhex(d) for d in seen]
        return core

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        other = _Core.__new__(_Core)
        other.shared = self.shared
        other._env = copy_env(self.env)
        pending = self.pending
        other.pending = None if pending is None else (pending[0], list(pending[1]), pending[2])
        other.totals = list(self.totals)
        other.last_rewards = list(self.last_rewards)
        other.moves = list(self.moves)
        other.recall = self.recall.copy()
        other.deal_seed = self.deal_seed
        return other


_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


@functools.cache
def _outcomes(sides: int) -> tuple[tuple[int, float], ...]:
    """A d``sides``'s chance outcomes: face action ``f`` (showing ``f + 1``), ``1/sides``."""
    return tuple((face, 1.0 / sides) for face in range(sides))


class FlockState(pyspiel.State):
    """A flockgym game in progress (its data in :class:`_Core`)."""

    def __init__(self, game: FlockGame, env: Any = None) -> None:
        super().__init__(game)
        # pyspiel's clone() calls this without an env, then copies ``__dict__`` over.
        self.core = _Core(game.shared, env)

    def __setattr__(self, name: str, value: Any) -> None:
        """pyspiel's deserialization sets the pickled ``__dict__`` on a new
        initial state of the game: a :class:`SavedCore` is rebuilt into a core
        of this state's game (checked field by field)."""
        if name == "core" and isinstance(value, SavedCore):
            value = _Core.restored(self.core.shared, value)
        super().__setattr__(name, value)

    def clone(self) -> FlockState:
        """An independent copy (pyspiel's clone: the ``core`` deep-copied by
        :meth:`_Core.__deepcopy__`); warns as :meth:`FlockGame.get_type` does
        when a perfect-information search clones the state it searches (not a
        world drawn by :meth:`resample_from_infostate`)."""
        if not self.core.drawn():
            _warn_if_perfect_information(sys._getframe(1), game_name(self.core.shared.env_id))
        return pyspiel.State.clone(self)  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        """Pickled as its game's string and its ``serialize()`` text."""
        return _state_from, (self.get_game().to_string(), self.serialize())

    @property
    def deal_seed(self) -> int | None:
        """The seed this game was dealt from (``env.reset(seed=deal_seed)`` deals
        the same game); None for a resampled state."""
        self.core.env  # noqa: B018  (deals the game if it was not yet)
        return self.core.deal_seed

    # ---- whose turn, what is legal ----

    def _done(self) -> bool:
        env = self.core.env
        agent = env.agent_selection
        return bool(env.terminations[agent] or env.truncations[agent])

    def current_player(self) -> int:
        """The seat to act, or chance at a die, or terminal (pyspiel asks at
        every call, so it is read straight from the env)."""
        core = self.core
        if core.pending is not None:
            return _CHANCE
        env = core.env
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return _TERMINAL
        return env.seat_of(agent)  # type: ignore[no-any-return]

    def is_terminal(self) -> bool:
        return self.core.pending is None and self._done()

    def _legal_actions(self, player: int) -> list[int]:
        env = self.core.env
        if self.core.pending is not None or self._done():
            return []
        if player != env.seat_of(env.agent_selection):
            return []
        return list(env.game.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """A die's faces (action ``f`` shows ``f + 1``), each ``1/sides``."""
        pending = self.core.pending
        if pending is None:
            raise ValueError("chance_outcomes: this state is not a chance node")
        return list(_outcomes(pending[2].sides))

    # ---- moves ----

    def _apply_action(self, action: int) -> None:
        core = self.core
        if core.pending is not None:
            self._apply_face(int(action))
            return
        seat = self._legal_or_refused(int(action))
        core.moves[seat] += 1
        if not core.shared.explicit_dice:
            core.recall.before_step(core.env)
            core.env.step(int(action))
            self._stepped(core.env, seat, int(action), [])
            return
        self._step_rolling(seat, int(action), [])

    def _legal_or_refused(self, action: int) -> int:
        """The seat to act, when ``action`` is legal for it; otherwise a
        ``ValueError`` naming the action and the legal ones, raised before
        anything changes (pyspiel leaves a Python game's legality to it)."""
        env = self.core.env
        if self._done():
            raise ValueError(f"action {action}: the game is over, no action is legal")
        seat: int = env.seat_of(env.agent_selection)
        game = env.game
        if 0 <= action < env.num_actions and game.is_legal_id(action, env.num_actions):
            return seat
        legal = list(game.legal_actions())
        shown = ", ".join(f"{a} ({game.action_to_string(seat, a)})" for a in legal[:8])
        more = f", ... ({len(legal)} in all)" if len(legal) > 8 else ""
        raise ValueError(
            f"action {action} is not legal for player_{seat} here; legal: {shown}{more}"
        )

    def _apply_face(self, face: int) -> None:
        core = self.core
        assert core.pending is not None
        action, faces, need = core.pending
        if not 0 <= face < need.sides:
            raise ValueError(
                f"chance outcome {face} of a d{need.sides}: allowed 0..{need.sides - 1}"
            )
        self._step_rolling(core.env.seat_of(core.env.agent_selection), action, [*faces, face + 1])

    def _step_rolling(self, seat: int, action: int, faces: list[int]) -> None:
        """Step ``action`` with its dice showing ``faces``, or, at the first die
        past them, make this state its chance node (the env unchanged). A
        compiled engine tries the step on a copy of its own in C++
        (``first_die_needed``) and steps the env in place once it will not
        stop; a Python engine steps a copy of the env, adopted when it is through."""
        core = self.core
        env = core.env
        probe = getattr(type(env.game), "first_die_needed", None)
        if probe is not None:
            need = probe(env.game, action, faces, MAX_DIE_SIDES)
            if need is not None:
                if need.too_many_sides:
                    raise ValueError(_too_many_sides(need.sides))
                core.pending = (action, faces, _NeedDie(need.seat, need.sides, need.purpose))
                return
            core.recall.before_step(env)
            _step_with_faces(env, action, faces)
            core.pending = None
            self._stepped(env, seat, action, faces)
            return
        work = copy_env(env)
        try:
            _step_with_faces(work, action, faces)
        except _NeedDie as need_die:
            core.pending = (action, faces, need_die)
            return
        core.pending = None
        self._stepped(work, seat, action, faces)

    def _stepped(self, env: Any, seat: int, action: int, faces: list[int]) -> None:
        """Adopt the stepped ``env`` (a stepped copy takes over the built
        observer of the env it replaces, which nothing else reads), note the
        step in the seats' recall and add its step rewards to each seat's
        total, as the AEC loop pays them."""
        core = self.core
        old = core.env
        if env is not old:
            observer = vars(old).get("observer")
            if observer is not None and not isinstance(observer, _UnbuiltObserver):
                env.observer = observer
                old.observer = _UnbuiltObserver(old)
                env._on_new_game()
        core.env = env
        before = old if env is not old else None
        core.recall.after_step(before, env, seat, action, tuple(faces))
        rewards = env.rewards
        core.last_rewards = [float(rewards.get(a, 0.0)) for a in env.possible_agents]
        core.totals = [t + r for t, r in zip(core.totals, core.last_rewards, strict=True)]

    # ---- results ----

    def returns(self) -> list[float]:
        """Each seat's rewards summed since the deal: what the AEC loop pays."""
        return list(self.core.totals)

    def rewards(self) -> list[float]:
        """The rewards of the last step (0 at chance nodes)."""
        if self.core.pending is not None:
            return [0.0] * len(self.core.totals)
        return list(self.core.last_rewards)

    # ---- strings ----

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            pending = self.core.pending
            if pending is None:
                return f"die {int(action) + 1}"
            need = pending[2]
            return f"player_{need.seat} d{need.sides} ({need.purpose}): {int(action) + 1}"
        return self.core.env.game.action_to_string(player, int(action))  # type: ignore[no-any-return]

    def string_to_action(self, *args: Any) -> int:
        """The action id of an env action string (``string_to_action(text)`` for
        the seat to act, or ``(player, text)``); a ``ValueError`` names the forms."""
        if len(args) == 1:
            player, text = self.current_player(), args[0]
        else:
            player, text = args
        if player < 0:
            for action in self.legal_actions():
                if self.action_to_string(player, action) == text:
                    return int(action)
            raise ValueError(f"{text!r} is not a legal chance outcome here")
        return int(self.core.env.string_to_action(f"player_{player}", text))

    def __str__(self) -> str:
        return self.sync()._render_text(None)  # type: ignore[no-any-return]

    # ---- what a seat sees ----

    def sync(self) -> Any:
        """The env, with its own observer built (see :class:`_UnbuiltObserver`)."""
        env = self.core.env
        own_observer(env)
        return env

    def view_json(self, player: int) -> str:
        """The seat's view as canonical JSON."""
        view = self.sync().view(f"player_{player}")
        return json.dumps(view, sort_keys=True, separators=(",", ":"))

    def observation_vector(self, player: int) -> np.ndarray:
        """The env's observation vector of ``player``: the caller's own array
        (the env may return a buffer its observer writes again later)."""
        return np.array(self.sync()._encode_observation(player), dtype=np.float32)

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """The env's observation vector of ``player`` (default: the player to
        act). From Python this skips pyspiel's own route, which builds a new
        initial state at every call to size the tensor."""
        return self.observation_vector(self._seat(player)).tolist()  # type: ignore[no-any-return]

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """The observation vector of ``player`` (default: the player to act) and
        its recall digest's bits (:meth:`info_state_vector`)."""
        return self.info_state_vector(self._seat(player)).tolist()  # type: ignore[no-any-return]

    def _seat(self, player: int | None) -> int:
        """``player``, or the player to act; a ``ValueError`` names the seats."""
        seat = self.current_player() if player is None else int(player)
        seats = self.core.shared.num_players
        if not 0 <= seat < seats:
            raise ValueError(f"player {seat} is not a seat of this game; seats: 0..{seats - 1}")
        return seat

    def observation_text(self, player: int) -> str:
        return self.sync().observation_string(f"player_{player}")  # type: ignore[no-any-return]

    def recall_digest(self, player: int) -> bytes:
        """The seat's perfect-recall digest: its own moves and every change of
        its observation since the deal, in order (see :class:`_Recall`); at a
        chance node, the move it is rolling for is in it too."""
        core = self.core
        core.recall.settle(core.shared, core.env)
        digest = core.recall.digests[player]
        pending = core.pending
        if pending is not None and core.env.seat_of(core.env.agent_selection) == player:
            digest = _fold(digest, _move_item(pending[0]))
        return digest

    def info_state_text(self, player: int) -> str:
        """The seat's move count and recall digest, then its current view: two
        histories the seat can tell apart give two texts (perfect recall), two
        it cannot tell apart give one."""
        digest = self.recall_digest(player)
        head = f"player_{player} moves {self.core.moves[player]} #{digest.hex()}"
        return head + "\n" + self.view_json(player)

    def info_state_vector(self, player: int) -> np.ndarray:
        """The observation vector, then the first 64 bits of the seat's recall
        digest as 0/1 values: the tensor tells apart what the string does (a
        learner may drop the last :data:`RECALL_BITS` values)."""
        bits = np.unpackbits(np.frombuffer(self.recall_digest(player)[:8], dtype=np.uint8))
        return np.concatenate([self.observation_vector(player), bits.astype(np.float32)])

    # ---- search support ----

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> FlockState:
        """A state seat ``player_id`` cannot tell from this one, drawn by the game's
        registered resampler with a generator seeded from ``probability_sampler``."""
        resample = self.core.shared.resampler
        if resample is None:
            raise NotImplementedError(
                f"{self.core.shared.env_id} registers no resampler (EnvEntry.resampler), "
                "so resample_from_infostate is not available for it"
            )
        seed = int(float(probability_sampler()) * 2**53)
        core = self.core
        core.recall.settle(core.shared, core.env)  # the drawn state recalls what this one does
        other = self.clone()  # its env is its own: the resampler may change it
        other.core.env = resample(other.core.env, player_id, np.random.default_rng(seed))
        other.core.env._history = []
        other.core.deal_seed = None
        return other  # type: ignore[no-any-return]


class FlockObserver:
    """OpenSpiel's observer for one seat: the information state (perfect
    recall: the seat's own moves and every change of its observation since the
    deal, as a digest, with its current view; the tensor is the observation
    vector and :data:`RECALL_BITS` bits of the digest) or the observation (the
    env's text and vector: what the seat sees now)."""

    def __init__(self, game: FlockGame, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observer parameters are not supported; passed {params}")
        obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not (
            obs_type.public_info
        ):
            raise ValueError(
                "flockgym games observe one seat: private_info SINGLE_PLAYER with "
                "public_info True (perfect_recall True or False)"
            )
        self.perfect_recall = bool(obs_type.perfect_recall)
        size = game.observation_size + (RECALL_BITS if self.perfect_recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: FlockState, player: int) -> None:
        if self.perfect_recall:
            self.tensor[:] = state.info_state_vector(player)
        else:
            self.tensor[:] = state.observation_vector(player)

    def string_from(self, state: FlockState, player: int) -> str:
        if self.perfect_recall:
            return state.info_state_text(player)
        return state.observation_text(player)


# ---- serialization -------------------------------------------------------------------


class _CheckingUnpickler(pickle.Unpickler):
    """Reads a serialized state's ``__dict__`` allowing no global but
    :class:`SavedCore`: anything else is refused before it is looked up."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == (__name__, "SavedCore"):
            return SavedCore
        raise StateDictError(
            f"a serialized flockgym state may hold only {__name__}.SavedCore; "
            f"it names {module}.{name}"
        )


def _check_serialized(text: str) -> None:
    """Refuse ``State.serialize()`` text whose pickled ``__dict__`` holds
    anything but ``{"core": SavedCore}`` (a ``StateDictError`` says what)."""
    if not isinstance(text, str):
        raise StateDictError(f"a serialized state is text, got {type(text).__name__}")
    lines = text.split("\n", 2)
    if len(lines) != 3 or not lines[2].startswith("__dict__="):
        raise StateDictError(
            "a serialized state has three lines: history=..., move_number=..., __dict__=..."
        )
    try:
        raw = base64.b64decode(lines[2][len("__dict__=") :], validate=True)
        saved = _CheckingUnpickler(io.BytesIO(raw)).load()
    except StateDictError:
        raise
    except Exception as err:  # any unreadable payload is refused by name
        raise StateDictError(f"a serialized state's __dict__ cannot be read: {err}") from None
    if not (
        isinstance(saved, dict) and set(saved) == {"core"} and isinstance(saved["core"], SavedCore)
    ):
        raise StateDictError("a serialized state's __dict__ must be {'core': SavedCore}")


def load_game(text: str) -> FlockGame:
    """``pyspiel.load_game(text)`` with the flockgym games registered (what an
    unpickled game calls, in a process that may not have imported this module)."""
    return pyspiel.load_game(text)  # type: ignore[no-any-return]


def _state_from(game_text: str, state_text: str) -> FlockState:
    """An unpickled state: its game loaded from ``game_text``, the state read
    by the game's checking :meth:`FlockGame.deserialize_state`."""
    return load_game(game_text).deserialize_state(state_text)


def register(env_id: str) -> type[FlockGame]:
    """Register ``env_id`` with pyspiel as :func:`game_name` and return its class
    (bound in this module under its name, so it can be found by name)."""
    name = f"FlockGame_{env_id}"
    cls = type(name, (FlockGame,), {"env_id": env_id, "__module__": __name__})
    cls.__qualname__ = name
    globals()[name] = cls
    pyspiel.register_game(game_type(env_id), cls)
    return cls


GAMES: dict[str, type[FlockGame]] = {env_id: register(env_id) for env_id in sorted(ENVS)}
"""The bridged game class of every registered env."""

__all__ = ["GAMES", "FlockGame", "FlockObserver", "FlockState", "copy_env", "game_name"]
