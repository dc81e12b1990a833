"""Bot specs, checkpoints as policies and as bots, and their error messages."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from training_helpers import winning_bot

from flockgym.bots import load_policy, make_participant, parse_spec, parse_specs
from flockgym.bots.checkpoints import write_checkpoint as write_zip
from flockgym.bots.policies import CheckpointMeta, env_shapes, meta_member, unique_names
from flockgym.common.errors import BotSpecError, CheckpointError
from flockgym.envs import list_envs, make
from flockgym.envs.core.play import play_game
from flockgym.training.learners import get_learner


def write_checkpoint(path: Path, env_id: str, options: dict | None = None) -> Path:
    """An untrained policy saved the way training saves one."""
    learner = get_learner("maskable_ppo")
    size, actions, resolved = env_shapes(env_id, options or {})
    config = {"net_arch": [16], "activation": "tanh"}

    class Model:  # what network_members reads from a model
        policy = learner.network(config, size, actions)

    meta = CheckpointMeta(env_id, resolved, size, actions, "maskable_ppo", config)
    return write_zip(path, learner.network_members(Model()) | meta_member(meta))


def test_spec_parser(tmp_path: Path) -> None:
    ckpt = write_checkpoint(tmp_path / "a.zip", "asrus_v0")
    assert parse_spec("random").kind == "random"
    assert parse_spec(" heuristic ").kind == "heuristic"
    spec = parse_spec(str(ckpt))
    assert (spec.kind, spec.path, spec.play) == ("checkpoint", ckpt, "greedy")
    assert parse_spec(f"{ckpt}@sample").play == "sample"
    assert [s.kind for s in parse_specs(f"random,{ckpt},heuristic")] == [
        "random",
        "checkpoint",
        "heuristic",
    ]
    (tmp_path / "run").mkdir()
    write_checkpoint(tmp_path / "run" / "final.zip", "asrus_v0")
    assert parse_spec(str(tmp_path / "run")).path == tmp_path / "run" / "final.zip"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("heurstic", "unknown bot spec 'heurstic'"),
        ("missing.zip", "does not exist"),
        ("x.zip@wild", "unknown play mode @wild"),
        ("", "no bot specs"),
    ],
)
def test_spec_parser_errors_name_the_spec(text: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message) as info:
        parse_specs(text)
    if "does not exist" not in message:
        assert "'random', 'heuristic'" in str(info.value)  # says what a spec may be


def test_an_empty_run_folder_is_not_a_spec(tmp_path: Path) -> None:
    with pytest.raises(BotSpecError, match=r"no final\.zip"):
        parse_spec(str(tmp_path))


def test_load_policy_acts_legally_in_every_env(env_id: str, tmp_path: Path) -> None:
    policy = load_policy(write_checkpoint(tmp_path / "p.zip", env_id), env_id=env_id)
    env = make(env_id)
    env.reset(seed=0)
    for _ in range(20):
        agent = env.agent_selection
        observation = env.observe(agent)
        action = policy.act(observation["observation"], observation["action_mask"])
        assert observation["action_mask"][action] == 1
        assert policy.act(observation) == action  # the dict works too; greedy is stable
        probs = policy.probabilities(observation)
        assert probs.sum() == pytest.approx(1.0)
        assert np.all(probs[observation["action_mask"] == 0] == 0)
        env.step(action)
        if env.terminations[env.agent_selection]:
            break


def test_a_checkpoint_sits_at_the_table_as_a_bot(env_id: str, tmp_path: Path) -> None:
    ckpt = write_checkpoint(tmp_path / "p.zip", env_id)
    env = make(env_id)
    bots = {}
    for seat, agent in enumerate(env.possible_agents):
        spec = f"{ckpt}@sample" if seat % 2 else winning_bot(env_id)
        bots[agent] = make_participant(spec, env_id).new_bot(seat)
    record = play_game(env, bots, seed=1)
    assert record.winners


def test_a_mismatched_checkpoint_names_both_sides(tmp_path: Path) -> None:
    ckpt = write_checkpoint(tmp_path / "p.zip", "asrus_v0", {"num_players": 5})
    with pytest.raises(CheckpointError) as info:
        load_policy(ckpt, env_id="asrus_v0", env_options={"num_players": 3})
    message = str(info.value)
    assert "trained for asrus_v0" in message and "num_players=5" in message
    assert "(228,)" in message and "(162,)" in message
    policy = load_policy(ckpt)
    with pytest.raises(CheckpointError, match="observation of size 10"):
        policy.act(np.zeros(10, np.float32), np.ones(195))


def test_malformed_checkpoints_say_what_is_wrong(tmp_path: Path) -> None:
    not_zip = tmp_path / "a.zip"
    not_zip.write_text("hello")
    with pytest.raises(CheckpointError, match="not a zip file"):
        load_policy(not_zip)
    foreign = tmp_path / "b.zip"
    with zipfile.ZipFile(foreign, "w") as archive:
        archive.writestr("policy.pth", b"")
    with pytest.raises(CheckpointError, match=r"no flockgym\.json"):
        load_policy(foreign)
    with pytest.raises(CheckpointError, match="does not exist"):
        load_policy(tmp_path / "c.zip")
    for meta, message in [
        ("[1, 2]", r"flockgym\.json is not a JSON object"),
        ('{"format": "other", "version": 1}', "unknown checkpoint format 'other' version 1"),
    ]:
        odd = tmp_path / "odd.zip"
        with zipfile.ZipFile(odd, "w") as archive:
            archive.writestr("flockgym.json", meta)
        with pytest.raises(CheckpointError, match=message):
            load_policy(odd)
    # Metadata that promises another network than the weights hold:
    ckpt = write_checkpoint(tmp_path / "d.zip", "asrus_v0")
    broken = tmp_path / "e.zip"
    with zipfile.ZipFile(ckpt) as src, zipfile.ZipFile(broken, "w") as dst:
        dst.writestr("policy.pth", src.read("policy.pth"))
        dst.writestr("flockgym.json", src.read("flockgym.json").replace(b"16", b"17"))
    with pytest.raises(CheckpointError, match="the weights do not match"):
        load_policy(broken)
    # Weights of other layers than the metadata's network has:
    renamed = tmp_path / "f.zip"
    state = torch.load(io.BytesIO(zipfile.ZipFile(ckpt).read("policy.pth")), weights_only=True)
    state["extra.weight"] = state.pop("action_net.weight")
    buffer = io.BytesIO()
    torch.save(state, buffer)
    with zipfile.ZipFile(ckpt) as src, zipfile.ZipFile(renamed, "w") as dst:
        dst.writestr("policy.pth", buffer.getvalue())
        dst.writestr("flockgym.json", src.read("flockgym.json"))
    with pytest.raises(CheckpointError, match=r"missing: action_net\.weight; unexpected: extra"):
        load_policy(renamed)


def test_unique_names() -> None:
    assert unique_names(["random", "random", "a.zip", "random"]) == [
        "random",
        "random#2",
        "a.zip",
        "random#3",
    ]


def test_every_shipped_checkpoint_loads_and_plays() -> None:
    repo = Path(__file__).resolve().parents[2]
    shipped = sorted((repo / "checkpoints").rglob("*.zip"))
    assert shipped, "no shipped checkpoints: the test would prove nothing"
    for path in shipped:
        policy = load_policy(path)
        if policy.meta.env_id not in list_envs():
            continue
        env_id, options = policy.meta.env_id, policy.meta.env_options
        env = make(env_id, **options)
        bots = {agent: policy.as_bot(seed=i) for i, agent in enumerate(env.possible_agents)}
        assert play_game(env, bots, seed=0).winners


def test_rows_are_sampled_as_generator_choice_samples_them() -> None:
    """``sample_rows`` draws every row's action as ``rng.choice(A, p=row)`` would,
    with the same generator state after it: masked (zero) entries, peaked and
    flat rows, and one generator shared by several rows (drawn in row order)."""
    from flockgym.bots.policies import sample_rows, softmax

    source = np.random.default_rng(7)
    for trial in range(60):
        rows, actions = 40, int(source.integers(2, 200))
        logits = source.normal(size=(rows, actions)) * source.uniform(0.1, 30)
        legal = source.random((rows, actions)) < source.uniform(0.02, 1)
        legal[np.arange(rows), source.integers(actions, size=rows)] = True
        logits[~legal] = -np.inf
        probs = softmax(logits)
        seeds = source.integers(0, 2**32, rows).tolist()
        if trial % 3 == 0:
            seeds[1::2] = seeds[0::2][: len(seeds[1::2])]
        theirs = {seed: np.random.default_rng(seed) for seed in seeds}
        ours = {seed: np.random.default_rng(seed) for seed in seeds}
        expected = [
            int(theirs[s].choice(actions, p=row)) for s, row in zip(seeds, probs, strict=True)
        ]
        chosen = sample_rows(probs, [ours[s] for s in seeds])
        assert chosen.dtype == np.int64 and chosen.tolist() == expected
        assert legal[np.arange(rows), chosen].all()
        for seed in seeds:
            assert ours[seed].bit_generator.state == theirs[seed].bit_generator.state
    with pytest.raises(ValueError, match="3 generators for 2 rows"):
        sample_rows(probs[:2], [np.random.default_rng(0)] * 3)
