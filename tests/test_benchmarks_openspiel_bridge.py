"""docs/own-code.md's bridge speed figures are the saved run's
(``benchmarks/openspiel_bridge.py --json benchmarks/results/openspiel_bridge.json``):
every row of its table and the information-state costs under it."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAVED = ROOT / "benchmarks" / "results" / "openspiel_bridge.json"


def test_the_bridge_table_is_the_saved_run() -> None:
    saved = json.loads(SAVED.read_text())
    docs = (ROOT / "docs" / "own-code.md").read_text()
    assert {row["env"] for row in saved["rows"]} == {
        "arena_v0",
        "asrus_v0",
        "astrobirdz_v0",
        "skybirds_v0",
    }
    for row in saved["rows"]:
        stated = (
            f"| {row['env']} | {row['aec']['per_cpu_s']:,.0f} | {row['bridge']['per_cpu_s']:,.0f} "
            f"| {row['ratio']:.2f} | {row['bridge+tensor']['per_cpu_s']:,.0f} "
            f"| {row['ratio_tensor']:.2f} | {row['backgammon']['per_cpu_s']:,.0f} "
            f"| {row['ratio_peer']:.2f} |"
        )
        assert stated in docs, row["env"]


def test_the_information_state_costs_are_the_saved_run() -> None:
    cost = json.loads(SAVED.read_text())["infostate"]
    docs = " ".join((ROOT / "docs" / "own-code.md").read_text().split())
    assert f"At move {cost['moves']} of a 4-player Arena game" in docs
    assert f"took {cost['bridge_first_string_ms']:.1f} ms" in docs
    assert f"later ones {cost['bridge_string_ms']:.2f} ms" in docs
    assert f"`information_state_tensor` {cost['bridge_tensor_ms']:.2f} ms" in docs
    assert f"replays the game at every call, {cost['env_replay_string_ms']:.1f} ms" in docs
