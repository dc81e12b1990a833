"""Training configs: plain YAML, validated into typed sections.

A config names the env, the learner and its hyperparameters, the opponent
scheme, the vectorisation, the budget, the seed, the evaluation schedule and
the output folder. Every field has a default and a docstring (its
``description``), so the resolved config written into a run folder documents
itself.

Loading is two steps, because the ``algo`` section's keys depend on the learner
it names: first the common sections, then ``algo`` against that learner's own
parameter model (:mod:`flockgym.training.learners`). Any mistake, in either
step, raises :class:`ConfigError` naming the key, the value given and what is
allowed; nothing is silently ignored. Every value a run could not use (a seed
numpy refuses, a network or rollout too big for memory, a run folder outside
``output.dir``) is refused here, before a run folder exists.

The YAML is read strictly: UTF-8 text, ``yaml.safe_load`` semantics, a key
repeated in one mapping is an error (PyYAML would keep the last silently), and
numbers in exponent form without a dot (``3e6``) are numbers, as in YAML 1.2.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any, Literal

import annotated_types
import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo

from flockgym.bots.advice import input_size
from flockgym.bots.policies import BotSpecError, CheckpointError, env_shapes, make_participant
from flockgym.common.errors import ConfigError
from flockgym.envs import OptionError, list_envs
from flockgym.envs.core.reader import (
    MAX_TEXT_BYTES,
    BoundedSafeLoader,
    InputError,
    load_yaml,
)
from flockgym.envs.core.reader import read_text as reader_text
from flockgym.envs.core.validate import short_repr
from flockgym.training.learners import MAX_TORCH_THREADS, AlgoParams, get_learner, learner_names
from flockgym.training.parallel import MAX_WORKERS
from flockgym.training.vector_engines import (
    has_vector_engine,
    resolve_engine,
    vector_engine_envs,
    vector_engine_problem,
)

MAX_SEED = 2**32 - 1
"""numpy's global generator takes seeds below 2**32."""
MAX_ENVS = 256
MAX_STEPS = 10**10
"""Most learner steps a run, or a schedule inside it, may name: 3,000 times the
longest shipped config (3M steps), about 12 days at the 10,000 learner steps per
CPU-second of the fastest path in docs/scale.md, and small enough that every
step count stays an int64 in numpy and torch."""
MAX_REWARD_FACTOR = 1000.0
"""Most a reward may be scaled by (``env.reward_scale``) or topped up with
(``env.win_bonus``): rewards and returns are float32 in the rollout buffer and are
squared in the value loss, so 1e308 overflows to inf (which once crashed a run
after its folder existed) long before it could mean anything."""
MAX_DEALS = 100_000
"""Most deals an evaluation or a tournament may ask for (``eval.games``,
``eval.tournament_games``; pretraining's games have the same bound): days of play
at the Arena's pace, while ``10**12`` deals ran the machine out of memory."""
MAX_SNAPSHOTS = 100
"""Most frozen copies of the learner kept in memory at once (``opponents.max_snapshots``)."""
MAX_PRETRAIN_BATCH = 65_536
"""Largest imitation minibatch: with up to 100,000 teacher games a bigger one could
ask for tens of gigabytes of observations in one tensor."""


class Section(BaseModel):
    """Base of every config section: unknown keys are errors, values are checked
    when assigned too."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class EnvConfig(Section):
    """Which game to train on."""

    id: str = Field(description="registered env id, e.g. asrus_v0 (`flockgym list` shows them)")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="env options given to flockgym.envs.make (num_players, reward, game "
        "options); see docs/api.md and the game's rules page",
    )
    reward_scale: float = Field(
        1.0,
        gt=0,
        le=MAX_REWARD_FACTOR,
        description="the learner's rewards are multiplied by this (e.g. 0.02 with reward: score, "
        "where points swing by tens, so that the value loss does not swamp the policy's gradient)",
    )
    win_bonus: float = Field(
        0.0,
        ge=0,
        le=MAX_REWARD_FACTOR,
        description="added to the learner's (scaled) reward at a game's end, times the win reward "
        "(+1 to the winner, -1 shared by the others, as reward: win pays; nothing for a truncated "
        "game): a win signal on top of reward: score, so that points are not all that is learnt",
    )
    relative_reward: bool = Field(
        False,
        description="with reward: score, pay the learner the change in its points minus the "
        "mean of the other players' points (zero-sum: the points an opponent scores cost the "
        "learner, and at two players a point taken from the opponent counts twice) instead of "
        "its own points alone",
    )
    advisor: Literal["none", "heuristic"] = Field(
        "none",
        description="'heuristic': the learner's input is the observation followed by a one-hot "
        "of the move the env's heuristic bot would make in its seat, which the policy learns to "
        "follow or overrule (bots/advice.py); the checkpoints keep the advisor and take it "
        "wherever they play",
    )


class OpponentsConfig(Section):
    """Who fills the seats the learner does not take."""

    pool: list[str] = Field(
        default_factory=lambda: ["random", "heuristic"],
        description="bot specs that stay in the pool for the whole run: 'random', "
        "'heuristic' or a checkpoint path; one is drawn per episode and fills every other seat",
    )
    snapshot_every: int = Field(
        0,
        ge=0,
        le=MAX_STEPS,
        description="add a frozen copy of the learner to the pool every this many steps (0: never)",
    )
    max_snapshots: int = Field(
        5, ge=1, le=MAX_SNAPSHOTS, description="only the newest snapshots stay in the pool"
    )
    snapshot_share: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="probability that an episode's opponents are a snapshot, once there is one",
    )
    snapshot_play: Literal["sample", "greedy"] = Field(
        "sample", description="snapshots sample their moves from the policy, or play its argmax"
    )

    @model_validator(mode="after")
    def someone_to_play(self) -> OpponentsConfig:
        if not self.pool and not self.snapshot_every:
            raise ValueError(
                "opponents.pool is empty and opponents.snapshot_every is 0: the learner would "
                "have no opponents; name bots in pool, or set snapshot_every for self-play"
            )
        return self


class PretrainConfig(Section):
    """Imitation of a teacher bot before the first PPO update (training/pretrain.py)."""

    games: int = Field(
        0,
        ge=0,
        le=MAX_DEALS,
        description="games played by the teacher in the learner's seat, against opponents "
        "drawn from opponents.pool, whose moves the policy is fit to before PPO starts "
        "(0: no pretraining)",
    )
    teacher: str = Field(
        "heuristic", description="the bot spec imitated: 'heuristic', 'random' or a checkpoint"
    )
    epochs: int = Field(4, ge=1, le=1000, description="passes over the teacher's moves")
    batch_size: int = Field(
        256, ge=2, le=MAX_PRETRAIN_BATCH, description="minibatch size of the fit"
    )
    learning_rate: float = Field(1e-3, gt=0, le=1, description="Adam step size of the fit")


class EvalConfig(Section):
    """Evaluation of the learner during and after training."""

    every: int = Field(
        0,
        ge=0,
        le=MAX_STEPS,
        description="evaluate every this many steps (0: only at the end of the run)",
    )
    games: int = Field(
        20,
        ge=2,
        le=MAX_DEALS,
        description="deals per opponent; each deal is replayed with the learner in "
        "every seat and the opponent in all the others",
    )
    opponents: list[str] = Field(
        default_factory=lambda: ["random", "heuristic"],
        description="bot specs the learner is evaluated against, one at a time",
    )
    learner_play: Literal["greedy", "sample"] = Field(
        "greedy", description="how the learner picks moves when evaluated"
    )
    seed: int = Field(
        12345,
        ge=0,
        le=MAX_SEED,
        description="seed of the evaluation deals: fixed, so every evaluation plays the same hands",
    )
    tournament_games: int = Field(
        0,
        ge=0,
        le=MAX_DEALS,
        description="after training, a tournament of the final policy and the "
        "opponents over this many deals, saved in the run folder (0: none; else at least 2, "
        "for its 95% intervals)",
    )

    @field_validator("tournament_games")
    @classmethod
    def no_or_enough_deals(cls, deals: int) -> int:
        if deals == 1:
            raise ValueError(
                "a tournament needs 2 deals for its 95% intervals; allowed: 0 (no tournament) "
                "or at least 2"
            )
        return deals


FOLDER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,199}")
"""A run folder name: one path component, never ``.`` or ``..``."""


class OutputConfig(Section):
    """Where the run folder goes and how often it is written."""

    dir: str = Field("runs", description="parent folder of the run folders")
    name: str | None = Field(
        None,
        description="run folder name, one folder inside dir (default: <env id>-<config file "
        "stem>-<UTC time>)",
    )
    checkpoint_every: int = Field(
        100_000,
        ge=1,
        le=MAX_STEPS,
        description="write a resumable checkpoint every this many steps (and always at the end)",
    )

    @field_validator("name")
    @classmethod
    def one_folder_name(cls, name: str | None) -> str | None:
        """The run folder must be a child of ``dir``: no path, no ``..``."""
        if name is not None and not FOLDER_NAME.fullmatch(name):
            raise ValueError(
                "allowed: a folder name of letters, digits, '.', '_' and '-' (not starting "
                "with '.' or '-'), which makes one folder inside output.dir"
            )
        return name


class BatchedConfig(Section):
    """How ``vec_env: batched`` plays its games (see training/batched.py)."""

    engine: Literal["auto", "scalar", "vector"] = Field(
        "auto",
        description="scalar: the env's own engine, one per game (every env); vector: a "
        "vectorised engine playing every game in numpy arrays (envs whose registry entry "
        f"names one: {', '.join(vector_engine_envs(every=True))}); auto: vector where the "
        "env's engine plays its turns simultaneously "
        f"({', '.join(vector_engine_envs())}), else scalar",
    )
    dealing: Literal["exact", "fast"] = Field(
        "exact",
        description="vector engine only: exact deals the scalar env's cards for each seed; fast "
        "deals each game in one generator call (the same uniform deals, other cards)",
    )
    workers: int = Field(
        1,
        ge=1,
        le=MAX_WORKERS,
        description="processes playing the games: 1 plays them all in the learner's process; "
        "N splits them into N slices played at once, one in the learner's process and the "
        "others in N-1 worker processes (the same games; at most n_envs; see docs/scale.md)",
    )


class TrainConfig(Section):
    """One training run, from YAML."""

    env: EnvConfig
    algo: SerializeAsAny[AlgoParams] = Field(
        description="the learner, by name, and its hyperparameters (see learners.py)"
    )
    opponents: OpponentsConfig = Field(default_factory=OpponentsConfig)
    n_envs: int = Field(8, ge=1, le=MAX_ENVS, description="parallel envs the learner collects from")
    vec_env: Literal["DummyVecEnv", "SubprocVecEnv", "batched"] = Field(
        "DummyVecEnv",
        description="DummyVecEnv steps the envs in this process one by one; SubprocVecEnv "
        "gives each env its own process (for bigger machines); batched plays every game in this "
        "process with every opponent decision of a step in one batch (the same games as "
        "DummyVecEnv, several times faster; see docs/scale.md)",
    )
    batched: BatchedConfig = Field(
        default_factory=BatchedConfig, description="the engine of vec_env: batched"
    )
    total_steps: int = Field(
        ge=1, le=MAX_STEPS, description="learner steps (its own moves) to train for"
    )
    seed: int = Field(
        0, ge=0, le=MAX_SEED, description="the one seed everything else is derived from"
    )
    torch_threads: int = Field(
        1, ge=1, le=MAX_TORCH_THREADS, description="torch intra-op threads (1 is fastest here)"
    )
    progress_bar: bool = Field(True, description="show a progress bar with steps per second")
    pretrain: PretrainConfig = Field(default_factory=PretrainConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    output: OutputConfig = Field(default_factory=OutputConfig)


# ---- loading ------------------------------------------------------------------


class StrictLoader(BoundedSafeLoader):
    """``yaml.safe_load`` that refuses a key repeated in one mapping, and reads
    ``3e6`` as a number (YAML 1.2) rather than as a string (YAML 1.1); as every
    YAML the project reads, without anchors or aliases and within the reader's
    depth and digit limits (:class:`~flockgym.envs.core.reader.BoundedSafeLoader`)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first_line: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, typing.Hashable):
                continue  # SafeLoader reports it
            line = key_node.start_mark.line + 1
            if key in first_line:
                raise DuplicateKeyError(
                    f"line {line}: duplicate key {key!r} (first at line {first_line[key]}); "
                    "each key may appear once in a mapping"
                )
            first_line[key] = line
        return super().construct_mapping(node, deep=deep)


class DuplicateKeyError(yaml.YAMLError):
    """A mapping of a YAML text repeats a key."""


class StrictDumper(yaml.SafeDumper):
    """``yaml.safe_dump`` whose output :class:`StrictLoader` reads back as written
    (a string like ``'1e5'`` is quoted)."""


EXPONENT_FLOAT = re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")
for _yaml_class in (StrictLoader, StrictDumper):
    _yaml_class.add_implicit_resolver(
        "tag:yaml.org,2002:float", EXPONENT_FLOAT, list("-+0123456789")
    )


def read_yaml(text: str) -> Any:
    """A YAML text read strictly (see :class:`StrictLoader`); nothing is executed.

    A syntax or repeated-key error is a ``yaml.YAMLError``; an alias, a nesting
    or a number past the reader's limits an :class:`InputError` (the caller adds
    which file or value it was)."""
    # What yaml.safe_load does, with the SafeLoader subclass that refuses repeated
    # keys and reads 1e5 as a number: python/object tags are refused (tested), so
    # a config is only ever plain data.
    return load_yaml(text, StrictLoader)


MAX_CONFIG_BYTES = MAX_TEXT_BYTES
"""The largest config, spec or saved run config read (1 MiB; one is a few kB)."""


def read_text(path: Path, what: str = "config") -> str:
    """A config file's text through the project's reader (a regular file of at
    most :data:`MAX_CONFIG_BYTES`, UTF-8); :class:`ConfigError` naming ``what``
    and the file otherwise."""
    try:
        return reader_text(path, what, MAX_CONFIG_BYTES)
    except InputError as err:
        raise ConfigError(str(err)) from None


def read_yaml_file(path: Path, what: str = "config") -> Any:
    """A YAML file's data (:func:`read_text`, then :func:`read_yaml`); every
    refusal a :class:`ConfigError` naming the file."""
    text = read_text(path, what)
    try:
        return read_yaml(text)
    except InputError as err:
        raise ConfigError(f"{what} {str(path)!r}: {err}") from None
    except DuplicateKeyError as err:
        raise ConfigError(f"{path} {err}") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"{path} is not valid YAML: {err}") from None


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config, apply ``key.path=value`` overrides, and validate it."""
    path = Path(path)
    raw = read_yaml_file(path)
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: a config is a mapping of sections, got {type(raw).__name__}")
    for item in overrides or []:
        apply_override(raw, item)
    try:
        return validate_config(raw)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None


MAX_KEY_PARTS = 16
"""Most dotted parts an override's key path may have (``env.options.x`` has 3)."""


def apply_override(raw: dict[str, Any], item: str) -> None:
    """Set ``a.b.c=value`` in ``raw``; the value is read as YAML (``3e-4``, ``[64, 64]``)."""
    key, value = parse_assignment(item, "override", "key.path=value")
    parts = key.split(".")
    if len(parts) > MAX_KEY_PARTS:
        raise ConfigError(
            f"override {short_repr(item, 60)}: a key path of {len(parts)} parts; allowed: at "
            f"most {MAX_KEY_PARTS} (a config nests a few levels)"
        )
    node = raw
    for i, part in enumerate(parts[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(
                f"override {item!r}: {'.'.join(parts[: i + 1])} is a value, not a section"
            )
        node = child
    node[parts[-1]] = value


def parse_assignment(item: str, what: str, shape: str = "key=value") -> tuple[str, Any]:
    """``key=value`` as (key, value read as YAML: ``4``, ``true``, ``[1, 2]``, ``null``);
    a :class:`ConfigError` names ``what`` was given (an override, an ``--option``)."""
    key, sep, text = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"{what} {item!r} must look like {shape}")
    try:
        return key, read_yaml(text)
    except InputError as err:
        raise ConfigError(f"{what} {short_repr(item, 60)}: {err}") from None
    except DuplicateKeyError as err:
        raise ConfigError(f"{what} {item!r}: {str(err).split(': ', 1)[1]}") from None
    except yaml.YAMLError as err:
        problem = getattr(err, "problem", None) or str(err)
        raise ConfigError(f"{what} {item!r}: the value is not valid YAML ({problem})") from None


def validate_config(raw: dict[str, Any]) -> TrainConfig:
    """Validate a raw config dict: the common sections, the ``algo`` section
    against its learner's parameters, the env options by building the env, then
    the bot specs against that env."""
    try:
        config = TrainConfig.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(describe_errors(err, TrainConfig)) from None
    learner = get_learner_or_error(config.algo.name)
    try:
        params = learner.params_model.model_validate(raw["algo"])
    except ValidationError as err:
        raise ConfigError(describe_errors(err, learner.params_model, prefix=("algo",))) from None
    config.algo = params
    observation_size, num_actions = check_env(config.env)
    size = input_size(observation_size, num_actions, config.env.advisor)
    problems = learner.check(params, config.n_envs, size, num_actions)
    problems += advisor_problems(config, learner)
    problems += relative_reward_problems(config, learner)
    problems += [
        f"{key} = {raw[key]!r:.80} does not apply to algo.name {params.name!r}: {why}; drop it"
        for key, why in learner.unused_keys.items()
        if key in raw and not is_default(config, key)
    ]
    if problems:
        raise ConfigError("; ".join(problems))
    check_batched(config, "batched" in raw and config.batched != BatchedConfig())
    check_bots(config)
    return config


def is_default(config: TrainConfig, key: str) -> bool:
    """Whether the top-level ``key`` holds its default (as a resolved config.yaml
    lists it), so a learner that does not read it need not refuse it."""
    field = TrainConfig.model_fields[key]
    return getattr(config, key) == field.get_default(call_default_factory=True)


def check_batched(config: TrainConfig, given: bool) -> None:
    """The ``batched`` section applies to ``vec_env: batched`` only (``given``: with
    other than its defaults), and its engine must exist for the env and play its options."""
    if config.vec_env != "batched":
        if given:
            raise ConfigError(
                f"batched: {config.batched.model_dump()} given, but vec_env is "
                f"{config.vec_env!r}; the batched section applies to vec_env: batched "
                "only (set it, or drop the section)"
            )
        return
    if config.batched.workers > config.n_envs:
        raise ConfigError(
            f"batched.workers = {config.batched.workers} with n_envs = {config.n_envs}: "
            f"allowed: 1 to {config.n_envs} (each worker plays a slice of the n_envs games)"
        )

    try:
        engine = resolve_engine(config.env.id, config.batched.engine)
    except OptionError as err:
        raise ConfigError(f"batched.engine = {config.batched.engine!r}: {err}") from None
    if engine == "vector":
        problem = vector_engine_problem(config.env.id, config.env.options, config.batched.dealing)
        if problem:
            raise ConfigError(f"env.options with batched.engine 'vector': {problem}")


def advisor_problems(config: TrainConfig, learner: Any) -> list[str]:
    """An advisor needs a learner that reads it, a heuristic bot, and the scalar
    engine (the vectorised Asrus engine builds no views for it)."""
    if config.env.advisor == "none":
        return []
    if not learner.reads_advice:
        return [
            f"env.advisor = {config.env.advisor!r} does not apply to algo.name "
            f"{learner.name!r}; allowed with it: 'none'"
        ]
    if config.vec_env == "batched" and uses_vector_engine(config):
        return [
            f"env.advisor = {config.env.advisor!r} with batched.engine "
            f"{config.batched.engine!r}: the vectorised engine builds no views for the "
            "advisor; allowed with an advisor: batched.engine: scalar"
        ]
    return []


def relative_reward_problems(config: TrainConfig, learner: Any) -> list[str]:
    """A relative reward pays changes of points: it needs ``reward: score`` and a
    learner whose envs pay it."""
    if not config.env.relative_reward:
        return []
    problems = []
    reward = config.env.options.get("reward", "win")
    if reward != "score":
        problems.append(
            f"env.relative_reward = true with env.options.reward {reward!r}: it pays changes "
            "of points; allowed with it: reward: score"
        )
    if not learner.pays_relative_reward:
        problems.append(
            f"env.relative_reward = true does not apply to algo.name {learner.name!r}; "
            "allowed with it: false"
        )
    return problems


def uses_vector_engine(config: TrainConfig) -> bool:
    """Whether ``batched.engine`` picks the vectorised engine for this env."""
    return config.batched.engine == "vector" or (
        config.batched.engine == "auto" and has_vector_engine(config.env.id)
    )


def get_learner_or_error(name: str) -> Any:
    try:
        return get_learner(name)
    except KeyError:
        raise ConfigError(
            f"algo.name = {name!r} is not a registered learner; allowed: "
            f"{', '.join(learner_names())}"
        ) from None


def check_env(env: EnvConfig) -> tuple[int, int]:
    """The env id must be registered and its options accepted by the env itself;
    returns its observation size and number of actions."""
    if env.id not in list_envs():
        raise ConfigError(
            f"env.id = {env.id!r} is not a registered env; allowed: {', '.join(list_envs())}"
        )
    try:
        observation_size, num_actions, _ = env_shapes(env.id, env.options)
    except OptionError as err:
        raise ConfigError(f"env.options: {err}") from None
    return observation_size, num_actions


def check_bots(config: TrainConfig) -> None:
    """Every bot spec must seat at this env: a heuristic it has, a checkpoint trained
    for it. Checked when the config is loaded, not an hour into the run."""
    env = config.env
    for key, specs in (
        ("opponents.pool", config.opponents.pool),
        ("eval.opponents", config.eval.opponents),
    ):
        for i, spec in enumerate(specs):
            try:
                make_participant(spec, env.id, env.options)
            except (BotSpecError, CheckpointError) as err:
                raise ConfigError(f"{key}[{i}] = {spec!r}: {err}") from None
    if config.pretrain.games:
        try:
            make_participant(config.pretrain.teacher, env.id, env.options)
        except (BotSpecError, CheckpointError) as err:
            raise ConfigError(f"pretrain.teacher = {config.pretrain.teacher!r}: {err}") from None


def describe_errors(
    err: ValidationError, model: type[BaseModel], prefix: tuple[str, ...] = ()
) -> str:
    """One line per problem: the dotted key, the value given, and what is allowed."""
    lines = []
    for problem in err.errors():
        raw_loc = problem["loc"]
        loc = tuple(str(p) for p in raw_loc)
        key = dotted(prefix + tuple(raw_loc))
        if problem["type"] == "extra_forbidden":
            allowed = ", ".join(fields_at(model, loc[:-1]))
            lines.append(f"unknown key {key}; allowed keys here: {allowed}")
        elif problem["type"] == "missing":
            lines.append(f"missing key {key} ({field_description(model, loc)})")
        else:
            line = f"{key} = {problem['input']!r}: {problem['msg']}"
            bounds = bounds_text(constraints_at(model, tuple(raw_loc)), key)
            if bounds and problem["type"] in BOUND_ERRORS:
                line += f"; allowed: {bounds}"
            lines.append(line)
    return "invalid config: " + "; ".join(lines)


BOUND_ERRORS = {
    "greater_than",
    "greater_than_equal",
    "less_than",
    "less_than_equal",
    "finite_number",
    "int_parsing",
    "int_from_float",
    "float_parsing",
}


def dotted(loc: tuple[Any, ...]) -> str:
    """``("algo", "net_arch", 0)`` -> ``algo.net_arch[0]``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def constraints_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[Any]:
    """The bounds (annotated_types metadata) of the field, or list item, at ``loc``."""
    names = [p for p in loc if isinstance(p, str)]
    if not names:
        return []
    section = section_at(model, tuple(names[:-1]))
    field = section.model_fields.get(names[-1]) if section else None
    if field is None:
        return []
    if isinstance(loc[-1], int):  # an item of a list field: its own Annotated bounds
        (item,) = typing.get_args(field.annotation) or (None,)
        return [
            bound
            for info in getattr(item, "__metadata__", ())
            if isinstance(info, FieldInfo)
            for bound in info.metadata
        ]
    return list(field.metadata)


def bounds_text(constraints: list[Any], key: str) -> str:
    """``1 <= n_envs <= 256`` from a field's bounds ('' if it has none)."""
    low = high = ""
    for bound in constraints:
        if isinstance(bound, annotated_types.Ge):
            low = f"{bound.ge} <= "
        elif isinstance(bound, annotated_types.Gt):
            low = f"{bound.gt} < "
        elif isinstance(bound, annotated_types.Le):
            high = f" <= {bound.le}"
        elif isinstance(bound, annotated_types.Lt):
            high = f" < {bound.lt}"
    return f"{low}{key}{high}" if low or high else ""


def section_at(model: type[BaseModel], loc: tuple[str, ...]) -> type[BaseModel] | None:
    """The (nested) section model at ``loc``, or None where ``loc`` leaves the models."""
    for part in loc:
        field = model.model_fields.get(part)
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return None
        model = annotation
    return model


def fields_at(model: type[BaseModel], loc: tuple[str, ...]) -> list[str]:
    """Names of the keys allowed in the section at ``loc``."""
    section = section_at(model, loc)
    return list(section.model_fields) if section else []


def field_description(model: type[BaseModel], loc: tuple[str, ...]) -> str:
    section = section_at(model, loc[:-1])
    field = section.model_fields.get(loc[-1]) if section and loc else None
    return (field.description or "") if field else ""


def config_to_yaml(config: TrainConfig) -> str:
    """The resolved config (every default filled in) as YAML, for the run folder;
    the ``batched`` section only with ``vec_env: batched`` (elsewhere it is refused)."""
    exclude = None if config.vec_env == "batched" else {"batched"}
    data = config.model_dump(mode="json", exclude=exclude)
    return yaml.dump(data, Dumper=StrictDumper, sort_keys=False)


__all__ = [
    "BatchedConfig",
    "ConfigError",
    "EnvConfig",
    "EvalConfig",
    "OpponentsConfig",
    "OutputConfig",
    "TrainConfig",
    "apply_override",
    "config_to_yaml",
    "load_config",
    "parse_assignment",
    "read_yaml",
    "validate_config",
]
