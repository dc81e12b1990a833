"""A one-field fuzzer over training configs and benchmark specs.

Each case takes a shipped config (``configs/**.yaml``) or benchmark spec
(``benchmarks/specs/*.yaml``) and changes one field: a value of another type,
a huge, negative or fractional number, a 5,000-digit number, a list nested
995 deep, an alias or an alias bomb, a tag that would run code, a repeated
key, a removed key. The loader (``load_config``; ``load_spec`` then
``plan_runs``, which validates every run's config) must either refuse it with
one of the errors the command line reports (``ConfigError``, ``BotSpecError``,
``CheckpointError``, ``RunError``, a ``FlockgymError``, a missing extra), or
accept a config that works: its resolved YAML (what a run folder keeps) loads
again to the same config, and its env plays random legal moves.

Pass condition: 0 bare errors (anything else raised) and 0 accepted-then-broken.
"""

from __future__ import annotations

import functools
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, when run as a script
from fuzz_helpers import get_at, paths_into, play_random

from flockgym.common.errors import (
    BotSpecError,
    CheckpointError,
    ConfigError,
    MissingExtraError,
    RunError,
)
from flockgym.envs import make
from flockgym.envs.core.errors import FlockgymError
from flockgym.evaluation.benchmark import load_spec, plan_runs
from flockgym.training.config import config_to_yaml, load_config

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted(p for p in (ROOT / "configs").rglob("*.yaml") if "rllib" not in p.name)
SPECS = sorted((ROOT / "benchmarks" / "specs").glob("*.yaml"))
NAMED = (ConfigError, BotSpecError, CheckpointError, RunError, FlockgymError, MissingExtraError)
"""What the command line reports as a one-line error (``training.cli.main``)."""
PLAY_ON = 40
"""Random legal moves an accepted config's env is played."""

DEEP = "[" * 995 + "]" * 995
BILLION_LAUGHS = (
    '{a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"], '
    + ", ".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]" for i in range(8)
    )
    + "}"
)
RAW_VALUES = (
    "9" * 5000,
    "-" + "9" * 5000,
    "1." + "0" * 5000,
    DEEP,
    BILLION_LAUGHS,
    "&x 1",
    "*undefined",
    "!!python/object/apply:os.system ['true']",
    "{a: 1, a: 2}",
    ".nan",
    "-.inf",
    "1e400",
    "0x7fffffffffffffffffff",
    "1_000_000_000_000_000_000",
    "1:2:3:4:5:6:7:8:9",
    "'" + "x" * 5000 + "'",
    "~",
    "[]",
    "{}",
)
"""YAML texts put in place of one value, as written (not as PyYAML would dump them)."""
VALUES: tuple[Any, ...] = (None, True, False, -1, 0, 1, 2**63, 10**30, 0.5, -0.0, "", "x", [0], {})
"""Plain values put in place of one value."""


MARK = "FUZZ_MARK_7f3a"


def mutate(raw: dict[str, Any], rng: random.Random) -> tuple[str, str]:
    """YAML text of ``raw`` with one field changed, and what was changed."""
    data = yaml.safe_load(yaml.safe_dump(raw))
    path = rng.choice([p for p in paths_into(data) if p])
    parent = get_at(data, path[:-1])
    old = parent[path[-1]]
    roll = rng.random()
    shown = "".join(f"[{k!r}]" for k in path)
    if roll < 0.1 and isinstance(parent, dict):
        del parent[path[-1]]
        return yaml.safe_dump(data, sort_keys=False), f"{shown}: removed"
    if roll < 0.55:
        parent[path[-1]] = MARK
        text = yaml.safe_dump(data, sort_keys=False, width=10**9)
        raw_value = rng.choice(RAW_VALUES)
        return text.replace(MARK, raw_value, 1), f"{shown}: {raw_value[:30]!r}"
    candidates = list(VALUES)
    if isinstance(old, bool):
        candidates.append(not old)
    elif isinstance(old, int):
        candidates += [old + 1, old - 1, -old, old * 1000 + 7, str(old)]
    elif isinstance(old, float):
        candidates += [-old, old * 1e6, str(old)]
    elif isinstance(old, str):
        candidates += [old + "_", old.upper(), old * 50]
    elif isinstance(old, list) and old:
        candidates += [old[:-1], old + old[-1:], [old]]
    new = rng.choice(candidates)
    parent[path[-1]] = new
    return yaml.safe_dump(data, sort_keys=False), f"{shown}: {new!r:.30}"


@dataclass
class Found:
    """The outcomes of the cases, by kind, with details of the bad ones."""

    refused: int = 0
    accepted: int = 0
    bare: list[str] = field(default_factory=list)
    broke: list[str] = field(default_factory=list)

    @property
    def cases(self) -> int:
        return self.refused + self.accepted + len(self.bare) + len(self.broke)


def play_env(config: Any, seed: int) -> None:
    """The config's env, built as training builds it, plays random legal moves."""
    env = make(config.env.id, **config.env.options)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = random.Random(seed)
    play_random(raw, rng, PLAY_ON)


def check_config_works(config: Any, folder: Path, seed: int) -> None:
    """What a run folder keeps loads again to the same config; the env plays."""
    saved = folder / "resolved.yaml"
    saved.write_text(config_to_yaml(config))
    again = load_config(saved)
    assert again.model_dump(mode="json") == config.model_dump(mode="json"), "resolved differs"
    play_env(config, seed)


def classify(found: Found, what: str, load: Any, check: Any) -> None:
    try:
        loaded = load()
    except NAMED as err:
        if not str(err).strip():
            found.broke.append(f"{what} -> refused with an empty {type(err).__name__}")
        else:
            found.refused += 1
        return
    except Exception as err:
        found.bare.append(f"{what} -> {type(err).__name__}: {str(err)[:160]}")
        return
    try:
        check(loaded)
    except Exception as err:
        found.broke.append(f"{what} -> accepted, then {type(err).__name__}: {str(err)[:160]}")
        return
    found.accepted += 1


def fuzz_configs(folder: Path, seed: int, cases: int) -> Found:
    rng = random.Random(seed)
    found = Found()
    for i in range(cases):
        source = CONFIGS[i % len(CONFIGS)]
        raw = yaml.safe_load(source.read_text())
        raw.setdefault("output", {})["dir"] = str(folder / "runs")
        text, what = mutate(raw, rng)
        path = folder / "config.yaml"
        path.write_text(text)
        label = f"{source.relative_to(ROOT)} {what}"
        classify(
            found,
            label,
            functools.partial(load_config, path),
            functools.partial(check_config_works, folder=folder, seed=i),
        )
    return found


def check_spec_works(spec: Any, spec_dir: Path, folder: Path, seed: int) -> None:
    try:
        runs = plan_runs(spec, spec_dir, folder / "bench")
    except NAMED:
        return  # a run's config refused, before any run starts: named
    for run in runs[:2]:
        check_config_works(run.config, folder, seed)


def fuzz_specs(folder: Path, seed: int, cases: int) -> Found:
    rng = random.Random(seed)
    found = Found()
    for i in range(cases):
        source = SPECS[i % len(SPECS)]
        raw = yaml.safe_load(source.read_text())
        for learner in raw.get("learners", []):
            learner["config"] = str(source.parent / learner["config"])
        text, what = mutate(raw, rng)
        path = folder / "spec.yaml"
        path.write_text(text)
        label = f"{source.relative_to(ROOT)} {what}"
        classify(
            found,
            label,
            functools.partial(load_spec, path),
            functools.partial(check_spec_works, spec_dir=source.parent, folder=folder, seed=i),
        )
    return found


def assert_clean(found: Found) -> None:
    bad = found.bare + found.broke
    assert not bad, f"{len(bad)} of {found.cases} fuzzed loads failed, e.g.:\n" + "\n".join(
        bad[:12]
    )


def test_fuzzed_configs_are_refused_or_work(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    found = fuzz_configs(tmp_path, seed=2026, cases=60)
    assert_clean(found)
    assert found.refused and found.accepted


def test_fuzzed_specs_are_refused_or_work(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    found = fuzz_specs(tmp_path, seed=2026, cases=30)
    assert_clean(found)
    assert found.refused and found.accepted


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_fuzzed_configs_and_specs_thoroughly(seed: int, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for found in (fuzz_configs(tmp_path, seed, 500), fuzz_specs(tmp_path, seed, 250)):
        assert_clean(found)


def main() -> None:
    """Count the outcomes (a measurement, not a test):
    ``python tests/training/test_config_fuzz.py --cases 1000``."""
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for name, fuzz, cases in (
            ("configs", fuzz_configs, args.cases),
            ("specs", fuzz_specs, args.cases // 2),
        ):
            found = fuzz(Path(folder), args.seed, cases)
            print(
                f"{name}: {found.cases} cases, {found.refused} refused, {found.accepted} "
                f"accepted, {len(found.bare)} bare, {len(found.broke)} accepted-then-broken"
            )
            for line in (found.bare + found.broke)[:12]:
                print("   ", line)


if __name__ == "__main__":
    main()
