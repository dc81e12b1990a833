"""Expert iteration (``algo.name: expert_iteration``): a short run is
deterministic given its seed, a crashed run resumes to the very weights of an
uninterrupted one, its checkpoint guides the tree search as a prior, and keys
it does not read are refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from training_helpers import Crash

from flockgym.bots import load_policy
from flockgym.bots.policies import make_participant
from flockgym.common.errors import ConfigError
from flockgym.envs import make
from flockgym.training import expert_iteration
from flockgym.training.config import validate_config
from flockgym.training.train import resume_run, train

OPTIONS = {"num_players": 2, "engine": "compiled"}


def config(out: Path, **algo: object):
    raw = {
        "env": {"id": "astrobirdz_v0", "options": OPTIONS},
        "algo": {
            "name": "expert_iteration",
            "simulations": 3,
            "games_per_iteration": 1,
            "sampled_moves": 4,
            "batch_size": 16,
            "n_epochs": 2,
            "net_arch": [16],
            **algo,
        },
        "total_steps": 50,
        "seed": 7,
        "progress_bar": False,
        "eval": {"every": 0, "games": 2, "opponents": ["random"], "tournament_games": 0},
        "output": {"dir": str(out), "name": "run", "checkpoint_every": 1},
    }
    return validate_config(raw)


def weights(run: Path) -> dict[str, torch.Tensor]:
    return load_policy(run / "final.zip").network.state_dict()


def same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.slow  # 15 s: make test keeps the shorter checks of this file
def test_a_short_run_repeats_and_a_crashed_run_resumes_to_the_same_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = train(config(tmp_path / "a"))
    again = train(config(tmp_path / "b"))
    assert same(weights(reference), weights(again))

    log_iteration = expert_iteration.log_iteration

    def crash_on_the_second(model, run_dir, step, figures, count):
        log_iteration(model, run_dir, step, figures, count)
        if model.iterations == 2:
            raise Crash

    monkeypatch.setattr(expert_iteration, "log_iteration", crash_on_the_second)
    with pytest.raises(Crash):
        train(config(tmp_path / "c"))
    monkeypatch.undo()
    resumed = resume_run(tmp_path / "c" / "run")
    assert same(weights(reference), weights(resumed))
    other_seed = train(config(tmp_path / "d").model_copy(update={"seed": 8}))
    assert not same(weights(reference), weights(other_seed))
    two_workers = train(config(tmp_path / "e", workers=2))  # the games in two processes
    assert same(weights(reference), weights(two_workers))


def test_its_checkpoint_guides_the_tree_search(tmp_path: Path) -> None:
    run = train(config(tmp_path / "a", leaf_value="rollout"))
    spec = f"ismcts:budget=6,prior={run / 'final.zip'}"
    bot = make_participant(spec, "astrobirdz_v0", OPTIONS).new_bot(1)
    env = make("astrobirdz_v0", **OPTIONS)
    env.reset(seed=2)
    raw = env.unwrapped
    while len(raw.legal_actions(raw.agent_selection)) < 2:
        raw.step(raw.legal_actions(raw.agent_selection)[0])
    agent = raw.agent_selection
    bot.see_table(raw, agent)
    assert bot.act(raw.observe(agent), raw.view(agent)) in raw.legal_actions(agent)
    assert bot.last_simulations == 6 and bot.root.prior is not None


def test_keys_it_does_not_read_are_refused(tmp_path: Path) -> None:
    raw = config(tmp_path).model_dump()
    raw["n_envs"] = 64
    with pytest.raises(ConfigError, match="n_envs"):
        validate_config(raw)
    with pytest.raises(ConfigError, match="leaf_value"):
        config(tmp_path, leaf_value="guess")
