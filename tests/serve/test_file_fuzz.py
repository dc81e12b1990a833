"""One-field fuzzers over saved games and server journals (see file_fuzz.py): every
changed file is refused by name or accepted and then works; none raises a bare
error and none is accepted and then breaks. The normal suite runs a seeded sample
of the cases; ``make test-slow`` runs all of them, over a game of every env."""

from __future__ import annotations

from pathlib import Path

import pytest
from file_fuzz import SMALL_GAMES, Tally, base_journals, fuzz_journals, fuzz_records, played_record

FAST_ENVS = ("asrus_v0", "astrobirdz_v0", "arena_v0")
"""The envs whose games are short enough for the normal suite's sample."""


def check(tally: Tally, what: str) -> None:
    print(f"{what}: {tally.cases} cases, {dict(sorted(tally.counts.items()))}")
    assert tally.counts["bare"] == 0 and tally.counts["broken"] == 0, tally.failures
    assert tally.counts["refused"] > 0 and tally.counts["accepted"] > 0


def test_a_sample_of_one_field_changes_of_saved_games(tmp_path: Path):
    bases = [played_record(env_id, 5) for env_id in FAST_ENVS]
    tally = fuzz_records(tmp_path / "records", bases, limit=150, seed=1)
    check(tally, "saved games")
    assert tally.cases == 150


def test_a_sample_of_one_field_changes_of_journals(tmp_path: Path):
    bases = base_journals(tmp_path / "bases", envs=("asrus_v0", "astrobirdz_v0"))
    tally = fuzz_journals(tmp_path / "journals", bases, limit=150, seed=1)
    check(tally, "journals")
    assert tally.cases == 150


@pytest.mark.slow
def test_every_one_field_change_of_saved_games(tmp_path: Path):
    bases = [played_record(env_id, 5) for env_id in SMALL_GAMES]
    tally = fuzz_records(tmp_path / "records", bases)
    check(tally, "saved games")
    assert tally.cases > 5_000


@pytest.mark.slow
def test_every_one_field_change_of_journals(tmp_path: Path):
    bases = base_journals(tmp_path / "bases")
    tally = fuzz_journals(tmp_path / "journals", bases)
    check(tally, "journals")
    assert tally.cases > 10_000
