"""Config validation: every mistake names the key, the value and what is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel
from training_helpers import tiny_raw_config

from flockgym.envs import list_envs
from flockgym.evaluation.baselines import game_folder
from flockgym.training.config import ConfigError, apply_override, load_config, validate_config
from flockgym.training.rllib.learner import ray_missing

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, raw: dict) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def error_of(tmp_path: Path, raw: dict, overrides: list[str] | None = None) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, raw), overrides)
    return str(info.value)


def test_a_valid_config_fills_every_default(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, tiny_raw_config("asrus_v0", tmp_path)))
    assert config.algo.learning_rate == 3e-4
    assert config.vec_env == "DummyVecEnv"
    assert config.torch_threads == 1
    assert config.algo.net_arch == [32, 32]


DELETE = object()


@pytest.mark.parametrize(
    ("key", "value", "fragments"),
    [
        # a typo names the (dotted) key and the keys allowed there
        ("n_env", 4, ["unknown key n_env;", "n_envs"]),
        ("opponents.snapshot_evry", 10, ["unknown key opponents.snapshot_evry;", "snapshot_every"]),
        ("algo.learnin_rate", 1e-3, ["unknown key algo.learnin_rate;", "learning_rate"]),
        # a wrong value names the key, the value and what is allowed
        ("algo.learning_rate", "fast", ["algo.learning_rate = 'fast'", "valid number"]),
        ("n_envs", 0, ["n_envs = 0", "greater than or equal to 1"]),
        (
            "vec_env",
            "ProcVecEnv",
            ["vec_env = 'ProcVecEnv'", "'DummyVecEnv', 'SubprocVecEnv' or 'batched'"],
        ),
        ("total_steps", DELETE, ["missing key total_steps (learner steps"]),
    ],
)
def test_a_mistake_names_the_key_the_value_and_what_is_allowed(
    tmp_path: Path, key: str, value: object, fragments: list[str]
) -> None:
    raw = tiny_raw_config("asrus_v0", tmp_path)
    *sections, last = key.split(".")
    node = raw
    for section in sections:
        node = node[section]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    message = error_of(tmp_path, raw)
    for fragment in fragments:
        assert fragment in message


def test_unknown_env_and_learner_list_what_is_registered(tmp_path: Path) -> None:
    raw = tiny_raw_config("asrus_v0", tmp_path)
    raw["env"]["id"] = "asrsu_v0"
    message = error_of(tmp_path, raw)
    assert "env.id = 'asrsu_v0'" in message and "asrus_v0" in message
    raw = tiny_raw_config("asrus_v0", tmp_path)
    raw["algo"]["name"] = "ppo2"
    message = error_of(tmp_path, raw)
    assert "algo.name = 'ppo2'" in message and "maskable_ppo" in message


def test_env_options_are_checked_by_the_env(tmp_path: Path) -> None:
    raw = tiny_raw_config("asrus_v0", tmp_path)
    raw["env"]["options"] = {"num_players": 2}
    message = error_of(tmp_path, raw)
    assert "env.options" in message and "num_players=2" in message


def test_batch_larger_than_a_rollout_is_refused(tmp_path: Path) -> None:
    raw = tiny_raw_config("asrus_v0", tmp_path)
    raw["algo"]["batch_size"] = 4096
    message = error_of(tmp_path, raw)
    assert "algo.batch_size = 4096" in message and "n_envs" in message


def test_overrides_are_read_as_yaml_and_validated(tmp_path: Path) -> None:
    path = write(tmp_path, tiny_raw_config("asrus_v0", tmp_path))
    config = load_config(
        path,
        ["algo.learning_rate=3e-4", "algo.net_arch=[16, 16]", "opponents.pool=[random]", "seed=9"],
    )
    assert config.algo.learning_rate == pytest.approx(3e-4)
    assert config.algo.net_arch == [16, 16]
    assert config.seed == 9
    message = error_of(tmp_path, tiny_raw_config("asrus_v0", tmp_path), ["algo.gamma=high"])
    assert "algo.gamma = 'high'" in message


def test_malformed_overrides_and_files_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"key\.path=value"):
        apply_override({}, "seed")
    with pytest.raises(ConfigError, match="is a value, not a section"):
        apply_override({"seed": 1}, "seed.x=2")
    bad = tmp_path / "bad.yaml"
    bad.write_text("env: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    with pytest.raises(ConfigError, match=r"^config '.*missing.yaml': not found \(cannot read"):
        load_config(tmp_path / "missing.yaml")


def test_every_shipped_config_is_valid() -> None:
    paths = sorted((REPO / "configs").rglob("*.yaml"))
    assert paths
    for path in paths:
        raw = yaml.safe_load(path.read_text())
        if raw["env"]["id"] not in list_envs():
            continue  # written ahead of its env's registration
        if raw["algo"]["name"] == "rllib_ppo" and ray_missing():
            with pytest.raises(ConfigError, match=r"needs ray\[rllib\].*rllib extra"):
                validate_config(raw)
            continue
        validate_config(raw)


@pytest.mark.parametrize("env_id", list_envs())
def test_every_registered_env_has_a_ppo_config(env_id: str) -> None:
    path = REPO / "configs" / game_folder(env_id) / "ppo.yaml"
    assert load_config(path).env.id == env_id


def test_the_training_guide_names_every_config_key() -> None:
    from flockgym.training.config import TrainConfig
    from flockgym.training.learners import get_learner, learner_names

    guide = (REPO / "docs" / "training.md").read_text()
    sections = [TrainConfig, *(get_learner(name).params_model for name in learner_names())]
    for field in TrainConfig.model_fields.values():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            sections.append(annotation)
    missing = {
        f"{section.__name__}.{key}"
        for section in sections
        for key in section.model_fields
        if f"`{key}`" not in guide
    }
    assert not missing, f"docs/training.md does not mention {sorted(missing)}"


def test_a_run_without_opponents_is_refused(tmp_path: Path) -> None:
    raw = tiny_raw_config("asrus_v0", tmp_path)
    raw["opponents"] = {"pool": []}
    assert "the learner would have no opponents" in error_of(tmp_path, raw)


@pytest.mark.parametrize(
    ("key", "specs", "message"),
    [
        ("opponents.pool", ["random", "randm"], "opponents.pool[1] = 'randm': unknown bot spec"),
        ("eval.opponents", ["gone.zip"], "eval.opponents[0] = 'gone.zip': bot spec 'gone.zip'"),
    ],
)
def test_a_bad_bot_spec_names_its_key(tmp_path: Path, key: str, specs: list, message: str) -> None:
    raw = tiny_raw_config("asrus_v0", tmp_path / "runs")
    section, field = key.split(".")
    raw[section][field] = specs
    assert message in error_of(tmp_path, raw)


# Values that used to pass validation and then crash once the run folder existed:
# each is refused when the config is read, naming the key and what is allowed.
CRASHES_LATER = [
    ("seed", 2**32, ["seed = 4294967296", "allowed: 0 <= seed <= 4294967295"]),
    ("algo.net_arch", [-5], ["algo.net_arch[0] = -5", "allowed: 1 <= algo.net_arch[0]"]),
    ("algo.net_arch", [0], ["algo.net_arch[0] = 0", "allowed: 1 <= algo.net_arch[0]"]),
    ("algo.net_arch", [], ["algo.net_arch = []", "at least 1 item"]),
    (
        "algo.net_arch",
        [100_000, 100_000],
        ["algo.net_arch = [100000, 100000]", "parameters", "allowed: at most 50,000,000"],
    ),
    ("algo.n_steps", 1e9, ["algo.n_steps x n_envs", "rollout buffer", "allowed: at most"]),
    # written as `n_steps: 1e9`: a number (YAML 1.2), not the string PyYAML would make of it
    ("algo.n_steps", "1e9", ["algo.n_steps x n_envs", "rollout buffer", "algo.n_steps <= "]),
    ("algo.n_steps", "lots", ["algo.n_steps = 'lots'", "valid integer"]),
    ("torch_threads", 10**6, ["torch_threads = 1000000", "allowed: 1 <= torch_threads <= 256"]),
    (
        "algo.update_threads",
        0,
        ["algo.update_threads = 0", "allowed: 1 <= algo.update_threads <= 256"],
    ),
    ("algo.learning_rate", float("inf"), ["algo.learning_rate = inf", "finite number"]),
    ("algo.learning_rate", float("nan"), ["algo.learning_rate = nan", "finite number"]),
    ("algo.learning_rate", 5.0, ["algo.learning_rate = 5.0", "0 < algo.learning_rate <= 1"]),
    ("env.reward_scale", float("inf"), ["env.reward_scale = inf", "finite number"]),
    ("n_envs", 100_000, ["n_envs = 100000", "allowed: 1 <= n_envs <= 256"]),
    ("output.name", "../x", ["output.name = '../x'", "a folder name"]),
    ("output.name", "a/b", ["output.name = 'a/b'", "a folder name"]),
    ("output.name", "..", ["output.name = '..'", "a folder name"]),
    ("eval.tournament_games", 1, ["eval.tournament_games = 1", "0 (no tournament) or at least 2"]),
    # the two: a reward that overflows float32 and a deal count that ran out of memory
    ("env.win_bonus", 1e308, ["env.win_bonus = 1e+308", "allowed: 0 <= env.win_bonus <= 1000.0"]),
    ("eval.games", 10**12, ["eval.games = 1000000000000", "allowed: 2 <= eval.games <= 100000"]),
    # every other count or factor of the config has a bound as well
    ("env.win_bonus", float("inf"), ["env.win_bonus = inf", "finite number"]),
    (
        "env.reward_scale",
        1e308,
        ["env.reward_scale = 1e+308", "allowed: 0 < env.reward_scale <= 1000.0"],
    ),
    (
        "eval.tournament_games",
        10**12,
        ["eval.tournament_games = 1000000000000", "0 <= eval.tournament_games <= 100000"],
    ),
    ("eval.every", 10**11, ["eval.every = 100000000000", "0 <= eval.every <= 10000000000"]),
    ("eval.seed", 2**32, ["eval.seed = 4294967296", "allowed: 0 <= eval.seed <= 4294967295"]),
    ("total_steps", 10**11, ["total_steps = 100000000000", "1 <= total_steps <= 10000000000"]),
    ("total_steps", float("inf"), ["total_steps = inf", "finite number"]),
    (
        "output.checkpoint_every",
        10**11,
        ["output.checkpoint_every = 100000000000", "1 <= output.checkpoint_every <= 10000000000"],
    ),
    (
        "opponents.snapshot_every",
        10**11,
        ["opponents.snapshot_every = 100000000000", "0 <= opponents.snapshot_every <= 10000000000"],
    ),
    (
        "opponents.max_snapshots",
        101,
        ["opponents.max_snapshots = 101", "allowed: 1 <= opponents.max_snapshots <= 100"],
    ),
    ("pretrain.games", 100_001, ["pretrain.games = 100001", "0 <= pretrain.games <= 100000"]),
    (
        "pretrain.batch_size",
        10**12,
        ["pretrain.batch_size = 1000000000000", "allowed: 2 <= pretrain.batch_size <= 65536"],
    ),
    ("pretrain.epochs", 1001, ["pretrain.epochs = 1001", "allowed: 1 <= pretrain.epochs <= 1000"]),
    ("algo.n_epochs", 10**6, ["algo.n_epochs = 1000000", "allowed: 1 <= algo.n_epochs <= 1000"]),
    ("algo.clip_range", 1e308, ["algo.clip_range = 1e+308", "0 < algo.clip_range <= 10.0"]),
    ("algo.ent_coef", 1e308, ["algo.ent_coef = 1e+308", "0 <= algo.ent_coef <= 1000.0"]),
    ("algo.vf_coef", 1e308, ["algo.vf_coef = 1e+308", "0 <= algo.vf_coef <= 1000.0"]),
    (
        "algo.max_grad_norm",
        1e308,
        ["algo.max_grad_norm = 1e+308", "0 < algo.max_grad_norm <= 1000.0"],
    ),
    ("algo.target_kl", 1e308, ["algo.target_kl = 1e+308", "0 < algo.target_kl <= 1000.0"]),
    ("algo.n_steps", 10**30, ["algo.n_steps x n_envs", "algo.n_steps <= 312,134 with 2 envs"]),
    ("batched.workers", 65, ["batched.workers = 65", "allowed: 1 <= batched.workers <= 64"]),
]


@pytest.mark.parametrize(("key", "value", "fragments"), CRASHES_LATER)
def test_a_value_that_would_crash_the_run_is_refused_before_any_folder(
    tmp_path: Path, key: str, value: object, fragments: list[str], capsys
) -> None:
    from flockgym.cli import main

    raw = tiny_raw_config("asrus_v0", tmp_path / "runs")
    *sections, last = key.split(".")
    node = raw
    for section in sections:
        node = node.setdefault(section, {})
    node[last] = value
    assert main(["train", str(write(tmp_path, raw))]) == 2
    message = capsys.readouterr().err
    for fragment in fragments:
        assert fragment in message
    assert not (tmp_path / "runs").exists()


def test_a_duplicate_yaml_key_is_refused_naming_it_and_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    text = yaml.safe_dump(tiny_raw_config("asrus_v0", tmp_path / "runs"), sort_keys=False)
    path.write_text(text.replace("  n_steps: 128\n", "  n_steps: 128\n  n_steps: 64\n"))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "duplicate key 'n_steps'" in message
    assert "line 7" in message and "first at line 6" in message
    with pytest.raises(ConfigError, match="duplicate key 'a'"):
        load_config(
            write(tmp_path, tiny_raw_config("asrus_v0", tmp_path)), ["env.options={a: 1, a: 2}"]
        )


def test_a_config_that_is_not_utf8_is_refused_naming_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    text = yaml.safe_dump(tiny_raw_config("asrus_v0", tmp_path / "runs"))
    path.write_bytes(b"# caf\xe9\n" + text.encode())
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "is not UTF-8 text" in str(info.value) and "0xe9 at offset 5" in str(info.value)


def test_a_config_can_not_build_python_objects() -> None:
    """The config reader is a safe loader: a tag that would call code is refused."""
    import yaml

    from flockgym.training.config import read_yaml

    for text in ("!!python/object/apply:os.system ['true']", "x: !!python/name:os.system"):
        with pytest.raises(yaml.YAMLError, match="python"):
            read_yaml(text)


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("train_batch_size", 10**12, "allowed: 2 <= algo.train_batch_size <= 1000000"),
        ("n_epochs", 10**6, "allowed: 1 <= algo.n_epochs <= 1000"),
        ("clip_range", 1e308, "allowed: 0 < algo.clip_range <= 10.0"),
        ("ent_coef", 1e308, "allowed: 0 <= algo.ent_coef <= 1000.0"),
        ("vf_coef", 1e308, "allowed: 0 <= algo.vf_coef <= 1000.0"),
        ("vf_clip", 1e308, "allowed: 0 < algo.vf_clip <= 1000000.0"),
        ("max_grad_norm", 1e308, "allowed: 0 < algo.max_grad_norm <= 1000.0"),
        ("num_cpus", 10**9, "allowed: 1 <= algo.num_cpus <= 4096"),
    ],
)
def test_rllib_ppo_numbers_are_bounded_without_ray(
    tmp_path: Path, key: str, value: object, fragment: str
) -> None:
    """The ``rllib_ppo`` section's bounds are checked before Ray is looked for."""
    raw = tiny_raw_config("asrus_v0", tmp_path / "runs")
    raw["algo"] = {"name": "rllib_ppo", key: value}
    message = error_of(tmp_path, raw)
    assert f"algo.{key} = {value!r}" in message and fragment in message
    assert not (tmp_path / "runs").exists()
