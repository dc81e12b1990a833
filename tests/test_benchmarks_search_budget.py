"""benchmarks/search_budget.py: a sweep saves each budget as it finishes, a
rerun plays only the budgets not saved, and its table and plot come from the
saved file."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "search_budget.py"


@pytest.fixture(scope="module")
def search_budget() -> ModuleType:
    if str(SCRIPT.parent) not in sys.path:  # as when it runs: its folder on the path
        sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("bench_search_budget", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_sweep_resumes_and_its_table_comes_from_the_saved_file(
    search_budget: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sweep.json"
    argv = ["--env", "astrobirdz_v0", "--budgets", "4", "--deals", "2", "--out", str(out)]
    search_budget.main(argv)
    first = json.loads(out.read_text())
    [row] = first["rows"]
    assert (first["env"], first["players"], first["seed"], first["deals"]) == (
        "astrobirdz_v0",
        2,
        2000,
        2,
    )
    assert row["budget"] == 4 and row["games"] == 4  # 2 deals, the seats swapped
    assert row["searched_moves"] > 0 and 0 < row["simulations_per_move"] <= 4
    capsys.readouterr()

    # Again with one more budget: the saved one is not played again.
    search_budget.main([*argv[:3], "4,1", *argv[4:]])
    again = json.loads(out.read_text())
    assert [r["budget"] for r in again["rows"]] == [1, 4]
    assert again["rows"][1] == row
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 1 and printed[0].startswith("| astrobirdz_v0 | 2 | 1 | 2 | ")

    png = tmp_path / "plot.png"
    search_budget.main(["--plot", str(out), "--png", str(png)])
    table = capsys.readouterr().out
    assert table.splitlines()[2] == search_budget.table_row("astrobirdz_v0", 2, again["rows"][0])
    assert png.read_bytes()[:4] == b"\x89PNG"

    # Another sweep's file is refused, not mixed.
    with pytest.raises(SystemExit, match="holds another sweep"):
        search_budget.main([*argv[:5], "3", *argv[6:]])
