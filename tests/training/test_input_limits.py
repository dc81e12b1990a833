"""Every input the command line reads is refused cleanly: special files, YAML
alias bombs, numbers past Python's digit limit and deep nesting in configs,
specs, run folders, ``--set`` and ``--option``; an over-long bot spec, an
unbounded ``--jobs`` and thousands of ``--players``. Each case exits 2 (or
argparse's 2) with one line naming the problem and what is allowed, quickly,
and before anything is written."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from training_helpers import tiny_raw_config

from flockgym.cli import main
from flockgym.cli.arguments import max_jobs

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "benchmarks" / "specs"

BILLION_LAUGHS = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]" for i in range(8)]
)
DIGITS = "9" * 5000
DEEP = "[" * 995 + "]" * 995

ALIAS = "anchors and aliases are not allowed"
NOT_REGULAR = "not a regular file (directories, pipes and devices are refused)"
TOO_MANY_DIGITS = "a number of 5,000 characters; allowed: at most 256 a number"
TOO_DEEP = "nested deeper than 64 levels; allowed: at most 64"


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def refused(argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]) -> str:
    """``argv`` exits 2 with an error line holding ``expected`` and no traceback."""
    with_exit = 0
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = int(exc.code or 0)
        with_exit = 1
    err = capsys.readouterr().err
    assert code == 2, err
    assert expected in err, err
    assert "Traceback" not in err
    assert with_exit or err.count("\n") == 1, err
    return err


# ---- flockgym train CONFIG, --set and a run folder's config ----------------------------


def config_of(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return path


TRAIN_CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "fifo": (lambda tmp: fifo(tmp / "config.yaml"), NOT_REGULAR),
    "folder": (lambda tmp: tmp, NOT_REGULAR),
    "billion_laughs": (lambda tmp: config_of(tmp, BILLION_LAUGHS), ALIAS),
    "digits": (lambda tmp: config_of(tmp, f"seed: {DIGITS}\n"), TOO_MANY_DIGITS),
    "deep": (lambda tmp: config_of(tmp, f"env: {{options: {{x: {DEEP}}}}}\n"), TOO_DEEP),
}


@pytest.mark.parametrize("case", sorted(TRAIN_CASES))
def test_train_refuses_a_bad_config_file(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, expected = TRAIN_CASES[case]
    refused(["train", str(make(tmp_path))], expected, capsys)


def test_train_refuses_dev_zero(capsys: pytest.CaptureFixture[str]) -> None:
    refused(["train", "/dev/zero"], f"config '/dev/zero': {NOT_REGULAR}", capsys)


def test_train_refuses_a_long_config_name(tmp_path: Path, capsys) -> None:
    refused(
        ["train", str(tmp_path / ("c" * 300))], "cannot read the file: File name too long", capsys
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [(DIGITS, TOO_MANY_DIGITS), (DEEP, TOO_DEEP), ("[*a, &a 1]", ALIAS)],
)
def test_train_refuses_a_bad_set_value(
    value: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_of(tmp_path, yaml.safe_dump(tiny_raw_config("asrus_v0", tmp_path / "runs")))
    err = refused(["train", str(config), "--set", f"seed={value}"], expected, capsys)
    assert len(err) < 600
    assert not (tmp_path / "runs").exists()


def test_train_refuses_a_set_key_path_of_thousands_of_parts(tmp_path: Path, capsys) -> None:
    config = config_of(tmp_path, yaml.safe_dump(tiny_raw_config("asrus_v0", tmp_path / "runs")))
    key = ".".join(["env", "options", *["a"] * 3000])
    refused(
        ["train", str(config), "--set", f"{key}=1"],
        "a key path of 3002 parts; allowed: at most 16 (a config nests a few levels)",
        capsys,
    )


@pytest.mark.parametrize("case", ["fifo", "billion_laughs", "digits"])
def test_resume_refuses_a_bad_run_folder_config(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    make, expected = TRAIN_CASES[case]
    make(run)
    refused(["train", "--resume", str(run)], expected, capsys)


# ---- flockgym benchmark SPEC and its learner configs -----------------------------------


def spec_with(tmp_path: Path, learner_config: Path | None = None) -> Path:
    raw = yaml.safe_load((SPECS / "tiny.yaml").read_text())
    for learner in raw["learners"]:
        learner["config"] = str(learner_config or SPECS / learner["config"])
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


@pytest.mark.parametrize("case", sorted(TRAIN_CASES))
def test_benchmark_refuses_a_bad_spec_file(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, expected = TRAIN_CASES[case]
    out = tmp_path / "bench"
    refused(["benchmark", str(make(tmp_path)), "--out", str(out)], expected, capsys)
    assert not out.exists()


def test_benchmark_refuses_dev_zero_as_spec_and_learner_config(tmp_path: Path, capsys) -> None:
    out = tmp_path / "bench"
    refused(["benchmark", "/dev/zero", "--out", str(out)], f"'/dev/zero': {NOT_REGULAR}", capsys)
    spec = spec_with(tmp_path, Path("/dev/zero"))
    err = refused(["benchmark", str(spec), "--out", str(out)], NOT_REGULAR, capsys)
    assert "learner maskable_ppo" in err
    assert not out.exists()


@pytest.mark.parametrize("case", ["fifo", "billion_laughs", "deep"])
def test_benchmark_refuses_a_bad_learner_config(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "learner"
    folder.mkdir()
    make, expected = TRAIN_CASES[case]
    spec = spec_with(tmp_path, make(folder))
    out = tmp_path / "bench"
    err = refused(["benchmark", str(spec), "--out", str(out)], expected, capsys)
    assert "learner maskable_ppo" in err
    assert not out.exists()


# ---- --option, --players, --jobs and bot specs -----------------------------------------

EVAL = ["eval", "--env", "asrus_v0", "--games", "2", "--no-progress"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(DIGITS, TOO_MANY_DIGITS), (DEEP, TOO_DEEP), (BILLION_LAUGHS.replace("\n", ", "), ALIAS)],
)
def test_eval_refuses_a_bad_option_value(
    value: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*EVAL, "--players", "random,random", "--out", str(tmp_path / "out")]
    refused([*argv, "--option", f"max_steps={value}"], expected, capsys)
    assert not (tmp_path / "out").exists()


def test_a_long_bot_spec_is_a_clear_error(tmp_path: Path, capsys) -> None:
    argv = [*EVAL, "--players", "a" * 300 + ",random", "--out", str(tmp_path / "out")]
    refused(argv, "cannot be read as a checkpoint path (File name too long); a bot spec is", capsys)


def test_thousands_of_players_are_refused_with_the_allowed_count(tmp_path: Path, capsys) -> None:
    argv = [*EVAL, "--players", ",".join(["random"] * 10_000), "--out", str(tmp_path / "out")]
    refused(argv, "10,000 bot specs given; allowed: at most 64 in one list", capsys)


def test_jobs_is_bounded_with_the_allowed_range(tmp_path: Path, capsys) -> None:
    argv = [*EVAL, "--players", "random,random", "--out", str(tmp_path / "out")]
    limit = max_jobs()
    assert limit >= 8
    refused([*argv, "--jobs", "100000"], f"must be an integer from 1 to {limit}", capsys)
    refused([*argv, "--jobs", "0"], f"must be an integer from 1 to {limit}", capsys)
