"""Checkpoints from untrusted hands: nothing in one is executed, nothing is
inflated before its size is checked, and every damaged file is a clear error,
on every path that loads one (load_policy, eval, play, the opponent pool's
snapshots, run-folder bot specs, configs, and --resume)."""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import json
import os
import pickle
import shutil
import struct
import subprocess
import zipfile
import zlib
from pathlib import Path

import pytest
import torch
from training_helpers import tiny_config

from flockgym.bots import load_policy, make_participant
from flockgym.bots.policies import env_shapes
from flockgym.cli import main
from flockgym.common.errors import CheckpointError
from flockgym.training.config import ConfigError, validate_config
from flockgym.training.learners import get_learner
from flockgym.training.selfplay import SelfPlayEnv

REPO = Path(__file__).resolve().parents[2]
ENV = "asrus_v0"


# ---- crafting checkpoints by hand ------------------------------------------------------


class Payload:
    """Unpickling this writes ``marker``: code from a file, run."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "code from a checkpoint ran"))


def payload_pickle(marker: Path) -> bytes:
    return pickle.dumps(Payload(marker))


def payload_tensor_file(marker: Path) -> bytes:
    buffer = io.BytesIO()
    torch.save(Payload(marker), buffer)
    return buffer.getvalue()


def sb3_data_member(marker: Path) -> bytes:
    """A stable-baselines3 ``data`` member whose serialized field is the payload."""
    serialized = base64.b64encode(payload_pickle(marker)).decode()
    return json.dumps({"policy_class": {":type:": "x", ":serialized:": serialized}}).encode()


def meta_payload(network: object = None, **changes: object) -> dict:
    size, actions, options = env_shapes(ENV, {})
    meta = {
        "format": "flockgym-checkpoint",
        "version": 1,
        "env_id": ENV,
        "env_options": options,
        "observation_size": size,
        "num_actions": actions,
        "algo": "maskable_ppo",
        "network": network or {"net_arch": [16], "activation": "tanh"},
        "steps": 0,
        "seed": 0,
        "git_commit": "unknown",
        "extra": {},
    }
    meta.update(changes)
    return meta


def policy_bytes(net_arch: list[int] | None = None) -> bytes:
    size, actions, _ = env_shapes(ENV, {})
    config = {"net_arch": net_arch or [16], "activation": "tanh"}
    buffer = io.BytesIO()
    torch.save(get_learner("maskable_ppo").network(config, size, actions).state_dict(), buffer)
    return buffer.getvalue()


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def good_members() -> dict[str, bytes]:
    return {"policy.pth": policy_bytes(), "flockgym.json": json.dumps(meta_payload()).encode()}


def raw_zip(members: list[tuple[str, bytes, int, int, int]]) -> bytes:
    """A zip of already-compressed members: (name, data, method, crc, inflated size)."""
    out, central = bytearray(), bytearray()
    for name, data, method, crc, size in members:
        encoded = name.encode()
        offset = len(out)
        out += struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, len(data), size, len(encoded), 0
        )
        out += encoded + data
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            20,
            20,
            0,
            method,
            0,
            0,
            crc,
            len(data),
            size,
            len(encoded),
            0,
            0,
            0,
            0,
            0,
            offset,
        )
        central += encoded
    end = struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(out), 0
    )
    return bytes(out + central + end)


def zip_bomb(path: Path) -> Path:
    """A real zip bomb: 1.5 MB whose policy.pth inflates to 1.5 GB of zeros."""
    path.write_bytes(zip_bomb_bytes())
    return path


@functools.cache
def zip_bomb_bytes() -> bytes:
    chunk, count = bytes(1 << 20), 1536
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)
    repeated = deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)
    stream = block + repeated * (count - 1) + deflate.flush()
    crc = 0
    for _ in range(count):
        crc = zlib.crc32(chunk, crc)
    meta = json.dumps(meta_payload()).encode()
    return raw_zip(
        [
            ("flockgym.json", meta, 0, zlib.crc32(meta), len(meta)),
            ("policy.pth", stream, 8, crc, count * len(chunk)),
        ],
    )


def corrupt_data(path: Path) -> Path:
    """Flip bytes in the middle of policy.pth's compressed data."""
    write_zip(path, good_members())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("policy.pth")
    blob = bytearray(path.read_bytes())
    name_len, extra_len = struct.unpack(
        "<HH", blob[info.header_offset + 26 : info.header_offset + 30]
    )
    start = info.header_offset + 30 + name_len + extra_len
    middle = start + info.compress_size // 2
    blob[middle : middle + 16] = bytes(b ^ 0x5A for b in blob[middle : middle + 16])
    path.write_bytes(bytes(blob))
    return path


def damaged(kind: str, path: Path) -> Path:
    """A checkpoint damaged the way ``kind`` says."""
    meta = json.dumps(meta_payload()).encode()
    if kind == "corrupt_zip_data":
        return corrupt_data(path)
    if kind == "truncated":
        write_zip(path, good_members())
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
        return path
    if kind == "non_utf8_metadata":
        return write_zip(
            path, {"policy.pth": policy_bytes(), "flockgym.json": b'{"env_id": "\xff"}'}
        )
    if kind in ("number_of_5000_digits", "nesting_of_5000_levels"):
        text = json.dumps(meta_payload()).replace('"seed": 0', '"seed": SEED', 1)
        assert '"seed": SEED' in text
        seed = "9" * 5000 if kind == "number_of_5000_digits" else "[" * 5000 + "]" * 5000
        return write_zip(
            path,
            {"policy.pth": policy_bytes(), "flockgym.json": text.replace("SEED", seed).encode()},
        )
    if kind == "network_x":
        return write_zip(
            path,
            {"policy.pth": policy_bytes(), "flockgym.json": json.dumps(meta_payload("x")).encode()},
        )
    if kind == "network_of_40_gb":
        big = {"net_arch": [100_000, 50_000], "activation": "tanh"}
        return write_zip(
            path,
            {"policy.pth": policy_bytes(), "flockgym.json": json.dumps(meta_payload(big)).encode()},
        )
    if kind == "zip_bomb":
        return zip_bomb(path)
    if kind == "field_of_wrong_type":
        wrong = json.dumps(meta_payload(observation_size="228")).encode()
        return write_zip(path, {"policy.pth": policy_bytes(), "flockgym.json": wrong})
    if kind == "weights_not_tensors":
        return write_zip(path, {"policy.pth": os.urandom(4096), "flockgym.json": meta})
    if kind == "weights_a_list":
        buffer = io.BytesIO()
        torch.save([torch.zeros(3)], buffer)
        return write_zip(path, {"policy.pth": buffer.getvalue(), "flockgym.json": meta})
    raise AssertionError(kind)


DAMAGE = {
    "corrupt_zip_data": "policy.pth is damaged",
    "truncated": "not a zip file",
    "non_utf8_metadata": "flockgym.json is not UTF-8 text (byte 0xff at offset 12)",
    "network_x": "network = 'x': allowed: a mapping of net_arch",
    "number_of_5000_digits": "flockgym.json: a number of 5,000 digits; allowed: at most 256",
    "nesting_of_5000_levels": "flockgym.json: nested deeper than 64 levels; allowed: at most 64",
    "network_of_40_gb": "a network of 10,055,700,196 parameters",
    "zip_bomb": "policy.pth would inflate 1,0",  # times: the ratio, before any byte
    "field_of_wrong_type": "observation_size = '228': allowed: an integer",
    "weights_not_tensors": "policy.pth is not a weights-only tensor file",
    "weights_a_list": "policy.pth holds no state dict",
}


@pytest.mark.parametrize("kind", sorted(DAMAGE))
@pytest.mark.parametrize("where", ["load_policy", "eval", "play"])
def test_a_damaged_checkpoint_is_a_clear_error(
    kind: str, where: str, tmp_path: Path, capsys
) -> None:
    path = damaged(kind, tmp_path / "bad.zip")
    if where == "load_policy":
        with pytest.raises(CheckpointError) as info:
            load_policy(path)
        message = str(info.value)
    else:
        if where == "eval":
            argv = ["eval", "--env", ENV, "--players", f"{path},random", "--games", "2"]
            argv += ["--out", str(tmp_path / "out"), "--no-progress"]
        else:
            argv = ["play", ENV, "--opponents", str(path), "--seed", "0"]
        assert main(argv) == 2
        message = capsys.readouterr().err
    assert DAMAGE[kind] in message
    assert str(path) in message


def test_the_size_checks_come_before_any_inflating(tmp_path: Path, monkeypatch) -> None:
    inflated = []
    real_read = zipfile.ZipFile.read
    monkeypatch.setattr(
        zipfile.ZipFile,
        "read",
        lambda self, name, pwd=None: inflated.append(name) or real_read(self, name, pwd),
    )
    with pytest.raises(CheckpointError, match="zip bomb"):
        load_policy(zip_bomb(tmp_path / "bomb.zip"))
    assert inflated == []
    with pytest.raises(CheckpointError, match="parameters"):
        load_policy(damaged("network_of_40_gb", tmp_path / "big.zip"))
    assert "policy.pth" not in inflated


# ---- code in a checkpoint never runs: every load path ------------------------------------


def payload_checkpoint(kind: str, path: Path, marker: Path) -> Path:
    members = good_members()
    if kind == "weights_payload":
        members["policy.pth"] = payload_tensor_file(marker)
    else:  # an extra stable-baselines3 member, never read, refused
        members["data"] = sb3_data_member(marker)
    return write_zip(path, members)


def load_through(where: str, path: Path, tmp_path: Path) -> str:
    """Load the checkpoint at ``path`` the way ``where`` does; return the error."""
    if where == "load_policy":
        with pytest.raises(CheckpointError) as info:
            load_policy(path)
        return str(info.value)
    if where == "snapshot_in_pool":
        with pytest.raises(CheckpointError) as info:
            SelfPlayEnv(ENV, {}, pool=["random"], snapshots=[str(path)])
        return str(info.value)
    if where in ("run_folder_final", "run_folder_checkpoint"):
        run = tmp_path / "run"
        (run / "checkpoints").mkdir(parents=True)
        target = run / "final.zip" if where == "run_folder_final" else run / "checkpoints"
        shutil.copy(path, target / "step_000000512.zip" if target.is_dir() else target)
        with pytest.raises(CheckpointError) as info:
            make_participant(str(run), ENV)
        return str(info.value)
    if where == "config_pool":
        with pytest.raises(ConfigError) as info:
            validate_config_with_pool(str(path), tmp_path)
        return str(info.value)
    raise AssertionError(where)


def validate_config_with_pool(spec: str, tmp_path: Path) -> None:
    from training_helpers import tiny_raw_config

    raw = tiny_raw_config(ENV, tmp_path / "runs")
    raw["opponents"]["pool"] = ["random", spec]
    validate_config(raw)


@pytest.mark.parametrize("kind", ["weights_payload", "data_member"])
@pytest.mark.parametrize(
    "where",
    [
        "load_policy",
        "snapshot_in_pool",
        "run_folder_final",
        "run_folder_checkpoint",
        "config_pool",
        "eval",
        "play",
    ],
)
def test_no_load_path_runs_code_from_a_checkpoint(
    kind: str, where: str, tmp_path: Path, capsys
) -> None:
    marker = tmp_path / "marker.txt"
    path = payload_checkpoint(kind, tmp_path / "evil.zip", marker)
    if where in ("eval", "play"):
        argv = (
            ["eval", "--env", ENV, "--players", f"{path},random", "--games", "2", "--no-progress"]
            if where == "eval"
            else ["play", ENV, "--opponents", str(path), "--seed", "0"]
        )
        assert main(argv) == 2
        message = capsys.readouterr().err
    else:
        message = load_through(where, path, tmp_path)
    assert not marker.exists(), "code from the checkpoint ran"
    expected = "not a weights-only tensor file" if kind == "weights_payload" else "member 'data'"
    assert expected in message


PACKAGE_FOLDERS = ("common", "bots", "training", "evaluation", "cli", "play")
"""The folders that load checkpoints and runs (the games and the OpenSpiel bridge
load none; the bridge's checking unpickler has tests of its own)."""


def test_training_loads_weights_only() -> None:
    """``git grep -nE 'pickle|PPO\\.load|MaskablePPO\\.load|torch\\.load\\('`` on every
    package folder shows only weights-only loads."""
    done = subprocess.run(
        [
            "git",
            "grep",
            "--untracked",  # the files being written count too
            "-nE",
            r"pickle|PPO\.load|MaskablePPO\.load|torch\.load\(",
            "--",
            *PACKAGE_FOLDERS,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        pytest.skip("not a git checkout")
    hits = done.stdout.splitlines()
    assert hits, "no torch.load at all: the grep proves nothing"
    assert all("torch.load(" in line and "weights_only=True" in line for line in hits), hits


# ---- --resume: nothing in the run folder runs, nothing outside it is read ------------------


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny run: checkpoints at steps 256 and 512 (the end)."""
    from flockgym.training.train import train

    out = tmp_path_factory.mktemp("runs")
    return train(
        tiny_config(
            ENV, out, total_steps=512, output__checkpoint_every=256, opponents__pool=["random"]
        )
    )


def folder_digest(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def checkpoint_at(run: Path, step: int) -> Path:
    return run / "checkpoints" / f"step_{step:09d}.zip"


def with_member(src: Path, dst: Path, name: str, data: bytes) -> Path:
    with zipfile.ZipFile(src) as archive:
        members = {n: archive.read(n) for n in archive.namelist() if n != name}
    members[name] = data
    return write_zip(dst, members)


def point_state_at(run: Path, step: int, **changes: object) -> None:
    state = json.loads((run / "state.json").read_text())
    state["step"] = step
    state["checkpoint"] = f"checkpoints/step_{step:09d}.zip"
    for key in ("phase",):
        if key in state:
            state[key] = "training"
    if "finished" in state:
        state["finished"] = False
    state.update(changes)
    (run / "state.json").write_text(json.dumps(state))


RESUME_ATTACKS = [
    "data_member",
    "optimizer_payload",
    "policy_payload",
    "state_absolute_path",
    "state_parent_path",
    "state_snapshot_outside",
    "symlink_out_of_the_folder",
]


@pytest.mark.parametrize("attack", RESUME_ATTACKS)
def test_resume_refuses_a_checkpoint_that_would_run_code(
    attack: str, finished_run: Path, tmp_path: Path, capsys
) -> None:
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    marker = tmp_path / "marker.txt"
    outside = tmp_path / "outside"
    outside.mkdir()
    ckpt = checkpoint_at(run, 256)
    evil = with_member(ckpt, outside / "evil.zip", "data", sb3_data_member(marker))
    point_state_at(run, 256)
    if attack == "data_member":
        with_member(ckpt, ckpt, "data", sb3_data_member(marker))
        expected = "unexpected member 'data'"
    elif attack in ("optimizer_payload", "policy_payload"):
        name = "optimizer.pth" if attack == "optimizer_payload" else "policy.pth"
        with_member(ckpt, ckpt, name, payload_tensor_file(marker))
        expected = f"{name} is not a weights-only tensor file"
    elif attack == "state_absolute_path":
        point_state_at(run, 256, checkpoint=str(evil))
        expected = f"checkpoint = '{evil}'"
    elif attack == "state_parent_path":
        point_state_at(run, 256, checkpoint="checkpoints/../../outside/evil.zip")
        expected = "checkpoint = 'checkpoints/../../outside/evil.zip'"
    elif attack == "state_snapshot_outside":
        point_state_at(run, 256, snapshots=[str(evil)])
        expected = f"snapshots[0] = '{evil}'"
    else:
        ckpt.unlink()
        ckpt.symlink_to(evil)
        expected = "is a link out of the run folder"
    before = folder_digest(run)
    assert main(["train", "--resume", str(run)]) == 2
    message = capsys.readouterr().err
    assert not marker.exists(), "code from the checkpoint ran"
    assert expected in message
    assert folder_digest(run) == before, "a refused resume changed the run folder"
