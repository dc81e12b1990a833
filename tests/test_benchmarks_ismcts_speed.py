"""docs/search.md's tree-search figures are the saved runs': the speed table is
``benchmarks/ismcts_speed.py --summary`` of the saved JSON, and each row of its
strength table states its saved sequential test (deals, decision, win rate)."""

from __future__ import annotations

import json

import pytest
from script_loader import load_script

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def test_the_speed_table_is_the_saved_runs() -> None:
    script = load_script("ismcts_speed")
    docs = (ROOT / "docs" / "search.md").read_text()
    begin = "<!-- ismcts speed: python benchmarks/ismcts_speed.py --summary "
    path, rest = docs.split(begin, 1)[1].split(" -->\n", 1)
    stated = rest.split("<!-- end -->", 1)[0].strip()
    saved = json.loads((ROOT / path).read_text())
    assert stated == script.summary(saved)
    assert {row["env"] for row in saved["rows"]} == {
        "arena_v0",
        "asrus_v0",
        "astrobirdz_v0",
        "skybirds_v0",
    }


def test_the_stated_resample_speed_ups_are_the_saved_runs() -> None:
    """The prose's speed-up of the unchecked resample over the checked one (the
    loader path), per search method, is the range of the saved run's rows."""
    docs = " ".join((ROOT / "docs" / "search.md").read_text().split())
    saved = json.loads((ROOT / "benchmarks/results/ismcts_speed.json").read_text())
    ups = {
        name: [row["speedup_over_checked"][name] for row in saved["rows"]]
        for name in ("ismcts", "search")
    }
    tree, one = ups["ismcts"], ups["search"]
    assert (
        f"{min(tree):.1f} to {max(tree):.1f} times as fast in the tree search and "
        f"{min(one):.1f} to {max(one):.1f} times in the one-move search"
    ) in docs
    assert all(up > 1 for up in tree + one)


def test_the_strength_rows_are_their_saved_sequential_tests() -> None:
    docs = (ROOT / "docs" / "search.md").read_text()
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in docs.splitlines()
        if line.startswith("| ") and "_sprt`" in line
    ]
    assert rows
    for env, players, deals, decision, rate, folder in rows:
        saved = json.loads(
            (ROOT / "benchmarks/results/search" / folder.strip("`") / "compare.json").read_text()
        )
        sprt = saved["sprt"]
        assert saved["config"]["env"] == env
        assert (saved["config"]["a"]["spec"], saved["config"]["b"]["spec"]) == (
            "ismcts:budget=1s",
            "heuristic",
        )
        assert saved["num_players"] == int(players)
        assert saved["deals"] == int(deals)
        said = {"H1": "H1 accepted", "H0": "H0 accepted", "none": "undecided"}[sprt["decision"]]
        assert decision.startswith(said)
        assert f"LLR {sprt['llr']:.2f}" in decision
        assert rate == f"{saved['standings'][0]['win_rate']:.1%}"


def test_the_openspiel_table_is_the_saved_run() -> None:
    pytest.importorskip("pyspiel")
    script = load_script("ismcts_openspiel_peer")
    docs = (ROOT / "docs" / "search.md").read_text()
    begin = "<!-- ismcts peer: python benchmarks/ismcts_openspiel_peer.py --summary "
    path, rest = docs.split(begin, 1)[1].split(" -->\n", 1)
    stated = rest.split("<!-- end -->", 1)[0].strip()
    assert stated == script.summary(json.loads((ROOT / path).read_text()))


def test_the_duel_table_is_the_saved_runs() -> None:
    """docs/search.md's head-to-head with OpenSpiel's ISMCTSBot is
    ``benchmarks/ismcts_openspiel_duel.py --summary`` of the saved runs."""
    pytest.importorskip("pyspiel")
    script = load_script("ismcts_openspiel_duel")
    docs = (ROOT / "docs" / "search.md").read_text()
    begin = "<!-- ismcts duel: python benchmarks/ismcts_openspiel_duel.py --summary "
    paths, rest = docs.split(begin, 1)[1].split(" -->\n", 1)
    stated = rest.split("<!-- end -->", 1)[0].strip()
    runs = [json.loads((ROOT / path).read_text()) for path in paths.split()]
    assert stated == script.summary(runs)
    for run in runs:  # each deal played at every seating
        seatings = max(2, run["players"])
        assert all(len(d["ours"]) == len(d["theirs"]) == seatings for d in run["deals"])


def test_the_duel_pairs_deals_and_states_a_t_interval() -> None:
    """The duel's difference is the mean of per-deal differences, its interval
    scipy's t interval over deals (checked against scipy's own function)."""
    scipy_stats = pytest.importorskip("scipy.stats")
    pytest.importorskip("pyspiel")
    script = load_script("ismcts_openspiel_duel")
    run = {"deals": [{"ours": [1, 0.5], "theirs": [0, 0.5]}, {"ours": [0, 0], "theirs": [1, 1]},
                     {"ours": [1, 1], "theirs": [0, 0]}]}  # fmt: skip
    ours, theirs, diff, half = script.paired(run)
    diffs = [0.75 - 0.25, 0.0 - 1.0, 1.0 - 0.0]
    low, high = scipy_stats.t.interval(
        0.95, len(diffs) - 1, loc=sum(diffs) / 3, scale=scipy_stats.sem(diffs)
    )
    assert (ours, theirs) == (pytest.approx(7 / 12), pytest.approx(5 / 12))
    assert diff == pytest.approx(sum(diffs) / 3)
    assert (diff - half, diff + half) == (pytest.approx(low), pytest.approx(high))
    assert script.seatings(2) == [(0, 1), (1, 0)]
    assert script.seatings(3) == [(0, 1), (1, 2), (2, 0)]
