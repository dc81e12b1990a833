"""What every saved result records about how it was made: the commit, the
command line, the full set of installed packages (rliable, arch, scipy,
stable-baselines3, ray, ... whichever are there), the machine, and the CPU and
wall seconds it took. Light (no torch), so a tournament records it too."""

from __future__ import annotations

import importlib.metadata
import platform
import resource
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flockgym.common.version import git_commit


def package_set() -> dict[str, str]:
    """Every installed distribution and its version, sorted by name."""
    found: dict[str, str] = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(str(name).lower(), dist.version)
    return dict(sorted(found.items()))


def command_line() -> str:
    """How this process was started, as a shell would read it."""
    return shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]])


def cpu_seconds() -> float:
    """CPU time of this process and of its finished (joined) child processes."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


@dataclass
class Clock:
    """Started when the work starts; :meth:`record` says what it cost."""

    wall: float = field(default_factory=time.monotonic)
    cpu: float = field(default_factory=cpu_seconds)

    def seconds(self) -> dict[str, float]:
        return {
            "wall_seconds": round(time.monotonic() - self.wall, 3),
            "cpu_seconds": round(cpu_seconds() - self.cpu, 3),
        }

    def record(self) -> dict[str, Any]:
        """The provenance of a result made since this clock started."""
        return {
            "commit": git_commit(),
            "command": command_line(),
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "machine": platform.machine(),
            "packages": package_set(),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            **self.seconds(),
        }
