"""``flockgym serve`` refuses what it cannot do before serving, and binds only
loopback unless told otherwise."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from flockgym.cli import main
from flockgym.envs import FlockgymError
from flockgym.play.server import (
    access_token_for,
    allowed_hosts,
    is_loopback,
    machine_names,
)


def test_loopback_is_the_default_and_other_hosts_warn(capsys, tmp_path: Path):
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("[::1]")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.1")
    assert allowed_hosts("127.0.0.1") == ["127.0.0.1", "localhost", "::1", "[::1]"]
    assert allowed_hosts("192.0.2.7", ("games.example",)) == [
        "127.0.0.1", "localhost", "::1", "[::1]", "192.0.2.7", "games.example",
    ]  # fmt: skip
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


def test_bound_to_every_address_the_host_check_stays_on(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(socket, "gethostname", lambda: "box")
    monkeypatch.setattr(socket, "getfqdn", lambda name="": "box.lan")
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: [(2, 1, 6, "", ("192.0.2.5", 0))])
    assert machine_names() == ["192.0.2.5", "box", "box.lan"]
    hosts = allowed_hosts("0.0.0.0")
    assert "*" not in hosts
    assert hosts == ["127.0.0.1", "localhost", "::1", "[::1]", "192.0.2.5", "box", "box.lan"]


def test_off_loopback_an_access_token_is_required(monkeypatch: pytest.MonkeyPatch):
    assert access_token_for("127.0.0.1", None) is None
    drawn = access_token_for("0.0.0.0", None)
    assert drawn is not None and len(drawn) == 32  # 24 bytes of secrets.token_urlsafe
    assert access_token_for("0.0.0.0", None) != drawn
    assert access_token_for("192.0.2.1", "a-given-token-1234") == "a-given-token-1234"
    with pytest.raises(FlockgymError, match="--access-token must be 16-128 characters"):
        access_token_for("192.0.2.1", "short")


def test_serve_off_loopback_warns_and_prints_its_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    """Everything up to the listening socket, with uvicorn's run replaced."""
    import uvicorn

    ran: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: ran.update(app=app, **kw))
    monkeypatch.setattr("flockgym.play.server.check_port_free", lambda h, p: None)
    monkeypatch.setenv("FLOCKGYM_ACCESS_TOKEN", "from-the-environment-123")
    code = main(
        ["serve", "--host", "192.0.2.1", "--port", "8123", "--data", str(tmp_path / "games")]
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert "warning: --host 192.0.2.1 makes the games reachable from other machines" in err
    assert "http://192.0.2.1:8123/?access=TOKEN" in out
    assert "from-the-environment-123" not in out + err  # the banner may end up in a log
    assert "access token from... (24 characters): as given" in out
    app = ran["app"]
    assert app.state.store.per_client == 20 and ran["limit_concurrency"] == 401
    assert ran["timeout_keep_alive"] == 5 and ran["h11_max_incomplete_event_size"] == 16_384
    assert ran["http"].__name__ == "LimitedH11Protocol"


def test_a_generated_token_is_written_for_its_user_only_and_not_printed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    monkeypatch.setattr("flockgym.play.server.check_port_free", lambda h, p: None)
    monkeypatch.delenv("FLOCKGYM_ACCESS_TOKEN", raising=False)
    data = tmp_path / "games"
    assert main(["serve", "--host", "192.0.2.1", "--port", "8123", "--data", str(data)]) == 0
    out, err = capsys.readouterr()
    path = data / "access-token"
    token = path.read_text().strip()
    assert len(token) == 32 and path.stat().st_mode & 0o777 == 0o600
    assert token not in out + err
    assert f"access token {token[:4]}... (32 characters): generated, in {path}" in out
    assert list(data.iterdir()) == [path]


def test_a_token_is_read_from_a_file_and_one_on_the_command_line_is_warned_of(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    secret = tmp_path / "token"
    secret.write_text("  a-token-from-a-file-1234\n")
    assert access_token_for("192.0.2.1", f"@{secret}") == "a-token-from-a-file-1234"
    assert capsys.readouterr().err == ""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(FlockgymError, match="not a regular file of at most 4096 bytes"):
        access_token_for("192.0.2.1", f"@{fifo}")
    with pytest.raises(FlockgymError, match="cannot read it"):
        access_token_for("192.0.2.1", f"@{tmp_path / 'missing'}")
    secret.write_text("short")
    with pytest.raises(FlockgymError, match=r"16-128 characters .* \(read from "):
        access_token_for("192.0.2.1", f"@{secret}")
    monkeypatch.setattr(sys, "argv", ["flockgym", "serve", "--access-token", "on-the-line-1234"])
    assert access_token_for("192.0.2.1", "on-the-line-1234") == "on-the-line-1234"
    assert "shows in the process list" in capsys.readouterr().err
