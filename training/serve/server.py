"""Running the app: ``flockgym serve`` binds one local port and serves until Ctrl-C."""

from __future__ import annotations

import ipaddress
import socket
import sys
from pathlib import Path

from flockgym.envs import FlockgymError

from .app import LOCAL_HOSTS, ServerConfig, create_app


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str) -> list[str]:
    """Host headers the app answers: this machine's names, and ``host`` itself.
    Bound to every address (``0.0.0.0``), any name is accepted."""
    if host in ("0.0.0.0", "::", ""):
        return ["*"]
    return [*LOCAL_HOSTS, host]


def check_port_free(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host.strip("[]"), port))
        except OSError as err:
            raise FlockgymError(
                f"cannot listen on {host}:{port} ({err.strerror}); choose another --port"
            ) from None


def serve(
    host: str,
    port: int,
    models: list[Path],
    data_dir: Path,
    max_games: int,
    idle_minutes: float,
) -> None:
    """Print the address, then serve the page and the API until interrupted."""
    try:
        import uvicorn
    except ImportError:
        raise FlockgymError(
            "flockgym serve needs the play extra: pip install -c constraints.txt -e '.[play]'"
        ) from None
    if not is_loopback(host):
        print(
            f"warning: --host {host} makes the games reachable from other machines; "
            f"anyone who can reach this port can create games and read saved ones",
            file=sys.stderr,
        )
    check_port_free(host, port)
    config = ServerConfig(
        data_dir=data_dir,
        models=models,
        max_games=max_games,
        idle_seconds=idle_minutes * 60,
        allowed_hosts=allowed_hosts(host),
    )
    app = create_app(config)
    shown = f"[{host}]" if ":" in host else host
    folders = ", ".join(label for label, _ in app.state.catalogue.roots) or "none"
    print(f"flockgym serve: open http://{shown}:{port}/  (Ctrl-C stops)", flush=True)
    print(f"  games saved in {data_dir}; model folders: {folders}", flush=True)
    uvicorn.run(app, host=host.strip("[]"), port=port, log_level="warning")
