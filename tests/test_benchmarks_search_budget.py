"""benchmarks/search_budget.py: a sweep saves each budget as it finishes, a
rerun plays only the budgets not saved, and its table and plot come from the
saved file."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from script_loader import load_script

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "search_budget.py"


@pytest.fixture(scope="module")
def search_budget() -> ModuleType:
    return load_script("search_budget")


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
    assert len(printed) == 1 and printed[0].startswith("| search | astrobirdz_v0 | 2 | 1 | 2 | ")

    # Another sweep's file is refused, not mixed.
    refused = r"holds a sweep of .*\(astrobirdz_v0, 2, 2000, 2, search\)"
    with pytest.raises(SystemExit, match=refused):
        search_budget.main([*argv[:5], "3", *argv[6:]])
    with pytest.raises(SystemExit, match=r"holds a sweep of .*bot"):  # the tree search's is its own
        search_budget.main(["--bot", "ismcts", *argv])
    assert json.loads(out.read_text()) == again
    with pytest.raises(SystemExit):
        search_budget.main([*argv[:3], "4,x", *argv[4:]])
    assert "allowed: simulation counts 1 to 100000" in capsys.readouterr().err

    search_budget.main(["--plot", str(out)])
    table = capsys.readouterr().out
    assert table.splitlines()[2] == search_budget.table_row("astrobirdz_v0", 2, again["rows"][0])

    # The tree search's sweep: its own file, its bot named in the table.
    tree = tmp_path / "tree.json"
    search_budget.main(["--bot", "ismcts", *argv[:6], "--out", str(tree)])
    saved = json.loads(tree.read_text())
    assert saved["bot"] == "ismcts" and saved["rows"][0]["simulations_per_move"] == 4
    capsys.readouterr()
    search_budget.main(["--plot", str(out), str(tree)])
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("| ismcts | astrobirdz_v0 | 2 | 4 | 2 | ")
    pytest.importorskip("matplotlib")  # the env-only install plots nothing
    png = tmp_path / "plot.png"
    search_budget.main(["--plot", str(out), "--png", str(png)])
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_docs_search_states_the_saved_sweeps(search_budget: ModuleType) -> None:
    """docs/search.md's think-time table is the saved sweeps' table, and its
    plot is there."""
    root = SCRIPT.parent.parent
    docs = (root / "docs" / "search.md").read_text()
    begin = "<!-- search budget: python benchmarks/search_budget.py --plot "
    command, rest = docs.split(begin, 1)[1].split(" -->\n", 1)
    files = [root / name for name in command.split(" --png ")[0].split()]
    assert files and all(path.is_file() for path in files)
    stated = rest.split("<!-- end -->", 1)[0].strip()
    assert stated == search_budget.table(files)
    png = root / command.split(" --png ")[1].strip()
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert f"]({png.relative_to(root / 'docs').as_posix()})" in docs


def test_docs_search_screening_rows_are_their_saved_tournaments() -> None:
    """Each row of docs/search.md that names a folder of benchmarks/results/search
    states that tournament's deals, spec and win rates."""
    root = SCRIPT.parent.parent
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in (root / "docs" / "search.md").read_text().splitlines()
        if line.startswith("| ") and line.rstrip().endswith("` |") and "search:" in line
    ]
    checked = 0
    for row in rows:
        folder = root / "benchmarks" / "results" / "search" / row[-1].strip("`")
        if not folder.is_dir():
            continue
        saved = json.loads((folder / "tournament.json").read_text())
        search, heuristic = saved["standings"]
        spec = search["spec"].replace(",method=paired", "")  # the default, left unsaid
        assert row[2] == f"`{spec}`" and heuristic["spec"] == "heuristic"
        assert int(row[3]) == saved["deals"]
        assert row[4].startswith(f"{search['win_rate']:.1%} ± {search['win_rate_ci']:.1%}")
        assert row[5] == f"{heuristic['win_rate']:.1%}"
        checked += 1
    assert checked >= 7


SWEEP_GAMES = {"arena_2p": "the Arena", "asrus_3p": "Asrus", "astrobirdz_2p": "Astrobirdz"}


@pytest.mark.parametrize("sweep", sorted(SWEEP_GAMES))
def test_docs_search_gives_one_rate_per_game_the_saved_sweeps(sweep: str) -> None:
    """What the default 1 s a move is in simulations: the simulations per CPU
    second of the sweep's largest budget (rounded to tens), the only figure
    docs/search.md gives for it (it once gave 600 and 620 for Astrobirdz). The
    rates at 10 simulations a move, a sentence of their own, are left aside."""
    import re

    root = SCRIPT.parent.parent
    saved = json.loads((root / "benchmarks/results/search_budget" / f"{sweep}.json").read_text())
    largest = max(saved["rows"], key=lambda row: row["budget"])
    rate = round(largest["simulations_per_move"] / largest["cpu_seconds_per_move"], -1)
    docs = " ".join((root / "docs" / "search.md").read_text().split())
    docs = re.sub(r"At these rates, taken at 10 simulations a move.*?on a free core", "", docs)
    game = SWEEP_GAMES[sweep]
    stated = re.findall(rf"(\d+)(?: simulations)?(?: per CPU second)? in {game}\b", docs)
    assert stated and set(stated) == {f"{rate:.0f}"}, (game, stated, rate)
