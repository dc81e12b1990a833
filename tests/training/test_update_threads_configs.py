"""The shipped configs run the PPO update on one torch thread: torch's OpenMP
threads spin while they wait for each other, so with one other busy process an
update on 2 threads took 4x the time of one (docs/scale.md, "The update on more
threads"); one thread is the default that cannot lose that on a shared machine."""

from __future__ import annotations

from pathlib import Path

import torch
import yaml

from flockgym.training.config import load_config
from flockgym.training.learners import MaskablePPOParams, train_with_threads

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_every_shipped_config_updates_on_one_thread() -> None:
    """Each config file's own ``algo.update_threads`` (absent: the learner's
    default, None, i.e. ``torch_threads``, itself 1 by default)."""
    found = {}
    for path in sorted(CONFIGS.rglob("*.yaml")):
        raw = yaml.safe_load(path.read_text())
        found[path.relative_to(CONFIGS).as_posix()] = (
            raw.get("torch_threads", "absent"),
            raw["algo"].get("update_threads", "absent"),
        )
    assert found == {
        "arena/ppo.yaml": (1, "absent"),
        "arena/ppo_2p.yaml": (1, "absent"),
        "asrus/ppo.yaml": (1, "absent"),
        "asrus/rllib_ppo.yaml": (1, "absent"),
        "astrobirdz/expert_iteration_2p.yaml": (1, "absent"),
        "astrobirdz/ppo.yaml": (1, 1),
        "astrobirdz/ppo_2p.yaml": (1, "absent"),
        "quickstart.yaml": ("absent", 1),
        "skybirds/ppo.yaml": (1, "absent"),
        "skybirds/ppo_2p.yaml": (1, "absent"),
    }
    for name in ["quickstart.yaml", "astrobirdz/ppo.yaml"]:
        config = load_config(CONFIGS / name)
        assert (config.torch_threads, config.algo.update_threads) == (1, 1)
    assert load_config(CONFIGS / "asrus" / "ppo.yaml").torch_threads == 1


def test_the_default_is_the_rollouts_threads() -> None:
    assert MaskablePPOParams().update_threads is None


def test_an_update_on_one_thread_stays_on_one() -> None:
    saved = torch.get_num_threads()
    seen: list[int] = []
    try:
        torch.set_num_threads(1)
        train_with_threads(lambda: seen.append(torch.get_num_threads()), 1)
        assert seen == [1]
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(saved)
