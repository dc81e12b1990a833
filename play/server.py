"""Running the app: ``flockgym serve`` binds one port and serves until Ctrl-C.

Loopback (the default) needs nothing more. Any other ``--host`` makes the
games reachable from other machines, so the server then requires an access
token on every API request, keeps answering only the ``Host`` names it knows,
and warns. The token is a secret: it is given in ``FLOCKGYM_ACCESS_TOKEN`` or
read from a file (``--access-token @FILE``), never needed on a command line
(where every user of the machine sees it in the process list; given there, the
server warns); a generated one is written to a file only its user can read
(``access-token`` in the data folder), and the start banner shows only its
first characters, as logs of a terminal are often kept. Connections are
bounded too (:class:`ConnectionLimits`): a client has a few seconds to send
each request's head, idle keep-alive connections are closed, and past
``max_connections`` a new connection is answered 503 and closed, so idle
connections cannot make the server unreachable.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import secrets
import socket
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flockgym.envs import FlockgymError

from .app import LOCAL_HOSTS, ServerConfig, create_app

ACCESS_TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{16,128}")


@dataclass(frozen=True)
class ConnectionLimits:
    """What one client connection may hold of the server."""

    max_connections: int = 400
    """Open connections at most; each further one is answered 503 and closed."""
    request_seconds: float = 10.0
    """Seconds to send a request's head, from connecting or from the last response."""
    keep_alive_seconds: int = 5
    """An idle keep-alive connection is closed after this long."""
    max_header_bytes: int = 16_384
    """Bytes of a request's head at most."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def machine_names() -> list[str]:
    """This machine's host name, full name and addresses: the ``Host`` headers other
    machines send to reach a server bound to every address."""
    names = {socket.gethostname(), socket.getfqdn()}
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            address = str(info[4][0])
            names.add(f"[{address}]" if ":" in address else address)
    except OSError:
        pass
    return sorted(n for n in names if n)


def allowed_hosts(host: str, extra: tuple[str, ...] = ()) -> list[str]:
    """``Host`` headers the app answers: this machine's loopback names, ``host`` itself
    and ``extra`` (``--allowed-host``). Bound to every address (``0.0.0.0``), this
    machine's own names and addresses stand for ``host``: the check stays on."""
    named = machine_names() if host in ("0.0.0.0", "::", "") else [host]
    hosts: list[str] = []
    for name in [*LOCAL_HOSTS, *named, *extra]:
        if name not in hosts:
            hosts.append(name)
    return hosts


TOKEN_FILE = "access-token"
"""Where a generated access token is written, in the data folder."""
MAX_TOKEN_FILE = 4096


class GeneratedToken(str):
    """An access token the server drew itself (written to a file at start)."""


def access_token_for(host: str, given: str | None) -> str | None:
    """The token every API request must carry: ``given`` (checked; ``@FILE``: the
    token is that file's text), else off loopback a fresh one from the OS's secure
    generator; on loopback none unless given. A token given on the command line
    itself is accepted with a warning: the process list shows it to everyone."""
    if given is None:
        return None if is_loopback(host) else GeneratedToken(secrets.token_urlsafe(24))
    if given.startswith("@"):
        token = read_token_file(Path(given[1:]))
    else:
        token = given
        if any(arg == given or arg.endswith(f"={given}") for arg in sys.argv[1:]):
            print(
                "warning: an access token on the command line shows in the process list "
                "to every user of this machine; give it in FLOCKGYM_ACCESS_TOKEN or as "
                "--access-token @FILE",
                file=sys.stderr,
            )
    if not ACCESS_TOKEN_PATTERN.fullmatch(token):
        raise FlockgymError(
            "--access-token must be 16-128 characters of A-Z, a-z, 0-9, '_' and '-'"
            + (f" (read from {given[1:]})" if given.startswith("@") else "")
        )
    return token


def read_token_file(path: Path) -> str:
    """The access token held in a regular file of at most 4 KiB (surrounding white
    space ignored); a FIFO or a device is never read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise FlockgymError(f"--access-token @{path}: cannot read it ({err.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_TOKEN_FILE:
            raise FlockgymError(
                f"--access-token @{path}: not a regular file of at most {MAX_TOKEN_FILE} bytes"
            )
        data = handle.read(MAX_TOKEN_FILE + 1)
    try:
        return data.decode("ascii").strip()
    except UnicodeDecodeError:
        raise FlockgymError(f"--access-token @{path}: not a token (ASCII text)") from None


def write_token_file(token: str, folder: Path | None) -> Path:
    """Write a generated token where only this user can read it: ``access-token`` in
    the data folder (else a new file in the system's temporary folder)."""
    if folder is None:
        handle, name = tempfile.mkstemp(prefix="flockgym-access-token-")
        path = Path(name)
    else:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / TOKEN_FILE
        temp = folder / f".{TOKEN_FILE}.{os.getpid()}.tmp"
        temp.unlink(missing_ok=True)
        handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(handle, "w") as out:
        out.write(token + "\n")
    if folder is not None:
        os.replace(temp, path)
    return path


def masked(token: str) -> str:
    """The first characters of a token: enough to tell two apart, not to use one."""
    return f"{token[:4]}... ({len(token)} characters)"


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


HEAD_END = re.compile(rb"\r?\n\r?\n")
"""Where a request's head ends (h11 also takes bare line feeds)."""


def closing_response(status: str, message: str) -> bytes:
    """A whole HTTP response ``{"error": message}`` that closes the connection."""
    body = json.dumps({"error": message}).encode()
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\nconnection: close\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    ).encode() + body


class HeadCounter:
    """Counts the bytes of a request's head as they arrive, however they are split.

    h11's own limit applies only to a head still incomplete in its buffer: a whole
    head of 64 KB arriving in one read passed it. This one counts every byte up
    to the blank line that ends the head."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.tail = b""

    def fits(self, data: bytes) -> bool:
        """Take the next bytes of a head; False once it is larger than the limit."""
        window = self.tail + data
        end = HEAD_END.search(window)
        if end is None:
            self.size += len(data)
            self.tail = window[-3:]
            return self.size <= self.limit
        size = self.size + end.end() - len(self.tail)
        self.size, self.tail = 0, b""
        return size <= self.limit


def parsed_head_size(request: Any) -> int:
    """The bytes of an h11 request's head as sent (request line, headers, blank line)."""
    line = len(request.method) + len(request.target) + len(b"HTTP/") + len(request.http_version)
    headers = sum(len(name) + len(value) + 4 for name, value in request.headers.raw_items())
    return line + 4 + headers + 2


def limited_protocol(limits: ConnectionLimits) -> type:
    """uvicorn's h11 protocol with :class:`ConnectionLimits`' cap, request deadline and
    head size.

    uvicorn times out only idle keep-alive connections after a response; a
    connection that never completes a request would be held for ever. Here
    every connection has ``request_seconds`` to send each request's head; the
    body has the app's own deadline. A head over ``max_header_bytes`` is
    answered 431 and the connection closed: counted as its bytes arrive
    (:class:`HeadCounter`) and, for a head that came in the same read as the
    request before it (pipelining), measured again once h11 has parsed it."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    refusal = closing_response(
        "503 Service Unavailable", "too many open connections; try again shortly"
    )
    too_large = closing_response(
        "431 Request Header Fields Too Large",
        f"request head larger than {limits.max_header_bytes} bytes; at most "
        f"{limits.max_header_bytes}",
    )

    class HeadLimitedConnection(h11.Connection):
        """h11's server side, refusing a parsed request head over the limit."""

        too_large = False

        def next_event(self) -> Any:
            event = super().next_event()
            if isinstance(event, h11.Request) and parsed_head_size(event) > limits.max_header_bytes:
                self.too_large = True
                raise h11.RemoteProtocolError("request head too large", error_status_hint=431)
            return event

    class LimitedH11Protocol(H11Protocol):  # type: ignore[misc]
        request_timer: Any = None
        head: HeadCounter | None = None

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.conn = HeadLimitedConnection(h11.SERVER, limits.max_header_bytes)

        def send_400_response(self, msg: str) -> None:
            if not getattr(self.conn, "too_large", False):
                super().send_400_response(msg)
                return
            self.transport.write(too_large)
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self.transport.is_closing():
                return
            if self.conn.their_state is h11.IDLE:  # these bytes begin or go on with a head
                self.head = self.head or HeadCounter(limits.max_header_bytes)
                if not self.head.fits(data):
                    self.transport.write(too_large)
                    self.transport.close()
                    return
            super().data_received(data)

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > limits.max_connections:
                transport.write(refusal)
                transport.close()
                return
            self.arm_request_timer()

        def arm_request_timer(self) -> None:
            if self.request_timer is not None:
                self.request_timer.cancel()
            self.request_timer = self.loop.call_later(
                limits.request_seconds, self.request_timed_out
            )

        def request_timed_out(self) -> None:
            waiting = self.cycle is None or self.cycle.response_complete
            if waiting and not self.transport.is_closing():
                self.transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self.arm_request_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            if self.request_timer is not None:
                self.request_timer.cancel()
            super().connection_lost(exc)

    return LimitedH11Protocol


def serve(
    config: ServerConfig,
    host: str,
    port: int,
    limits: ConnectionLimits | None = None,
) -> None:
    """Print the address (with the access token, if any), then serve the page and the
    API until interrupted."""
    try:
        import uvicorn
    except ImportError:
        raise FlockgymError(
            "flockgym serve needs the play extra: pip install -c constraints.txt -e '.[play]'"
        ) from None
    limits = limits or ConnectionLimits()
    check_port_free(host, port)
    if not is_loopback(host):
        print(
            f"warning: --host {host} makes the games reachable from other machines: every "
            f"API request needs the access token below; Host names answered: "
            f"{', '.join(config.allowed_hosts)} (add one with --allowed-host)",
            file=sys.stderr,
        )
    app = create_app(config)
    shown = f"[{host}]" if ":" in host else host
    folders = ", ".join(label for label, _ in app.state.catalogue.roots) or "none"
    token = config.access_token
    address = f"http://{shown}:{port}/"
    if token is None:
        print(f"flockgym serve: open {address}  (Ctrl-C stops)", flush=True)
    elif isinstance(token, GeneratedToken):
        path = write_token_file(token, config.data_dir)
        print(f"flockgym serve: open {address}?access=TOKEN  (Ctrl-C stops)", flush=True)
        print(
            f"  access token {masked(token)}: generated, in {path} (readable by you "
            f"only); header X-Access-Token",
            flush=True,
        )
    else:
        print(f"flockgym serve: open {address}?access=TOKEN  (Ctrl-C stops)", flush=True)
        print(f"  access token {masked(token)}: as given; header X-Access-Token", flush=True)
    print(f"  games saved in {config.data_dir}; model folders: {folders}", flush=True)
    if app.state.continued:
        print(f"  {app.state.continued} running game(s) continued from their journals", flush=True)
    uvicorn.run(
        app,
        host=host.strip("[]"),
        port=port,
        log_level="warning",
        http=limited_protocol(limits),
        timeout_keep_alive=limits.keep_alive_seconds,
        h11_max_incomplete_event_size=limits.max_header_bytes,
        limit_concurrency=limits.max_connections + 1,
    )
