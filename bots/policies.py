"""Trained policies and bot specs: everything that can sit at a table.

* A checkpoint is a zip (:mod:`flockgym.bots.checkpoints`) of the policy
  network's weights and a ``flockgym.json`` member saying which env, options
  and shapes it was trained for. :func:`load_policy` reads and checks that
  first (every field, and the size of the network it implies), so a wrong file
  or a mismatched env fails with a message naming both sides, then loads the
  weights only: tensors, nothing that runs.
* A :class:`Policy` answers ``act(observation, action_mask) -> action``;
  :class:`PolicyBot` adapts it to the env's ``Bot`` protocol
  (``act(observation_dict, view)``).
* A bot spec string names a participant anywhere one is asked for:
  ``random``, ``heuristic``, or a checkpoint path (``path/to/ckpt.zip``, a
  run folder for its final policy, or the name of a shipped checkpoint such as
  ``asrus/ppo_5p``: :mod:`flockgym.bots.shipped`), optionally suffixed ``@greedy`` (the
  default: the most probable legal move) or ``@sample`` (drawn from the policy);
  or ``search`` with optional settings, ``search:budget=1s,rollout=heuristic``
  (:mod:`flockgym.bots.search`). In a comma-separated list of specs, the
  ``KEY=VALUE`` items after a ``search:`` are its settings; the next item without
  ``=`` starts the next spec (``search:budget=200,rollout=random,heuristic`` is two);
  or ``ismcts`` with optional settings, ``ismcts:budget=1s,prior=skybirds/ppo_2p``
  (:mod:`flockgym.bots.ismcts`, the tree search), whose settings group the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from flockgym.bots.advice import ADVISORS, Advisor, input_size
from flockgym.bots.checkpoints import META_MEMBER, CheckpointArchive, json_bytes
from flockgym.bots.ismcts import Evaluator, IsmctsBot, IsmctsSettings, parse_ismcts_settings
from flockgym.bots.search import SearchBot, SearchSettings, parse_settings
from flockgym.bots.shipped import find_shipped
from flockgym.common.errors import BotSpecError, CheckpointError
from flockgym.envs import Bot, OptionError, entry, make, make_bot
from flockgym.envs.core.rng import make_rng
from flockgym.envs.core.validate import short_repr

if TYPE_CHECKING:
    from flockgym.training.learners import Learner

CHECKPOINT_FORMAT = "flockgym-checkpoint"
CHECKPOINT_VERSION = 1
PLAY_MODES = ("greedy", "sample")
Play = Literal["greedy", "sample"]
MAX_SHAPE = 10_000_000
"""Largest observation size or action count a checkpoint may claim."""


# ---- checkpoint metadata ---------------------------------------------------------


@dataclass(frozen=True)
class CheckpointMeta:
    """What a checkpoint was trained for: written beside the weights in the zip."""

    env_id: str
    env_options: dict[str, Any]
    observation_size: int
    num_actions: int
    algo: str
    network: dict[str, Any]
    steps: int = 0
    seed: int = 0
    git_commit: str = "unknown"
    extra: dict[str, Any] = field(default_factory=dict)
    advisor: str = "none"
    """``heuristic``: the network also reads the heuristic's suggested move
    (bots/advice.py); its input is then ``observation_size + num_actions``."""

    @property
    def input_size(self) -> int:
        """The network's input size (the observation, plus the advice if any)."""
        return input_size(self.observation_size, self.num_actions, self.advisor)

    def describe(self) -> str:
        options = ", ".join(f"{k}={v!r}" for k, v in sorted(self.env_options.items()))
        return (
            f"{self.env_id} ({options or 'default options'}; observation "
            f"({self.observation_size},), {self.num_actions} actions)"
        )


def env_shapes(env_id: str, env_options: dict[str, Any]) -> tuple[int, int, dict[str, Any]]:
    """Observation size, number of actions and resolved options of an env config."""
    env = make(env_id, **env_options).unwrapped
    agent = env.possible_agents[0]
    size = int(env.observation_space(agent)["observation"].shape[0])
    options = {k: v for k, v in env.options.items() if k != "render_mode"}
    return size, int(env.action_space(agent).n), options


def meta_member(meta: CheckpointMeta) -> dict[str, bytes]:
    """The ``flockgym.json`` member of a checkpoint zip."""
    payload = {"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, **asdict(meta)}
    return {META_MEMBER: json_bytes(payload)}


def read_meta(archive: CheckpointArchive) -> CheckpointMeta:
    """The metadata of a checkpoint, every field checked; :class:`CheckpointError`
    names the field and what is allowed."""
    path = archive.path
    if META_MEMBER not in archive.names():
        raise CheckpointError(
            f"{path} is not a flockgym checkpoint: the zip has no {META_MEMBER} "
            f"(train with `flockgym train` to make one)"
        )
    payload = archive.json(META_MEMBER)
    if not isinstance(payload, dict):
        raise CheckpointError(f"{path}: {META_MEMBER} is not a JSON object")
    if payload.get("format") != CHECKPOINT_FORMAT or payload.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(
            f"{path}: unknown checkpoint format {payload.get('format')!r} version "
            f"{payload.get('version')!r}; expected {CHECKPOINT_FORMAT!r} {CHECKPOINT_VERSION}"
        )
    fields = {k: v for k, v in payload.items() if k not in ("format", "version")}
    problems = meta_problems(fields)
    if problems:
        raise CheckpointError(f"{path}: {META_MEMBER}: " + "; ".join(problems))
    return CheckpointMeta(**fields)


META_FIELDS: dict[str, tuple[type, str]] = {
    "env_id": (str, "a string"),
    "env_options": (dict, "a mapping"),
    "observation_size": (int, f"an integer from 1 to {MAX_SHAPE:,}"),
    "num_actions": (int, f"an integer from 1 to {MAX_SHAPE:,}"),
    "algo": (str, "a string"),
    "network": (object, "the learner's network config"),
    "steps": (int, "an integer >= 0"),
    "seed": (int, "an integer >= 0"),
    "git_commit": (str, "a string"),
    "extra": (dict, "a mapping"),
    "advisor": (str, f"one of {', '.join(ADVISORS)}"),
}
META_RANGES = {
    "observation_size": (1, MAX_SHAPE),
    "num_actions": (1, MAX_SHAPE),
    "steps": (0, None),
    "seed": (0, None),
}
REQUIRED_META = ("env_id", "env_options", "observation_size", "num_actions", "algo", "network")


def in_range(key: str, value: int) -> bool:
    low, high = META_RANGES.get(key, (None, None))
    return (low is None or value >= low) and (high is None or value <= high)


def meta_problems(fields: dict[str, Any]) -> list[str]:
    """Every field of ``flockgym.json`` of the right type and range (one line each)."""
    problems = [f"unknown field {k!r:.80}" for k in fields if k not in META_FIELDS]
    problems += [f"missing field {k!r}" for k in REQUIRED_META if k not in fields]
    for key, value in fields.items():
        if key not in META_FIELDS:
            continue
        kind, allowed = META_FIELDS[key]
        wrong_type = not isinstance(value, kind) or (kind is int and isinstance(value, bool))
        if wrong_type or not in_range(key, value):
            problems.append(f"{key} = {value!r:.80}: allowed: {allowed}")
        elif key == "env_options" and not all(isinstance(k, str) for k in value):
            problems.append(f"{key}: allowed: a mapping of option names")
        elif key == "advisor" and value not in ADVISORS:
            problems.append(f"{key} = {value!r:.80}: allowed: {allowed}")
    return problems


# ---- policies -------------------------------------------------------------------------


class Policy:
    """A trained policy: legal moves for observations, one at a time or in batches.

    * ``act(observation, action_mask) -> action``: one decision (the observation
      vector and its mask, or the env's observation dict alone);
    * ``act_batch(observations[B, D], masks[B, A]) -> actions[B]``: ``B``
      decisions in one forward pass of the network (tournaments batch every
      table's decisions this way; batched opponents can too);
    * ``probabilities`` / ``probabilities_batch``: the distribution over actions,
      zero on every masked action.

    ``play='greedy'`` picks the most probable legal action; ``'sample'`` draws
    one from the policy's probabilities with a seeded generator (the policy's
    own, or one per row given to ``act_batch``). Every action returned is legal
    under its mask; a mask with no legal action is an error.
    """

    def __init__(
        self, network: Any, meta: CheckpointMeta, play: Play = "greedy", seed: int | None = None
    ) -> None:
        from flockgym.training.learners import get_learner  # torch: the training extra

        if play not in PLAY_MODES:
            raise ValueError(f"play={play!r}; allowed: {', '.join(PLAY_MODES)}")
        self.network = network
        self.meta = meta
        self.learner = get_learner(meta.algo)
        self.play = play
        self.rng = make_rng(seed)

    @property
    def observation_size(self) -> int:
        return self.meta.observation_size

    @property
    def num_actions(self) -> int:
        return self.meta.num_actions

    @property
    def input_size(self) -> int:
        """What the network reads: the observation, plus the advice of an advised policy."""
        return self.meta.input_size

    @property
    def advised(self) -> bool:
        """Whether the network also reads an advisor's move (bots/advice.py): its
        bots then read views, and :meth:`act` / :meth:`act_batch` take the input
        vectors (observation and advice) that :meth:`PolicyBot.network_input` builds."""
        return self.meta.advisor != "none"

    def act(self, observation: Any, action_mask: Any = None) -> int:
        """The move for ``observation`` (the vector, or the env's dict with its mask;
        for an advised policy the network input, or use :meth:`as_bot`)."""
        return self.choose(observation, action_mask, self.play, self.rng)

    def act_batch(
        self,
        observations: Any,
        masks: Any,
        play: Play | None = None,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray:
        """Actions (``int64``, shape ``(B,)``) for ``observations`` of shape ``(B, D)``
        (the network's inputs: for an advised policy each row is the observation
        followed by the advice, :meth:`PolicyBot.network_input`) and ``masks`` of
        shape ``(B, A)`` (1 or True where legal), in one forward pass. ``play``
        defaults to the policy's; ``rngs`` gives each row its own generator for
        ``'sample'`` (default: the policy's own, row after row).
        Row ``i`` gets the action ``act(observations[i], masks[i])`` would choose,
        up to floating-point differences between batch sizes."""
        play = play or self.play
        if play not in PLAY_MODES:
            raise ValueError(f"play={play!r}; allowed: {', '.join(PLAY_MODES)}")
        vectors, legal = self._check_batch(observations, masks)
        if rngs is not None and len(rngs) != vectors.shape[0]:
            raise ValueError(f"rngs: {len(rngs)} generators for {vectors.shape[0]} rows")
        logits = self._masked_logits(vectors, legal)
        if play == "greedy":
            return np.argmax(logits, axis=1).astype(np.int64)
        probs = softmax(logits)
        return sample_rows(probs, rngs if rngs is not None else [self.rng] * len(probs))

    def probabilities(self, observation: Any, action_mask: Any = None) -> np.ndarray:
        """The policy's distribution over actions, zero on every masked action."""
        vector, mask = self._split(observation, action_mask)
        return self.probabilities_batch(vector[None, :], mask[None, :])[0]

    def probabilities_batch(self, observations: Any, masks: Any) -> np.ndarray:
        """Distributions of shape ``(B, A)`` for a batch, zero on masked actions."""
        vectors, legal = self._check_batch(observations, masks)
        return softmax(self._masked_logits(vectors, legal))

    def choose(
        self, observation: Any, action_mask: Any, play: Play, rng: np.random.Generator
    ) -> int:
        vector, mask = self._split(observation, action_mask)
        return int(self.act_batch(vector[None, :], mask[None, :], play, [rng])[0])

    def as_bot(self, play: Play | None = None, seed: int | None = None) -> PolicyBot:
        """This policy as an env ``Bot`` (``act(observation_dict, view)``)."""
        return PolicyBot(self, play or self.play, seed)

    def check_env(self, env_id: str, env_options: dict[str, Any]) -> None:
        """Raise :class:`CheckpointError` unless this policy fits that env config."""
        try:
            size, actions, options = env_shapes(env_id, env_options)
        except OptionError as err:
            raise CheckpointError(f"cannot build {env_id} to check the checkpoint: {err}") from None
        if (env_id, size, actions) != (
            self.meta.env_id,
            self.meta.observation_size,
            self.meta.num_actions,
        ):
            asked = CheckpointMeta(env_id, options, size, actions, "", {})
            raise CheckpointError(
                f"checkpoint was trained for {self.meta.describe()}; asked to play "
                f"{asked.describe()}"
            )

    def _masked_logits(self, vectors: np.ndarray, legal: np.ndarray) -> np.ndarray:
        logits = self.learner.action_logits(self.network, vectors).astype(np.float64)
        logits[~legal] = -np.inf
        return logits

    def _check_batch(self, observations: Any, masks: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(B, D)`` float32 observations and ``(B, A)`` boolean masks, checked."""
        vectors = np.asarray(observations, dtype=np.float32)
        legal = np.asarray(masks)
        size, actions = self.input_size, self.meta.num_actions
        if vectors.ndim != 2 or vectors.shape[1] != size:
            raise CheckpointError(
                f"observations of shape {vectors.shape}; expected (batch, {size}): this "
                f"policy was trained on {self.meta.describe()}{self._advice_note()}"
            )
        if legal.shape != (vectors.shape[0], actions):
            raise ValueError(
                f"masks of shape {legal.shape}; expected ({vectors.shape[0]}, {actions}): one "
                "row of action-mask entries per observation"
            )
        legal = legal.astype(bool)
        empty = np.flatnonzero(~legal.any(axis=1))
        if empty.size:
            raise ValueError(
                f"the action mask of row {int(empty[0])} has no legal action (a seat that "
                "is not to act has nothing to choose)"
            )
        return vectors, legal

    def _split(self, observation: Any, action_mask: Any) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(observation, dict):
            if action_mask is None:
                action_mask = observation["action_mask"]
            observation = observation["observation"]
        vector = np.asarray(observation, dtype=np.float32).reshape(-1)
        if vector.size != self.input_size:
            raise CheckpointError(
                f"observation of size {vector.size}; this policy was trained on "
                f"{self.meta.describe()}{self._advice_note()}"
            )
        if action_mask is None:
            raise ValueError("act() needs the action mask (or the env's observation dict)")
        mask = np.asarray(action_mask).reshape(-1).astype(bool)
        if mask.size != self.meta.num_actions or not mask.any():
            raise ValueError(
                f"action mask must have {self.meta.num_actions} entries with at least one "
                f"legal action; got {mask.size} entries, {int(mask.sum())} legal"
            )
        return vector, mask

    def _advice_note(self) -> str:
        if not self.advised:
            return ""
        return (
            f" with the {self.meta.advisor} as its advisor: it reads {self.input_size} inputs, "
            "the observation and then the advice (play it with as_bot(), whose act(observation, "
            "view) asks the advisor)"
        )


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax of float64 logits, ``-inf`` (masked) giving exactly 0."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=1, keepdims=True)


def sample_rows(probs: np.ndarray, rngs: Sequence[np.random.Generator]) -> np.ndarray:
    """Row ``i``'s action drawn from ``rngs[i]``: the very action (and generator
    state after it) of ``rngs[i].choice(A, p=probs[i])``, which draws one
    ``random()`` and searches it in the normalised cumulative sum of the row
    (``searchsorted(side='right')``: the count of entries at or below it). Here
    the sums and the search run on every row at once, one ``random()`` per row
    from its own generator, in row order (the same generator may appear on
    several rows); ``probs`` ``[B, A]`` float64 rows summing to 1."""
    if len(rngs) != len(probs):
        raise ValueError(f"{len(rngs)} generators for {len(probs)} rows")
    cdf = probs.cumsum(axis=1)
    cdf /= cdf[:, -1:]
    uniforms = np.array([rng.random() for rng in rngs])
    return (cdf <= uniforms[:, None]).sum(axis=1).astype(np.int64)


class PolicyBot:
    """A :class:`Policy` seated as an env bot: the env's ``Bot`` protocol. An
    advised policy's bot keeps its seat's advisor (bots/advice.py), seeded
    from the bot's seed, and asks it once per decision."""

    def __init__(self, policy: Policy, play: Play = "greedy", seed: int | None = None) -> None:
        self.policy = policy
        self.play = play
        self.rng = make_rng(seed)
        self.advisor: Advisor | None = None
        if policy.advised:
            self.advisor = Advisor(
                policy.meta.env_id, policy.meta.advisor, policy.meta.num_actions, advisor_seed(seed)
            )

    def network_input(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> np.ndarray:
        """What the network reads for this decision: the observation vector, followed
        by the advisor's move for an advised policy (asked here, once per decision)."""
        if self.advisor is None:
            return np.asarray(observation["observation"], dtype=np.float32).reshape(-1)
        return self.advisor.network_input(observation, view)

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        vector = self.network_input(observation, view)
        return self.policy.choose(vector, observation["action_mask"], self.play, self.rng)


def advisor_seed(seed: int | None) -> int | None:
    """The seed of an advised bot's advisor: derived from the bot's own, so that the
    two generators do not draw the same stream."""
    if seed is None:
        return None
    return int(np.random.SeedSequence([seed, 0xAD]).generate_state(1, np.uint64)[0] >> 1)


def load_policy(
    path: str | Path,
    *,
    play: Play = "greedy",
    seed: int | None = None,
    env_id: str | None = None,
    env_options: dict[str, Any] | None = None,
) -> Policy:
    """The policy of a checkpoint; with ``env_id``, checked against that env config.

    A missing, malformed or mismatched file raises :class:`CheckpointError`
    naming what the checkpoint was trained for and what is asked. Nothing in the
    file is executed: the metadata is JSON, the weights are read weights-only,
    and every size is checked before anything is inflated or built.
    """
    if not Path(path).exists():  # a shipped checkpoint's name (asrus/ppo_5p) from any folder
        path = find_shipped(str(path), "checkpoint") or path
    from flockgym.training.learners import advice_actions  # torch: the training extra

    with CheckpointArchive(path) as archive:
        meta, learner = read_meta_and_learner(archive)
        network = learner.load_network(
            archive, meta.network, meta.input_size, meta.num_actions, advice_actions(meta)
        )
    policy = Policy(network, meta, play=play, seed=seed)
    if env_id is not None:
        policy.check_env(env_id, env_options or {})
    return policy


def read_meta_and_learner(archive: CheckpointArchive) -> tuple[CheckpointMeta, Learner]:
    """The checked metadata and its learner, with the network it describes checked
    (shape and size) before anything is built."""
    from flockgym.training.learners import get_learner  # torch: the training extra

    meta = read_meta(archive)
    try:
        learner = get_learner(meta.algo)
    except KeyError:
        raise CheckpointError(
            f"{archive.path}: trained with unknown learner {meta.algo!r}"
        ) from None
    problems = learner.network_problems(meta.network, meta.input_size, meta.num_actions, "network.")
    if meta.advisor != "none" and not learner.reads_advice:
        problems.append(f"advisor = {meta.advisor!r} with algo {meta.algo!r}: allowed: 'none'")
    if problems:
        raise CheckpointError(f"{archive.path}: {META_MEMBER}: " + "; ".join(problems))
    return meta, learner


@lru_cache(maxsize=64)
def _cached_policy(path: str, mtime_ns: int) -> Policy:
    return load_policy(path)


def shared_policy(path: str | Path) -> Policy:
    """``load_policy`` once per file and process: self-play envs in one process
    share the network (each seat draws with its own generator)."""
    path = Path(path).resolve()
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} does not exist")
    return _cached_policy(str(path), path.stat().st_mtime_ns)


# ---- bot specs -----------------------------------------------------------------------


@dataclass(frozen=True)
class BotSpec:
    """A parsed bot spec: a baseline bot kind, or a checkpoint and how it plays."""

    text: str
    kind: Literal["random", "heuristic", "checkpoint", "search", "ismcts"]
    path: Path | None = None
    play: Play = "greedy"
    search: SearchSettings | None = None
    """The settings of a ``search`` spec."""
    ismcts: IsmctsSettings | None = None
    """The settings of an ``ismcts`` spec."""


SPEC_HELP = (
    "a bot spec is 'random', 'heuristic', or a checkpoint: path/to/file.zip, a run "
    "folder or a shipped checkpoint's name (`flockgym list`, e.g. asrus/ppo_5p), "
    "optionally with @greedy (default) or @sample; or search[:budget=1s,rollout=heuristic]; "
    "or ismcts[:budget=1s,prior=<checkpoint spec>]"
)


def parse_spec(text: str) -> BotSpec:
    """Parse one bot spec (see the module docstring); :class:`BotSpecError` if it names nothing."""
    cleaned = text.strip()
    if not cleaned:
        raise BotSpecError(f"empty bot spec; {SPEC_HELP}")
    if cleaned in ("random", "heuristic"):
        return BotSpec(cleaned, cleaned)
    if cleaned == "search" or cleaned.startswith("search:"):
        items = [item for item in cleaned[len("search:") :].split(",") if item.strip()]
        settings = parse_settings(items)
        parse_spec(settings.rollout)  # names a bot (the env is checked when it is made)
        return BotSpec(cleaned, "search", search=settings)
    if cleaned == "ismcts" or cleaned.startswith("ismcts:"):
        items = [item for item in cleaned[len("ismcts:") :].split(",") if item.strip()]
        tree = parse_ismcts_settings(items)
        parse_spec(tree.rollout)
        if tree.prior:
            parse_spec(tree.prior)
        return BotSpec(cleaned, "ismcts", ismcts=tree)
    target, _, play = cleaned.rpartition("@") if "@" in cleaned else (cleaned, "", "greedy")
    if play not in PLAY_MODES:
        raise BotSpecError(f"bot spec {text!r}: unknown play mode @{play}; {SPEC_HELP}")
    try:
        path = spec_path(target, text)
    except OSError as err:  # a name past the system's limit, a folder that cannot be read
        raise BotSpecError(
            f"bot spec {short_repr(text, 60)}: cannot be read as a checkpoint path "
            f"({err.strerror}); {SPEC_HELP}"
        ) from None
    return BotSpec(cleaned, "checkpoint", path, play)  # type: ignore[arg-type]


def spec_path(target: str, text: str) -> Path:
    """The checkpoint a spec names: a shipped name, a run folder or a ``.zip``."""
    path = Path(target)
    shipped = None if path.exists() else find_shipped(target, "checkpoint")
    if shipped is not None:
        return shipped
    if path.is_dir():
        return run_policy_file(path)
    if path.suffix != ".zip":
        raise BotSpecError(f"unknown bot spec {short_repr(text, 300)}; {SPEC_HELP}")
    if not path.is_file():
        raise BotSpecError(f"bot spec {short_repr(text, 300)}: checkpoint {path} does not exist")
    return path


MAX_BOT_SPECS = 64
"""Most bot specs one list may name (``--players``, ``--opponents``): a table
seats at most 9, and each participant loads its own model, so 10,000 would
exhaust memory before the first game."""


def parse_specs(text: str) -> list[BotSpec]:
    """Comma-separated bot specs; the ``KEY=VALUE`` items that follow a
    ``search:`` belong to that search (no other spec holds ``=``), up to the
    next item that names a spec (``search:budget=20`` starts a second search)."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise BotSpecError(f"no bot specs in {text!r}; {SPEC_HELP}")
    if len(items) > MAX_BOT_SPECS:
        raise BotSpecError(
            f"{len(items):,} bot specs given; allowed: at most {MAX_BOT_SPECS} in one list"
        )
    specs: list[str] = []
    for item in items:
        setting = "=" in item and ":" not in item.split("=", 1)[0]
        if setting and specs and specs[-1].startswith(("search:", "ismcts:")):
            specs[-1] += "," + item
        else:
            specs.append(item)
    return [parse_spec(item) for item in specs]


def run_policy_file(run_dir: Path) -> Path:
    """The policy a run folder stands for: its final policy, else its newest checkpoint."""
    final = run_dir / "final.zip"
    if final.is_file():
        return final
    checkpoints = sorted((run_dir / "checkpoints").glob("*.zip"))
    if not checkpoints:
        raise BotSpecError(f"{run_dir} is a folder with no final.zip and no checkpoints/*.zip")
    return checkpoints[-1]


# ---- participants ----------------------------------------------------------------------


@dataclass
class Participant:
    """A bot spec made concrete for one env: a name and a factory of fresh bots
    (one per seat and game, each with its own seed). ``reads_view=False`` says
    its bots ignore the ``view`` argument, so self-play need not build it;
    ``reads_observation=False`` that they read only the observation's
    ``action_mask``, so batched self-play gives them that alone (the random and
    heuristic bots: the heuristics read the view).

    ``kind`` (``random``, ``heuristic``, ``policy``, ``advised_policy``;
    ``custom`` for anything else) and, for a policy, ``policy`` and ``play`` let
    batched self-play decide for many seats at once (one forward pass for every
    seat of a policy, the vectorised heuristic where an env has one) as its bots
    would. An advised policy's seats are batched too, each row its bot's
    :meth:`PolicyBot.network_input`; the vectorised engines do not seat them."""

    name: str
    new_bot: Callable[[int], Bot]
    spec: str = ""
    reads_view: bool = True
    kind: str = "custom"
    policy: Policy | None = None
    play: Play = "greedy"
    reads_observation: bool = True


def make_participant(
    spec: BotSpec | str,
    env_id: str,
    env_options: dict[str, Any] | None = None,
    name: str | None = None,
) -> Participant:
    """Check ``spec`` against the env (heuristic available, checkpoint shapes) and
    return a participant that makes its bots."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    label = name or spec.text
    if spec.kind == "search":
        assert spec.search is not None
        return Participant(
            label, search_factory(spec.search, env_id, env_options or {}), spec.text, True
        )
    if spec.kind == "ismcts":
        assert spec.ismcts is not None
        return Participant(
            label, ismcts_factory(spec.ismcts, env_id, env_options or {}), spec.text, True
        )
    if spec.kind == "random":
        return Participant(
            label,
            lambda seed: make_bot(env_id, "random", seed),
            spec.text,
            False,
            "random",
            reads_observation=False,
        )
    if spec.kind == "heuristic":
        check_heuristic(env_id)
        return Participant(
            label,
            lambda seed: make_bot(env_id, "heuristic", seed),
            spec.text,
            True,
            "heuristic",
            reads_observation=False,
        )
    assert spec.path is not None
    policy = shared_policy(spec.path)
    policy.check_env(env_id, env_options or {})
    return policy_participant(label, policy, spec.play, spec.text)


def policy_participant(name: str, policy: Policy, play: Play, spec: str = "") -> Participant:
    """A participant whose bots all play ``policy`` (each seat with its own generator).
    An advised policy's bots read views (their advisors do): kind ``advised_policy``."""
    kind = "advised_policy" if policy.advised else "policy"
    return Participant(
        name,
        lambda seed: policy.as_bot(play, seed),
        spec or name,
        policy.advised,
        kind,
        policy,
        play,
    )


def check_heuristic(env_id: str) -> None:
    """Fail early, and clearly, if the env's heuristic bot cannot be built."""
    try:
        make_bot(env_id, "heuristic", 0)
    except (ImportError, AttributeError) as err:
        raise BotSpecError(
            f"the heuristic bot of {env_id} ({entry(env_id).heuristic_bot}) is not available: {err}"
        ) from None


def unique_names(names: list[str]) -> list[str]:
    """``random, random`` -> ``random, random#2``: tables need distinct names."""
    seen: dict[str, int] = {}
    result = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        result.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return result


def search_factory(
    settings: SearchSettings, env_id: str, env_options: dict[str, Any]
) -> Callable[[int], SearchBot]:
    """A factory of search bots for one env (one per seat and game, each seeded),
    rolling out with the participant its rollout spec makes; builds one first so a
    wrong rollout or an env without resampler fails here."""
    rollout = make_participant(settings.rollout, env_id, env_options)
    SearchBot(env_id, env_options, settings, 0, rollout_bots=rollout.new_bot)

    def new_bot(seed: int) -> SearchBot:
        return SearchBot(env_id, env_options, settings, seed, rollout_bots=rollout.new_bot)

    return new_bot


def ismcts_factory(
    settings: IsmctsSettings, env_id: str, env_options: dict[str, Any]
) -> Callable[[int], IsmctsBot]:
    """A factory of tree search bots for one env: the rollout participant and the
    prior's network (checked against the env) are made once and shared; one bot
    is built first so a wrong rollout, prior or env fails here."""
    rollout = make_participant(settings.rollout, env_id, env_options)
    evaluator = None
    if settings.prior:
        prior = parse_spec(settings.prior)
        if prior.kind != "checkpoint" or prior.path is None:
            raise BotSpecError(f"ismcts prior {settings.prior!r}: allowed: a checkpoint spec")
        policy = shared_policy(prior.path)
        policy.check_env(env_id, env_options)
        if settings.value == "net" and not hasattr(policy.network, "predict_values"):
            raise BotSpecError(
                f"ismcts value=net: the prior {settings.prior!r} has no value head; "
                "allowed: value=auto or value=rollout"
            )
        evaluator = policy_evaluator(policy)
    IsmctsBot(env_id, env_options, settings, 0, rollout_bots=rollout.new_bot, evaluator=evaluator)

    def new_bot(seed: int) -> IsmctsBot:
        return IsmctsBot(
            env_id, env_options, settings, seed, rollout_bots=rollout.new_bot, evaluator=evaluator
        )

    return new_bot


def policy_evaluator(policy: Policy) -> Evaluator:
    """A policy as the tree search's network: its probabilities, and its value
    head's estimate (the expected RL reward of the seat to move) where the
    network has one (an actor-critic's ``predict_values``). An advised policy
    reads an advisor's move the search does not make, so it is refused."""
    if policy.advised:
        raise BotSpecError(
            "ismcts prior: an advised checkpoint (it reads an advisor's move) cannot guide "
            "the search; allowed: a checkpoint trained with advisor none"
        )
    predict_values = getattr(policy.network, "predict_values", None)

    def evaluate(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, Any]:
        probabilities = policy.probabilities_batch(observations, masks)
        if predict_values is None:
            return probabilities, None
        import torch  # the training extra, as every checkpoint's network

        with torch.no_grad():
            values = predict_values(torch.as_tensor(observations, dtype=torch.float32))
        return probabilities, values.numpy().reshape(-1)

    return evaluate
