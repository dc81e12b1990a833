"""What the new-game form offers: every model says what it is, and per game and
player count the strongest shipped bot (by its saved win rate against the
heuristic) is marked as the default opponent; a user's own model never is."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from serve_helpers import CheckedClient, make_client, write_checkpoint

from flockgym.play.models import Evaluation, ModelCatalogue, saved_evaluation

STRONGEST = {
    "arena_v0": {"shipped/arena/ppo_2p.zip", "shipped/arena/ppo_4p.zip"},
    "asrus_v0": {"shipped/asrus/ppo_5p.zip"},
    "astrobirdz_v0": {"shipped/astrobirdz/ppo_2p.zip", "shipped/astrobirdz/ppo_4p.zip"},
    "skybirds_v0": {"shipped/skybirds/ppo_2p.zip", "shipped/skybirds/ppo_4p.zip"},
}
"""Each shipped bot wins more than a fair share against the heuristic and is the
only one at its player count, so each is its table's strongest."""


def tournament(folder: Path, spec: str, players: int, seating: str, rate: float, games: int):
    """A saved evaluation as ``flockgym eval`` writes it (the fields read here)."""
    folder.mkdir(parents=True)
    standings = [{"name": spec, "spec": spec, "games": games, "win_rate": rate}]
    standings.append({"name": "heuristic", "spec": "heuristic", "games": games, "win_rate": 0.1})
    result = {"num_players": players, "seating": seating, "standings": standings}
    (folder / "tournament.json").write_text(json.dumps(result))


def test_the_models_list_marks_the_strongest_shipped_bot_and_says_what_each_is(
    client: CheckedClient,
):
    envs = {e["id"]: e for e in client.envs()}
    for env_id, strongest in STRONGEST.items():
        models = envs[env_id]["models"]
        assert {m["id"] for m in models if m["strongest"]} == strongest
        for model in models:
            assert model["shipped"] == model["id"].startswith("shipped/")
            if not model["shipped"]:  # the test's --models folder: the user's own
                assert model["win_rate_vs_heuristic"] is None and not model["strongest"]
                assert (
                    model["description"] == "your model (0 steps of training; not evaluated here)"
                )
    skybirds = {m["id"]: m for m in envs["skybirds_v0"]["models"]}["shipped/skybirds/ppo_2p.zip"]
    saved = Path(__file__).resolve().parents[2] / "checkpoints/skybirds/ppo_2p_eval/heuristic"
    standing = json.loads((saved / "tournament.json").read_text())["standings"][0]
    assert skybirds["win_rate_vs_heuristic"] == standing["win_rate"]
    assert skybirds["description"] == (
        f"shipped, trained; wins {100 * standing['win_rate']:.1f}% against the heuristic "
        f"(2 players, {standing['games']} games)"
    )


def test_the_saved_evaluation_is_read_beside_the_checkpoint(tmp_path: Path):
    zip_path = write_checkpoint(
        tmp_path / "skybirds" / "ppo_4p.zip", "skybirds_v0", {"num_players": 4}
    )
    assert saved_evaluation(zip_path) is None
    tournament(tmp_path / "skybirds/ppo_4p_eval/field_heuristic", "checkpoints/skybirds/ppo_4p.zip",
               4, "field", 0.698, 400)  # fmt: skip
    evaluation = saved_evaluation(zip_path)
    assert evaluation == Evaluation(win_rate=0.698, games=400, players=4, alone=True)
    assert evaluation.text() == (
        "wins 69.8% alone among 3 heuristic bots (4 players, 400 games; a fair share is 25%)"
    )


def test_a_malformed_or_foreign_evaluation_is_no_evaluation(tmp_path: Path):
    zip_path = write_checkpoint(tmp_path / "arena" / "ppo_2p.zip", "arena_v0", {"num_players": 2})
    folder = tmp_path / "arena/ppo_2p_eval/heuristic"
    tournament(folder, "checkpoints/arena/other.zip", 2, "rotate", 0.9, 100)  # another bot's
    assert saved_evaluation(zip_path) is None
    (folder / "tournament.json").write_text("{not json")
    assert saved_evaluation(zip_path) is None
    (folder / "tournament.json").write_text(json.dumps({"standings": [{"spec": "x"}]}))
    assert saved_evaluation(zip_path) is None


def test_the_strongest_needs_more_than_a_fair_share_and_the_highest_rate(tmp_path: Path):
    shipped = tmp_path / "shipped"
    for name, rate in [("weak", 0.25), ("good", 0.40), ("better", 0.55)]:
        write_checkpoint(shipped / "skybirds" / f"{name}.zip", "skybirds_v0", {"num_players": 4})
        tournament(shipped / f"skybirds/{name}_eval/field_heuristic",
                   f"checkpoints/skybirds/{name}.zip", 4, "field", rate, 400)  # fmt: skip
    write_checkpoint(shipped / "skybirds" / "alone.zip", "skybirds_v0", {"num_players": 2})
    tournament(
        shipped / "skybirds/alone_eval/heuristic",
        "checkpoints/skybirds/alone.zip",
        2,
        "rotate",
        0.5,
        400,
    )  # fmt: skip  (exactly a fair share: not stronger)
    own = tmp_path / "mine"
    write_checkpoint(own / "run" / "final.zip", "skybirds_v0", {"num_players": 4})
    entries = ModelCatalogue([own], shipped).entries()
    assert {e.id: e.strongest for e in entries} == {
        "mine/run": False,
        "shipped/skybirds/alone.zip": False,
        "shipped/skybirds/better.zip": True,
        "shipped/skybirds/good.zip": False,
        "shipped/skybirds/weak.zip": False,
    }


def test_a_checkpoint_whose_metadata_cannot_be_read_is_skipped_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """One unreadable checkpoint in a ``--models`` folder (a 5,000-digit number in its
    flockgym.json: Python's digit limit raises a bare ValueError) is left out of the
    listing with a warning naming it, once; the other models and games go on."""
    folder = tmp_path / "models"
    write_checkpoint(folder / "good.zip", "asrus_v0", {"num_players": 3})
    bad = write_checkpoint(folder / "bad.zip", "asrus_v0", {"num_players": 3})
    with zipfile.ZipFile(bad) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    meta = json.loads(members["flockgym.json"])
    members["flockgym.json"] = (
        json.dumps(meta).replace(f'"steps": {meta["steps"]}', '"steps": ' + "9" * 5000).encode()
    )
    assert b"9" * 5000 in members["flockgym.json"]
    with zipfile.ZipFile(bad, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with make_client(tmp_path / "games", [folder]) as client:
        for _ in range(2):
            models = {m["id"] for e in client.envs() for m in e["models"]}
            assert "models/good.zip" in models and "models/bad.zip" not in models
        model = {"kind": "bot", "bot": "model", "model": "models/good.zip"}
        client.new_game("asrus_v0", [{"kind": "human"}, model, model], seed=1)
        client.new_game("asrus_v0", [{"kind": "human"}, *[{"kind": "bot", "bot": "random"}] * 2])
        refused = client.create(
            env="asrus_v0",
            options={"num_players": 3},
            seats=[{"kind": "human"}, {**model, "model": "models/bad.zip"}, model],
        )
        assert refused.status_code == 400 and "unknown model 'models/bad.zip'" in refused.text
    warnings = [line for line in capsys.readouterr().err.splitlines() if "bad.zip" in line]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("flockgym serve: model models/bad.zip skipped:")
    assert "digits" in warnings[0]
