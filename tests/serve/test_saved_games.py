"""Saved games as regression cases: every file in ``tests/serve/saved/`` (games
saved by the server and by terminal play) must replay exactly: each action's
string, the final scores and the winners. After an intended rule change,
regenerate them with ``python tests/serve/make_saved.py`` and review the diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from flockgym.envs import list_envs
from flockgym.play import SavedGameError, load_record, replay_record

SAVED = sorted((Path(__file__).parent / "saved").glob("*.json"))


def test_there_are_saved_games_of_every_drawn_game():
    envs = {load_record(path)["env"] for path in SAVED}
    assert {"asrus_v0", "astrobirdz_v0"} <= envs <= set(list_envs())


@pytest.mark.parametrize("path", SAVED, ids=[p.stem for p in SAVED])
def test_a_saved_game_replays_exactly(path: Path):
    record = load_record(path)
    assert record["status"] == "over"
    try:
        replay_record(record)
    except SavedGameError as err:
        pytest.fail(
            f"{path.name} no longer replays ({err}); after an intended rule change run "
            f"`python tests/serve/make_saved.py` and review the diff"
        )
