"""``flockgym serve`` refuses what it cannot do before serving, and binds only
loopback unless told otherwise."""

from __future__ import annotations

import socket
from pathlib import Path

from flockgym.training.cli import main
from flockgym.training.serve.server import allowed_hosts, is_loopback


def test_loopback_is_the_default_and_other_hosts_warn(capsys, tmp_path: Path):
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("[::1]")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.1")
    assert allowed_hosts("127.0.0.1") == ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.1"]
    assert allowed_hosts("0.0.0.0") == ["*"]
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = main(["serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(tmp_path)])
    assert code == 2 and f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_a_models_folder_that_does_not_exist_is_refused(capsys, tmp_path: Path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [
        "serve",
        "--port",
        str(port),
        "--models",
        str(tmp_path / "nope"),
        "--data",
        str(tmp_path),
    ]
    assert main(argv) == 2
    assert "nope: not a folder" in capsys.readouterr().err


def test_serve_and_replay_have_help(capsys):
    for command in ("serve", "replay"):
        try:
            main([command, "--help"])
        except SystemExit as done:
            assert done.code == 0
        assert "usage: flockgym " + command in capsys.readouterr().out
