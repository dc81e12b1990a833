"""``flockgym reproduce``: a tiny run trained again from its folder gives the same
weights bit for bit and the same evaluations (exit 0); tampered weights are named
(exit 1); another recorded commit is a warning; bad input exits 2 and writes
nothing; ``--dry-run`` trains nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from training_helpers import tiny_config

from flockgym.bots.checkpoints import (
    MAX_MEMBER_BYTES,
    META_MEMBER,
    POLICY_MEMBER,
    CheckpointArchive,
    tensor_bytes,
    write_checkpoint,
)
from flockgym.cli import main
from flockgym.evaluation.reproduce import commit_warnings, json_differences
from flockgym.training.train import train

TINY = {
    "total_steps": 512,
    "output__checkpoint_every": 256,
    "eval": {"every": 256, "games": 2, "opponents": ["random"], "tournament_games": 2},
}
"""Two iterations of 256 steps, evaluated at 0, 256 and 512, with a final
tournament and a checkpoint at 256 (for ``--steps``)."""


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train(tiny_config("asrus_v0", tmp_path_factory.mktemp("recorded"), **TINY))


def copy_run(run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    return copy


def test_a_run_trained_again_is_bit_identical(recorded_run: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "again"
    assert main(["reproduce", str(recorded_run), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "REPRODUCED: weights bit-identical (12 tensors); evaluation equal" in printed
    result = json.loads((out / "reproduce.json").read_text())
    assert result["reproduced"] is True
    assert result["weights"] == {
        "compared_with": str(recorded_run / "final.zip"),
        "bit_identical": True,
        "detail": "bit-identical (12 tensors)",
    }
    assert result["evaluation"] == {"equal": True, "differences": []}
    assert result["seed"] == 3 and result["kind"] == "run"
    assert (out / "final.zip").is_file() and (out / "tournament" / "tournament.json").is_file()


def test_tampered_weights_and_another_commit(recorded_run: Path, tmp_path: Path, capsys) -> None:
    run = copy_run(recorded_run, tmp_path)
    with CheckpointArchive(run / "final.zip") as archive:
        meta = archive.read(META_MEMBER, MAX_MEMBER_BYTES)
        weights = archive.tensors(POLICY_MEMBER, MAX_MEMBER_BYTES)
    weights["action_net.bias"][7] += 0.25
    write_checkpoint(run / "final.zip", {META_MEMBER: meta, POLICY_MEMBER: tensor_bytes(weights)})
    info = json.loads((run / "run.json").read_text())
    info["git_commit"] = "0123456789abcdef0123456789abcdef01234567"
    (run / "run.json").write_text(json.dumps(info))

    out = tmp_path / "again"
    assert main(["reproduce", str(run), "--out", str(out)]) == 1
    printed = capsys.readouterr().out
    assert (
        "NOT REPRODUCED: weights action_net.bias differs first: max abs difference 0.25; "
        "evaluation equal" in printed
    )
    assert "warning: the run was recorded at commit 0123456789abcdef0123456789abcdef01234567, " in (
        printed
    )
    result = json.loads((out / "reproduce.json").read_text())
    assert result["reproduced"] is False and result["weights"]["bit_identical"] is False
    assert result["recorded_commit"] == "0123456789abcdef0123456789abcdef01234567"
    assert result["warnings"][0].startswith("the run was recorded at commit 0123456789abcdef")


def test_the_first_steps_against_their_checkpoint(recorded_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "first"
    assert main(["reproduce", str(recorded_run), "--steps", "256", "--out", str(out)]) == 0
    result = json.loads((out / "reproduce.json").read_text())
    assert result["weights"]["compared_with"] == str(
        recorded_run / "checkpoints" / "step_000000256.zip"
    )
    assert result["weights"]["bit_identical"] is True and result["evaluation"]["equal"] is True


def test_commit_warnings() -> None:
    same = "a" * 40
    assert commit_warnings(same, same) == []
    assert commit_warnings("unknown", same) == [
        f"commit unknown (recorded unknown, this checkout {same}): the code may differ from "
        "the recorded run's"
    ]
    assert commit_warnings(same + "+dirty", same) == [
        f"commit {same}+dirty recorded, {same} here: uncommitted changes (+dirty) may make "
        "the code differ"
    ]


def test_evaluations_differ_field_by_field_paths_aside() -> None:
    recorded = {"standings": [{"spec": "a/final.zip", "win_rate": 0.5, "games": 4}]}
    rerun = {"standings": [{"spec": "b/final.zip", "win_rate": 0.25, "games": 4}]}
    assert json_differences(recorded, rerun, "tournament") == [
        "tournament.standings[0].win_rate: 0.5 recorded, 0.25 in the re-run"
    ]
    assert json_differences([1], [1, 2], "progress") == [
        "progress: 1 recorded entries, 2 in the re-run"
    ]


def damaged_run_json(run: Path) -> str:
    (run / "run.json").write_text("{not json")
    return f"{run / 'run.json'} is not a run state"


def other_seed(run: Path) -> str:
    info = json.loads((run / "run.json").read_text())
    info["seed"] = 4
    (run / "run.json").write_text(json.dumps(info))
    return f"{run / 'run.json'}: seed = 4, but config.yaml says seed = 3"


def no_config(run: Path) -> str:
    (run / "config.yaml").unlink()
    return f"{run} is not a run folder: it has no config.yaml"


def damaged_config(run: Path) -> str:
    (run / "config.yaml").write_text("env: [1\n")
    return f"{run / 'config.yaml'} is damaged: not valid YAML"


def unfinished(run: Path) -> str:
    state = json.loads((run / "state.json").read_text())
    state.update(phase="training", step=256, checkpoint="checkpoints/step_000000256.zip")
    (run / "state.json").write_text(json.dumps(state))
    return f"{run} is unfinished (state.json: phase 'training' at step 256)"


@pytest.mark.parametrize(
    "damage", [damaged_run_json, other_seed, no_config, damaged_config, unfinished]
)
def test_a_damaged_run_exits_2_and_writes_nothing(
    damage, recorded_run: Path, tmp_path: Path, capsys
) -> None:
    run = copy_run(recorded_run, tmp_path)
    message = damage(run)
    out = tmp_path / "again"
    assert main(["reproduce", str(run), "--out", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_bad_arguments_exit_2(recorded_run: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "again"
    assert main(["reproduce", str(tmp_path / "nowhere"), "--out", str(out)]) == 2
    assert f"{tmp_path / 'nowhere'} does not exist: give a run folder" in capsys.readouterr().err
    assert main(["reproduce", str(recorded_run), "--steps", "300", "--out", str(out)]) == 2
    assert (
        "--steps 300: " + str(recorded_run) + " has no checkpoint of that step; allowed: the "
        "steps of its checkpoints (step_000000256.zip, step_000000512.zip)"
    ) in capsys.readouterr().err
    out.mkdir()
    assert main(["reproduce", str(recorded_run), "--out", str(out)]) == 2
    assert f"--out {out} exists" in capsys.readouterr().err
    assert sorted(tmp_path.iterdir()) == [out] and not any(out.iterdir())


def test_dry_run_of_a_shipped_checkpoint(tmp_path: Path, capsys) -> None:
    out = tmp_path / "again"
    assert main(["reproduce", "asrus/ppo_5p", "--dry-run", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "(shipped): seed 0, 1251328 steps of asrus_v0" in printed
    assert (
        "recorded command: flockgym train configs/asrus/ppo.yaml --set vec_env=batched "
        "--set batched.engine=vector --set n_envs=256 --set algo.n_steps=8 "
        "--set eval.every=100000000 --set total_steps=3000000 "
        "--set output.name=asrus-ppo-5p-vec-seed0\n" in printed
    )
    assert "recorded wall time: 5 min 51 s\n" in printed
    assert "the checkpoint is of step 1251328, before the config's total_steps 3000000" in printed
    assert "warning: the run was recorded at commit 8d948e06e1ef0ac21711cc21e8057d99868a32be" in (
        printed
    )
    assert "dry run: nothing trained" in printed
    assert not out.exists()


def test_dry_run_of_a_run(recorded_run: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "again"
    assert main(["reproduce", str(recorded_run), "--dry-run", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"reproduce {recorded_run} (run): seed 3, 512 steps of asrus_v0" in printed
    assert f"compares its final weights with {recorded_run / 'final.zip'}" in printed
    assert not out.exists()


@pytest.mark.parametrize(("name", "step", "trains"), [("skybirds/ppo_2p", "1,503,232", "750,000")])
def test_a_shipped_plan_that_cannot_match_is_refused(
    name: str, step: str, trains: str, tmp_path: Path, capsys
) -> None:
    """Its recorded command's config trains half the checkpoint's steps: a
    39-minute re-run that could never match is refused (exit 2), not planned."""
    out = tmp_path / "again"
    assert main(["reproduce", name, "--dry-run", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"the checkpoint is of step {step}" in err and f"trains {trains} steps" in err
    assert "no re-run of it can give these weights" in err and "reproduce a run folder" in err
    assert not out.exists()


def test_a_saved_grid_plans_one_cell_and_refuses_a_spec_it_did_not_run(
    tmp_path: Path, capsys
) -> None:
    root = Path(__file__).resolve().parent.parent.parent
    saved = root / "benchmarks" / "results" / "benchmark_full" / "benchmark.json"
    specs = root / "benchmarks" / "specs"
    out = tmp_path / "again"
    assert main(["reproduce", str(saved), "--dry-run", "--out", str(out)]) == 2
    assert "does not name the spec it ran" in capsys.readouterr().err
    argv = ["reproduce", str(saved), "--spec", str(specs / "tiny.yaml"), "--out", str(out)]
    assert main([*argv, "--dry-run"]) == 2
    assert "is not the spec" in capsys.readouterr().err
    argv[3] = str(specs / "full.yaml")
    assert main([*argv, "--cell", "maskable_ppo/asrus_v0-5p/0", "--dry-run"]) == 0
    assert "1 of its 60 runs" in capsys.readouterr().out
    assert main([*argv, "--cell", "nobody/asrus_v0-5p/0", "--dry-run"]) == 2
    assert "--cell nobody/asrus_v0-5p/0: no such run" in capsys.readouterr().err
    assert main([*argv, "--dry-run"]) == 0
    assert "60 of its 60 runs" in capsys.readouterr().out
    assert not out.exists()


@pytest.mark.slow
def test_a_cell_of_a_saved_grid_is_trained_again_to_the_same_scores(tmp_path: Path, capsys) -> None:
    root = Path(__file__).resolve().parent.parent.parent
    spec = root / "benchmarks" / "specs" / "tiny.yaml"
    grid = tmp_path / "grid"
    assert main(["benchmark", str(spec), "--out", str(grid), "--no-progress"]) == 0
    again = tmp_path / "again"
    argv = ["reproduce", str(grid / "benchmark.json"), "--cell", "masked_dqn/asrus_v0-3p/1"]
    assert main([*argv, "--out", str(again)]) == 0  # the grid names its spec file
    assert "reproduced: every rung's score of 1 run(s) is the same" in capsys.readouterr().out
    result = json.loads((again / "reproduce_grid.json").read_text())
    assert result["reproduced"] and result["cells"] == ["masked_dqn/asrus_v0-3p/1"]
    assert result["provenance"]["commit"]
