"""Writing files so that a crash, a full disk or a read-only folder never leaves
a half-written one behind, and says clearly what went wrong.

Every file the pipeline writes (checkpoints, snapshots, the final policy,
``state.json``, ``config.yaml``, tournament results) goes through
:func:`write_atomic`: the bytes go to a hidden temporary file in the same
folder, are flushed to disk (``fsync``), and only then take the file's name
(``os.replace``, atomic on POSIX). A reader sees the old file or the new one,
never a prefix; a run-folder bot spec (which picks the newest
``checkpoints/*.zip``) never picks a truncated checkpoint.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

TEMPORARY_PREFIX = ".partial-"
"""Temporary files start with this (and never end in ``.zip``): no glob of the
pipeline matches them."""


class OutputError(OSError):
    """A file or folder cannot be written (full disk, read-only folder, a file
    where a folder should be); the message names the path and the reason."""


def describe(err: OSError) -> str:
    return err.strerror or str(err)


def write_atomic(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` all at once or not at all (see module doc)."""
    path = Path(path)
    try:
        fd, temporary = tempfile.mkstemp(prefix=TEMPORARY_PREFIX, dir=path.parent)
    except OSError as err:
        raise OutputError(f"cannot write {path}: {describe(err)}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException as err:  # a full disk, or a kill mid-write: leave nothing behind
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(err, OSError):
            raise OutputError(f"cannot write {path}: {describe(err)}") from None
        raise
    sync_folder(path.parent)
    return path


def remove_partial_files(folder: Path) -> None:
    """Remove temporary files a killed process left in ``folder`` and below."""
    for path in Path(folder).rglob(f"{TEMPORARY_PREFIX}*"):
        with contextlib.suppress(OSError):
            path.unlink()


def write_text_atomic(path: Path, text: str) -> Path:
    return write_atomic(path, text.encode("utf-8"))


def sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (best effort: not every system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def append_line(path: Path, line: str) -> None:
    """Append one line (a log record); :class:`OutputError` if it cannot be written."""
    try:
        with path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")
    except OSError as err:
        raise OutputError(f"cannot write {path}: {describe(err)}") from None


def make_folder(folder: Path) -> Path:
    """``mkdir -p``; :class:`OutputError` naming the folder if it cannot be made."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(f"cannot create folder {folder}: {describe(err)}") from None
    return folder


def check_writable_folder(folder: Path, names: Iterable[str] = ()) -> Path:
    """Make ``folder`` if needed and check that files can be written in it and that
    none of ``names`` is a folder there: before the work, not after it."""
    folder = make_folder(folder)
    for name in names:
        if (folder / name).is_dir():
            raise OutputError(f"{folder / name} is a folder; it must be free for a file")
    try:
        with tempfile.TemporaryFile(prefix=TEMPORARY_PREFIX, dir=folder):
            pass
    except OSError as err:
        raise OutputError(f"cannot write in {folder}: {describe(err)}") from None
    return folder
