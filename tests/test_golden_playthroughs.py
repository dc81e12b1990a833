"""Golden playthroughs: each whole seeded game listed in tests/golden/specs.json
must replay exactly as its stored text. After an intended change, regenerate
with ``python -m flockgym.envs.core.playthrough tests/golden`` and review the diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from flockgym.envs import list_envs
from flockgym.envs.core.playthrough import load_specs, playthrough_text

GOLDEN = Path(__file__).parent / "golden"
SPECS = load_specs(GOLDEN)


@pytest.mark.parametrize("spec", SPECS, ids=[s["name"] for s in SPECS])
def test_playthrough_replays_exactly(spec):
    if spec["env"] not in list_envs():
        pytest.fail(f"golden playthrough {spec['name']} names unregistered env {spec['env']}")
    expected = (GOLDEN / f"{spec['name']}.txt").read_text().splitlines()
    actual = playthrough_text(spec["env"], spec.get("options", {}), spec["seed"]).splitlines()
    for number, (want, got) in enumerate(zip(expected, actual, strict=False), start=1):
        assert got == want, f"{spec['name']}.txt line {number} differs"
    assert len(actual) == len(expected), (
        f"{spec['name']}: {len(actual)} lines, {len(expected)} stored"
    )
