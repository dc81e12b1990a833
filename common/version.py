"""flockgym's version (``flockgym.__version__``) and the source tree's git commit, for
modules of this package (light: no torch, so tournaments and comparisons can
record the commit without the train extra)."""

from __future__ import annotations

import subprocess
from functools import lru_cache
from pathlib import Path

from flockgym import __version__

__all__ = ["__version__", "git", "git_commit"]


def git(*args: str) -> str:
    """Output of a git command run in the source tree (raises if git fails)."""
    source = Path(__file__).resolve().parent
    done = subprocess.run(
        ["git", *args], cwd=source, capture_output=True, text=True, check=True, timeout=10
    )
    return done.stdout.strip()


@lru_cache(maxsize=1)
def git_commit() -> str:
    """The source tree's commit, ``+dirty`` if tracked files differ from it, or
    ``unknown`` outside a checkout (read once per process: a run is credited to
    the code it started with)."""
    try:
        commit = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")
