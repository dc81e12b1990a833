"""The server's finished saved games, listed from a cached index.

``GET /api/saved`` used to read and check every record on every request (2.2 s
for 200 records of 1 MB each). Here each record file is read once per version:
the index keeps, by file name, the file's identity (inode, size, modification
time in nanoseconds) and what the listing shows of it, and a request only
looks at the folder's entries; a file that changed, appeared or went away is
read again or dropped on the next request.

A record that cannot be read or checked is left out of the listing with a
warning naming it (once per version of the file), so one damaged file never
makes the listing fail for everyone; asking for it by name is a 422 naming
what is wrong.

A few whole records, the replays of the records being viewed and the frames
already sent are kept too, so a viewer stepping through a game replays each
move once instead of every move up to the one shown on every request.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from flockgym.envs import env_module

from .records import FINISHED, RECORD_NAME, Replay, SavedGameError, load_record

FileKey = tuple[int, int, int]
"""A file's inode, size and modification time (ns): a new version changes it."""
LISTED = 200
"""Finished games listed at most (the newest)."""

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """The ``size`` most recently used values (a small LRU cache)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self.items.get(key)
        if value is not None:
            self.items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> V:
        self.items[key] = value
        self.items.move_to_end(key)
        while len(self.items) > self.size:
            self.items.popitem(last=False)
        return value


@dataclass(frozen=True)
class Indexed:
    """One record file as the index last saw it: its identity and its listing entry
    (None: not listed, as unreadable or still running)."""

    key: FileKey
    entry: dict[str, Any] | None


def file_key(path: Path) -> FileKey | None:
    """The identity of a regular file (a symbolic link, a folder or a FIFO: None)."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def check_no_file_options(record: dict[str, Any]) -> None:
    """The server opens no file a saved game names: an option the env declares as
    reading a file must be inline (a list or object), as the server saves it."""
    table = env_module(record["env"]).raw_env.option_table()
    for option in table:
        value = record["options"].get(option.name)
        if getattr(option, "reads_file", False) and not isinstance(value, (list, dict, type(None))):
            raise SavedGameError(
                f"options.{option.name}: names a file; the server replays only games whose "
                f"{option.name} is inline (a list of rows) or left out"
            )


def summary(name: str, record: dict[str, Any]) -> dict[str, Any]:
    """What the list of saved games shows of one record."""
    return {
        "name": name,
        "env": record["env"],
        "status": record["status"],
        "started": record.get("started"),
        "moves": len(record["moves"]),
        "seats": [s["name"] for s in record["seats"]],
        "scores": record["scores"],
        "winners": record["winners"],
    }


class SavedGames:
    """The saved games of ``folder``: the listing, whole records and replay frames,
    each cached by the record file's identity (see the module docstring)."""

    def __init__(self, folder: Path | None, warn: Callable[[str], None]) -> None:
        self.folder = folder
        self.warn = warn
        self.lock = threading.Lock()
        self.index: dict[str, Indexed] = {}
        self.records: Recent[tuple[str, FileKey], dict[str, Any]] = Recent(4)
        self.replays: Recent[tuple[str, FileKey], Replay] = Recent(4)
        self.frames: Recent[tuple[str, FileKey, int], dict[str, Any]] = Recent(128)
        self.reads = 0
        """Record files read and checked so far (what the cache saves)."""

    def listing(self) -> list[dict[str, Any]]:
        """The newest :data:`LISTED` finished games, newest first."""
        if self.folder is None or not self.folder.is_dir():
            return []
        names = sorted(
            (n for n in os.listdir(self.folder) if RECORD_NAME.fullmatch(n)), reverse=True
        )
        games = []
        with self.lock:
            for name in set(self.index) - set(names):
                del self.index[name]
            for name in names:
                entry = self.indexed(name)
                if entry is not None:
                    games.append(entry)
                if len(games) >= LISTED:
                    break
        return games

    def indexed(self, name: str) -> dict[str, Any] | None:
        assert self.folder is not None
        key = file_key(self.folder / name)
        if key is None:
            self.index.pop(name, None)
            return None
        item = self.index.get(name)
        if item is None or item.key != key:
            item = Indexed(key, self.read_entry(name, key))
            self.index[name] = item
        return item.entry

    def read_entry(self, name: str, key: FileKey) -> dict[str, Any] | None:
        try:
            record = self.read(name, key)
        except SavedGameError as err:
            self.warn(f"saved game {name} not listed: {self.without_folder(str(err))}")
            return None
        return summary(name, record) if record["status"] in FINISHED else None

    def read(self, name: str, key: FileKey) -> dict[str, Any]:
        """The record of file ``name`` at version ``key``, read and checked once."""
        cached = self.records.get((name, key))
        if cached is not None:
            return cached
        assert self.folder is not None
        self.reads += 1
        record = load_record(self.folder / name)
        check_no_file_options(record)
        return self.records.put((name, key), record)

    def record(self, name: str) -> tuple[dict[str, Any], FileKey]:
        """The checked record of file ``name`` (a name the caller has checked) and its
        version; :class:`SavedGameError` if it cannot be read."""
        assert self.folder is not None
        key = file_key(self.folder / name)
        if key is None:
            raise SavedGameError(f"{name} is not a regular file: not a saved game")
        with self.lock:
            return self.read(name, key), key

    def frame(self, name: str, moves: int) -> dict[str, Any]:
        """Every seat's view of saved game ``name`` after ``moves`` moves (a number
        the caller checked against the record), replaying only what is not cached."""
        record, key = self.record(name)
        with self.lock:
            cached = self.frames.get((name, key, moves))
            if cached is not None:
                return cached
            replay = self.replays.get((name, key))
            if replay is None or replay.done > moves:
                replay = self.replays.put((name, key), Replay(record))
            replay.advance(moves)
            raw = replay.raw
            done = moves == len(record["moves"])
            frame = {
                "name": name,
                "move_number": moves,
                "moves": len(record["moves"]),
                # a copy: the replay goes on, and a view may share the table's lists
                "views": json.loads(json.dumps({a: raw.view(a) for a in raw.possible_agents})),
                "next": None if done else record["moves"][moves],
                "to_act": None if done else record["moves"][moves]["agent"],
            }
            return self.frames.put((name, key, moves), frame)

    def without_folder(self, message: str) -> str:
        """A message naming a file by its name only (the console needs no path)."""
        if self.folder is None:
            return message
        for form in {str(self.folder.resolve()), str(self.folder)}:
            message = message.replace(form + os.sep, "")
        return message
