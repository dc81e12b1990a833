"""The code of another commit, importable as ``flockgym`` by a subprocess, so that
a benchmark measures "before" and "after" interleaved in one run.

The editable install maps ``flockgym.envs`` to ``envs/``, ``flockgym.training``
to ``training/`` and so on, through a finder that Python consults after the
ordinary path search. :func:`baseline_tree` checks the commit out as a
temporary ``git worktree`` and builds beside it a folder holding a ``flockgym``
package whose entries link to the worktree's folders; with that folder first on
``PYTHONPATH`` the path search finds it before the editable finder is asked, so
a subprocess started with :func:`baseline_env` imports the commit's code. The
subprocess reports where it imported ``flockgym.envs`` from
(:func:`imported_from`), and :func:`check_imported` refuses a run in which that
is not the worktree.

Used by ``benchmarks/throughput.py --baseline REF`` and
``benchmarks/train_throughput.py --baseline REF``.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The checkout this script belongs to."""

PACKAGE_FOLDERS = {
    "envs": "envs",
    "training": "training",
    "play": "play",
    "configs": "configs",
    "checkpoints": "checkpoints",
}
"""``flockgym.<name>`` -> the source folder it is installed from (pyproject.toml)."""


@dataclass(frozen=True)
class BaselineTree:
    """A commit checked out for a benchmark's baseline subprocess."""

    ref: str
    commit: str
    """The full commit id ``ref`` names."""
    worktree: Path
    path_entry: Path
    """The folder to put first on ``PYTHONPATH``."""

    @property
    def label(self) -> str:
        """``@ d29430e``: the suffix of the baseline's rows."""
        return f"@ {self.ref}"


def resolve_commit(ref: str) -> str:
    """The full commit id of ``ref``, or a ``ValueError`` naming it."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise ValueError(
            f"--baseline {ref!r}: not a commit of this checkout; allowed: a commit id, "
            "branch or tag that `git rev-parse` knows"
        )
    return done.stdout.strip()


def link_package(worktree: Path, path_entry: Path) -> None:
    """``path_entry/flockgym``: the worktree's ``flockgym/`` files, and a link per
    installed subpackage to the worktree's folder."""
    package = path_entry / "flockgym"
    package.mkdir(parents=True)
    for item in (worktree / "flockgym").iterdir():
        (package / item.name).symlink_to(item)
    for name, folder in PACKAGE_FOLDERS.items():
        if (worktree / folder).is_dir():
            (package / name).symlink_to(worktree / folder, target_is_directory=True)


@contextlib.contextmanager
def baseline_tree(ref: str) -> Iterator[BaselineTree]:
    """The commit ``ref`` in a temporary worktree (removed on exit) and its
    import folder."""
    commit = resolve_commit(ref)
    with tempfile.TemporaryDirectory(prefix="flockgym-baseline-") as folder:
        worktree = Path(folder) / "tree"
        subprocess.run(
            [
                "git",
                "-C",
                str(ROOT),
                "worktree",
                "add",
                "--detach",
                "--quiet",
                str(worktree),
                commit,
            ],
            check=True,
        )
        try:
            path_entry = Path(folder) / "path"
            link_package(worktree, path_entry)
            yield BaselineTree(ref, commit, worktree, path_entry)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)],
                check=False,
            )


def baseline_env(tree: BaselineTree) -> dict[str, str]:
    """The environment of a subprocess that imports the baseline's ``flockgym``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tree.path_entry), *filter(None, [env.get("PYTHONPATH")])]
    )
    return env


def imported_from() -> str:
    """Where this process imported ``flockgym.envs`` from (its real folder)."""
    import flockgym.envs

    return str(Path(flockgym.envs.__file__).resolve().parent)


def check_imported(tree: BaselineTree, where: str) -> None:
    """Refuse a baseline subprocess that imported another tree's code."""
    expected = str((tree.worktree / "envs").resolve())
    if where != expected:
        raise RuntimeError(
            f"the baseline subprocess imported flockgym.envs from {where}, not from the "
            f"worktree of {tree.ref} ({expected}): its numbers would not be the baseline's"
        )


def checkout_commit() -> str:
    """This checkout's commit (with ``+changes`` when the tree differs from it): what
    every saved benchmark run records as the code it measured."""
    root = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
        return done.stdout.strip()

    dirty = git("status", "--porcelain", "--untracked-files=no")
    return git("rev-parse", "--short", "HEAD") + ("+changes" if dirty else "")
