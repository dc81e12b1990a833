"""benchmarks/throughput.py and train_throughput.py: the speed goals, the
tables docs/scale.md states (rendered from saved runs), and the baseline
subprocess that imports another tree's ``flockgym``."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from script_loader import load_script

from flockgym.envs import make

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"


def load(name: str) -> ModuleType:
    """A benchmark script as a module (its folder on the path, as when it runs)."""
    return load_script(name)


@pytest.fixture(scope="module")
def throughput() -> ModuleType:
    pytest.importorskip("pettingzoo")
    return load("throughput")


@pytest.fixture(scope="module")
def baseline_tree() -> ModuleType:
    return load("baseline_tree")


def run_of(measurements: list[tuple[str, int, int, float, float]]) -> dict:
    return {
        "command": "python benchmarks/throughput.py --baseline abc1234",
        "date": "2026-01-01 12:00 UTC",
        "commit": "def5678",
        "load_average": [2.5, 2.0, 1.5],
        "baseline": "abc1234",
        "envs": [["asrus_v0", "asrus_v0 5p"], ["asrus_v0", "asrus_v0 5p @ abc1234"]],
        "baseline_envs": [["asrus_v0 5p", "asrus_v0 5p @ abc1234"]],
        "measurements": [
            dict(zip(["name", "steps", "games", "seconds", "cpu_seconds"], m, strict=True))
            for m in measurements
        ],
    }


def test_the_goals_are_the_stated_ones(throughput: ModuleType) -> None:
    assert throughput.GOALS == {
        "asrus_v0": [("connect_four_v3", 6.0)],
        "astrobirdz_v0": [("open_spiel oh_hell 4p", 4.0)],
        "arena_v0": [("open_spiel backgammon", 1.5)],
        "skybirds_v0": [("connect_four_v3", 3.0), ("rlcard doudizhu", 10.0)],
    }


def test_the_tables_give_both_rates_and_judge_the_goal_per_core(throughput: ModuleType) -> None:
    run = run_of(
        [
            ("asrus_v0 5p", 60_000, 1000, 2.0, 1.0),
            ("asrus_v0 5p @ abc1234", 30_000, 500, 2.0, 1.0),
            ("connect_four_v3", 12_000, 600, 1.0, 1.0),
            ("rlcard doudizhu", 5_000, 70, 2.0, 1.0),
        ]
    )
    assert throughput.table(run) == (
        "One run of `python benchmarks/throughput.py --baseline abc1234` (2026-01-01 12:00 UTC, "
        "commit def5678, load average 2.5 at its end):\n"
        "\n"
        "| env | steps per CPU-second | steps/s (wall) | games/s (wall) | steps/game |\n"
        "| --- | ---: | ---: | ---: | ---: |\n"
        "| asrus_v0 5p | 60,000 | 30,000 | 500.0 | 60.0 |\n"
        "| asrus_v0 5p @ abc1234 | 30,000 | 15,000 | 250.0 | 60.0 |\n"
        "| connect_four_v3 | 12,000 | 12,000 | 600.0 | 20.0 |\n"
        "| rlcard doudizhu | 5,000 | 2,500 | 35.0 | 71.4 |\n"
        "\n"
        "| env | peer | x peer (per core) | x peer (wall) | goal |\n"
        "| --- | --- | ---: | ---: | --- |\n"
        "| asrus_v0 5p | connect_four_v3 | 5.00x | 2.50x | >= 6x: not met |\n"
        "| asrus_v0 5p @ abc1234 | connect_four_v3 | 2.50x | 1.25x | >= 6x: not met |\n"
        "\n"
        "| env | x abc1234 (per core) | x abc1234 (wall) |\n"
        "| --- | ---: | ---: |\n"
        "| asrus_v0 5p | 2.00x | 2.00x |\n"
    )


def test_a_short_run_measures_cpu_time_beside_wall_time(throughput: ModuleType) -> None:
    # A flockgym env always; the peers where their packages are installed (the
    # env-only install of `make test-min` has neither pygame nor pyspiel).
    ours = throughput.run_aec("asrus_v0", lambda: make("asrus_v0"), 0.05, 0)
    m = throughput.run_open_spiel_backgammon(0.05, 0) if has("pyspiel") else None
    peers = throughput.peer_runners()
    c4 = peers[0](0.05, 0) if peers else None
    for measured in [ours, m, c4]:
        if measured is None:
            continue
        assert measured.steps > 0 and measured.games >= 1
        assert 0 < measured.cpu_seconds <= measured.seconds + 0.01


def has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.mark.parametrize(
    ("script", "saved", "marker"),
    [
        ("throughput", "throughput.json", "env throughput"),
        ("train_throughput", "train_throughput.json", "training throughput"),
        ("train_throughput", "train_throughput_astrobirdz_plain.json", "training throughput"),
    ],
)
def test_docs_scale_states_the_saved_runs(script: str, saved: str, marker: str) -> None:
    """docs/scale.md's throughput tables are ``--table`` of the runs saved under
    benchmarks/results (a new run: save it with --json and paste its --table)."""
    path = BENCHMARKS / "results" / saved
    if script == "train_throughput":
        pytest.importorskip("sb3_contrib")
    module = load(script)
    run = json.loads(path.read_text())
    docs = (ROOT / "docs" / "scale.md").read_text()
    begin = f"<!-- {marker}: python benchmarks/{script}.py --table benchmarks/results/{saved} -->"
    assert begin in docs
    stated = docs.split(begin, 1)[1].split("<!-- end -->", 1)[0]
    assert stated.strip() == module.table(run).strip()
    assert f"`{run['command']}`" in docs


def test_the_baseline_subprocess_imports_the_other_trees_flockgym(
    baseline_tree: ModuleType, tmp_path: Path
) -> None:
    """A fake tree whose envs/ says where it is: the subprocess imports it, not
    the editable install, and check_imported accepts it and refuses another."""
    tree_root = tmp_path / "tree"
    (tree_root / "flockgym").mkdir(parents=True)
    (tree_root / "flockgym" / "__init__.py").write_text("")
    (tree_root / "envs").mkdir()
    (tree_root / "envs" / "__init__.py").write_text("MARK = 'the other tree'\n")
    path_entry = tmp_path / "path"
    baseline_tree.link_package(tree_root, path_entry)
    tree = baseline_tree.BaselineTree("abc1234", "0" * 40, tree_root, path_entry)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import baseline_tree, flockgym.envs; "
        "print(flockgym.envs.MARK); print(baseline_tree.imported_from())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(BENCHMARKS)],
        env=baseline_tree.baseline_env(tree),
        cwd=tmp_path,  # python -c puts the working folder first on the path
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    mark, where = done.stdout.splitlines()
    assert mark == "the other tree"
    assert where == str((tree_root / "envs").resolve())
    baseline_tree.check_imported(tree, where)
    with pytest.raises(RuntimeError, match=r"imported flockgym.envs from /elsewhere, not from"):
        baseline_tree.check_imported(tree, "/elsewhere")
    assert tree.label == "@ abc1234"


def test_an_unknown_baseline_is_refused_by_name(baseline_tree: ModuleType) -> None:
    with pytest.raises(ValueError) as err:
        baseline_tree.resolve_commit("no-such-ref-xyz")
    assert str(err.value) == (
        "--baseline 'no-such-ref-xyz': not a commit of this checkout; allowed: a commit id, "
        "branch or tag that `git rev-parse` knows"
    )


def test_the_readme_states_the_saved_env_run(throughput: ModuleType) -> None:
    run = json.loads((BENCHMARKS / "results" / "throughput.json").read_text())
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert throughput.summary(run) in readme
    assert f"`{run['command']}`" in readme


def test_the_training_table_takes_ratios_to_the_first_row() -> None:
    pytest.importorskip("sb3_contrib")
    train_throughput = load("train_throughput")
    result = {
        "eval": "50 games vs each of ['heuristic']",
        "rows": [
            {
                "name": "the config as it is @ abc1234",
                "steps": 4096,
                "cpu_seconds": 4.0,
                "wall_seconds": 2.0,
                "rollout_seconds": 3.0,
                "eval": {"heuristic": [0.25, 0.05]},
            },
            {
                "name": "the config as it is",
                "steps": 4096,
                "cpu_seconds": 1.0,
                "wall_seconds": 1.0,
                "rollout_seconds": 0.5,
                "eval": {"heuristic": [0.3125, 0.061]},
            },
        ],
    }
    assert train_throughput.game_table(result) == (
        "| path | steps per CPU-second | x first | steps/s (wall) | x first (wall) | rollout "
        "| eval win rate (50 games vs each of ['heuristic']) |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n"
        "| the config as it is @ abc1234 | 1,024 | 1.00x | 2,048 | 1.00x | 75% | "
        "vs heuristic 25.0% ± 5.0% |\n"
        "| the config as it is | 4,096 | 4.00x | 4,096 | 2.00x | 50% | "
        "vs heuristic 31.2% ± 6.1% |\n"
    )
