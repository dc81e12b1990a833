"""The check that a test run leaves the checkout as it found it: tests write only
to temporary folders. ``tests/conftest.py`` registers :class:`CheckoutGuard` on
the checkout; the run fails, listing them, if files appeared there meanwhile."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

IGNORED_BUT_WATCHED = ("runs",)
"""Folders .gitignore hides that the project's commands write to by default (runs,
evaluations, saved games): a test that forgot its tmp_path lands there unseen by git."""

SHOWN = 20
"""New files listed at most; the rest are counted."""


def untracked_files(root: Path) -> set[str] | None:
    """The files under ``root`` that git does not track and .gitignore does not hide,
    plus every file and folder under the watched ignored folders (an empty
    ``runs/eval/<time>/`` left by a refused command counts); None outside a git
    checkout (an unpacked sdist, no git installed), where there is nothing to compare."""
    try:
        done = subprocess.run(
            ["git", "status", "--porcelain", "-z", "--untracked-files=all", "--", "."],
            cwd=root,
            capture_output=True,
            check=False,
        )
    except OSError:
        return None
    if done.returncode != 0:
        return None
    entries = done.stdout.decode("utf-8", "replace").split("\0")
    found = {entry[3:] for entry in entries if entry.startswith("?? ")}
    for name in IGNORED_BUT_WATCHED:
        folder = root / name
        if folder.is_dir():
            found.add(f"{name}/")
            found |= {
                p.relative_to(root).as_posix() + ("/" if p.is_dir() else "")
                for p in folder.rglob("*")
            }
    return found


def is_controller(config: pytest.Config) -> bool:
    """True in a plain run and in pytest-xdist's controller; False in its workers,
    which would see one another's files come and go."""
    return not hasattr(config, "workerinput")


class CheckoutGuard:
    """A pytest plugin: the untracked files of ``root`` at the session's start and
    end; new ones fail the run. Only new files count: edits to tracked files, and
    files there before the run, are someone's work in progress, not the tests'."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.before: set[str] | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if is_controller(session.config):
            self.before = untracked_files(self.root)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.before is None or not is_controller(session.config):
            return
        after = untracked_files(self.root)
        new = sorted((after or set()) - self.before)
        if not new:
            return
        listed = "\n".join(f"  {path}" for path in new[:SHOWN])
        if len(new) > SHOWN:
            listed += f"\n  ... and {len(new) - SHOWN} more"
        message = (
            f"the tests left {len(new)} new file(s) or folder(s) in {self.root} (tests "
            f"write only to temporary folders, e.g. tmp_path):\n{listed}"
        )
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(message, red=True, bold=True)
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
