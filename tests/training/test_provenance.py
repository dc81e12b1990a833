"""Every saved result records how it was made: the commit, the command line,
the full package set, and the CPU and wall seconds it took."""

from __future__ import annotations

import json
from pathlib import Path

from flockgym.cli import main
from flockgym.common.provenance import Clock, command_line, package_set


def test_the_package_set_is_every_installed_distribution() -> None:
    packages = package_set()
    assert {"numpy", "scipy", "rliable", "arch", "flockgym"} <= set(packages)
    assert list(packages) == sorted(packages)
    record = Clock().record()
    assert record["packages"] == packages and record["command"] == command_line()
    assert record["wall_seconds"] >= 0 and record["cpu_seconds"] >= 0


def test_tournament_json_records_its_provenance(tmp_path: Path) -> None:
    out = tmp_path / "t"
    argv = ["eval", "--env", "asrus_v0", "--players", "random,heuristic", "--games", "2"]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    saved = json.loads((out / "tournament.json").read_text())
    provenance = saved["provenance"]
    assert provenance["commit"] and provenance["command"] == command_line()
    assert {"numpy", "scipy"} <= set(provenance["packages"])
    assert provenance["wall_seconds"] > 0 and provenance["cpu_seconds"] > 0
