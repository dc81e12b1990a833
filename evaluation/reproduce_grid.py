"""``flockgym reproduce SAVED/benchmark.json --spec SPEC.yaml [--cell L/G/S]``:
run one cell of a saved benchmark grid, or all of them, again, and say whether
every rung's score comes out the same.

A saved grid records its spec (learners, games, seeds, budget, evaluation) but
its learners' configs are files next to the spec it ran, so ``--spec`` names
that spec; it must be the very spec the grid recorded (else the re-run could
not match, and nothing runs). The re-run is an ordinary ``flockgym benchmark``
of the chosen cells into a new folder; each re-run cell's scores are compared
with the saved ones, field by field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flockgym.common.errors import ConfigError, RunError
from flockgym.common.provenance import Clock
from flockgym.envs.core.reader import read_json
from flockgym.evaluation.benchmark import (
    RESULT_VERSION,
    benchmark,
    game_label,
    load_spec,
    read_saved,
)
from flockgym.evaluation.reproduce import json_differences

RESULT_FILE = "reproduce_grid.json"


def parse_cell(text: str) -> tuple[str, str, int]:
    """``LEARNER/GAME/SEED`` (``maskable_ppo/asrus_v0-5p/0``)."""
    parts = text.split("/")
    if len(parts) != 3 or not parts[2].isdigit():
        raise RunError(
            f"--cell {text}: allowed: LEARNER/GAME/SEED as the grid labels them, e.g. "
            "maskable_ppo/asrus_v0-5p/0"
        )
    return parts[0], parts[1], int(parts[2])


def read_grid(saved: Path) -> dict[str, Any]:

    return read_saved(saved, (1, RESULT_VERSION))


def check_spec(saved: Path, grid: dict[str, Any], spec_path: Path | None) -> Path:
    """The spec the grid ran: ``--spec`` (or the file the grid recorded), which
    must load to the recorded spec exactly."""

    recorded = grid.get("spec_file")
    if spec_path is None and recorded is None:
        raise RunError(
            f"{saved} does not name the spec it ran (saved before grids recorded it): give "
            "--spec SPEC.yaml, the spec file the grid was run from (its learners' configs "
            "are named relative to it)"
        )
    path = spec_path if spec_path is not None else Path(str(recorded))
    try:
        spec = load_spec(path)
    except ConfigError as err:
        raise RunError(f"--spec {path}: {err}") from None
    if spec.model_dump() != grid["spec"]:
        changed = sorted(k for k, v in spec.model_dump().items() if grid["spec"].get(k) != v)
        raise RunError(
            f"--spec {path} is not the spec {saved} ran (they differ in {', '.join(changed)}): "
            "a re-run of it could not match; give the spec the grid was run from"
        )
    return path


def chosen_rows(grid: dict[str, Any], cell: str | None) -> list[dict[str, Any]]:
    rows = grid["runs"]
    if cell is None:
        return rows
    learner, game, seed = parse_cell(cell)
    found = [r for r in rows if (r["learner"], r["game"], r["seed"]) == (learner, game, seed)]
    if not found:
        cells = ", ".join(f"{r['learner']}/{r['game']}/{r['seed']}" for r in rows[:6])
        raise RunError(f"--cell {cell}: no such run in the grid; its cells are {cells}, ...")
    return found


def restricted_spec(spec_path: Path, rows: list[dict[str, Any]], out: Path) -> Path:
    """The grid's spec cut to the chosen cells (learners, games and seeds they
    use), its learner configs named absolutely, written into ``out``."""

    spec = load_spec(spec_path)
    keep = {(r["learner"], r["game"], r["seed"]) for r in rows}
    raw = spec.model_dump()
    raw["learners"] = [
        {**learner, "config": str((spec_path.parent / learner["config"]).resolve())}
        for learner in raw["learners"]
        if any(k[0] == learner["name"] for k in keep)
    ]
    raw["games"] = [
        game
        for game, model in zip(raw["games"], spec.games, strict=True)
        if any(k[1] == game_label(model) for k in keep)
    ]
    raw["seeds"] = [s for s in raw["seeds"] if any(k[2] == s for k in keep)]
    out.mkdir(parents=True, exist_ok=True)
    path = out / "spec.json"
    path.write_text(json.dumps(raw, indent=2) + "\n")  # JSON is YAML
    return path


def reproduce_grid(
    saved: Path, spec_path: Path | None, cell: str | None, out: Path | None, dry_run: bool
) -> int:
    """0 if every chosen cell's scores come out the same, 1 if not; bad input
    or a plan that cannot match raises :class:`RunError` before anything runs."""

    clock = Clock()
    grid = read_grid(saved)
    spec_file = check_spec(saved, grid, spec_path)
    rows = chosen_rows(grid, cell)
    if out is None:
        out = Path("runs") / "reproduce" / f"benchmark-{grid['spec']['name']}"
    if out.exists():
        raise RunError(f"--out {out} exists; give a new folder for the re-run")
    seconds = sum((r.get("train_seconds") or 0.0) + (r.get("eval_seconds") or 0.0) for r in rows)
    print(
        f"reproduce {saved}: {len(rows)} of its {len(grid['runs'])} runs, spec {spec_file}, "
        f"into {out}; recorded wall time {seconds / 60:.1f} min (training and evaluation)"
    )
    if dry_run:
        print("dry run: nothing trained")
        return 0
    benchmark(restricted_spec(spec_file, rows, out), out, progress=True)
    again = {
        (r["learner"], r["game"], r["seed"]): r
        for r in read_json(out / "benchmark.json", "saved grid")["runs"]
    }
    differences = []
    for r in rows:
        mine = again[(r["learner"], r["game"], r["seed"])]["scores"]
        label = f"{r['learner']}/{r['game']}/{r['seed']}"
        differences += json_differences(r["scores"], mine, label)
    result = {
        "saved": str(saved),
        "cells": [f"{r['learner']}/{r['game']}/{r['seed']}" for r in rows],
        "reproduced": not differences,
        "differences": differences,
        "provenance": clock.record(),
    }
    (out / RESULT_FILE).write_text(json.dumps(result, indent=2) + "\n")
    if differences:
        print("NOT reproduced:\n  " + "\n  ".join(differences[:20]))
        return 1
    print(f"reproduced: every rung's score of {len(rows)} run(s) is the same")
    return 0
