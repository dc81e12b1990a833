"""The trained bots a server may seat: the shipped checkpoints and the ``--models`` folders.

The page never names a file: it picks a model id from :meth:`ModelCatalogue.entries`
(``shipped/asrus/ppo_5p.zip``, ``runs/asrus_v0-ppo-20260101-120000``), and
the server maps the id back through the same listing. So nothing outside the
catalogue's folders can be loaded, whatever a request says; the listing itself
resolves every path (symbolic links included) and drops what lies outside its
folder. A checkpoint is read the way :func:`flockgym.training.load_policy`
reads one: its JSON metadata, then the network's weights only, never by
unpickling.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..checkpoints import CheckpointArchive
from ..policies import CheckpointError, read_meta, run_policy_file

SHIPPED_LABEL = "shipped"
MAX_DEPTH = 5
"""Folders deeper than this below a models folder are not searched."""
MAX_ENTRIES = 500
"""At most this many models are listed per folder."""
RESCAN_SECONDS = 5.0


def shipped_checkpoints() -> Path | None:
    """The shipped checkpoints' folder (package data), if any."""
    from ..shipped import checkpoints_root

    return checkpoints_root()


@dataclass(frozen=True)
class ModelEntry:
    """One model a game may seat: its id, its file, and what it was trained for."""

    id: str
    path: Path
    env_id: str
    env_options: dict[str, Any]
    steps: int

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "env": self.env_id,
            "options": self.env_options,
            "steps": self.steps,
        }


class ModelCatalogue:
    """Models found under labelled folders, rescanned at most every few seconds."""

    def __init__(self, folders: list[Path], shipped: Path | None = None) -> None:
        self.roots: list[tuple[str, Path]] = []
        if shipped is not None:
            self.roots.append((SHIPPED_LABEL, shipped.resolve()))
        taken = {SHIPPED_LABEL}
        for folder in folders:
            resolved = Path(folder).resolve()
            if not resolved.is_dir():
                raise CheckpointError(f"--models {folder}: not a folder")
            label = resolved.name or "models"
            number = 2
            while label in taken:
                label, number = f"{resolved.name}#{number}", number + 1
            taken.add(label)
            self.roots.append((label, resolved))
        self._entries: list[ModelEntry] = []
        self._scanned = -RESCAN_SECONDS

    def entries(self) -> list[ModelEntry]:
        """Every model found, sorted by id (rescanned if the listing is a few seconds old)."""
        now = time.monotonic()
        if now - self._scanned >= RESCAN_SECONDS:
            found: list[ModelEntry] = []
            for label, root in self.roots:
                found += scan_folder(label, root)
            self._entries = sorted(found, key=lambda e: e.id)
            self._scanned = now
        return self._entries

    def for_env(self, env_id: str) -> list[ModelEntry]:
        return [e for e in self.entries() if e.env_id == env_id]

    def resolve(self, model_id: Any) -> ModelEntry:
        """The entry of ``model_id``; a :class:`CheckpointError` names the listed ids otherwise."""
        if isinstance(model_id, str):
            for entry in self.entries():
                if entry.id == model_id:
                    self.check_inside(entry.path)
                    return entry
        listed = ", ".join(e.id for e in self.entries()) or "none (start with --models DIR)"
        raise CheckpointError(f"unknown model {model_id!r:.80}; models: {listed}")

    def check_inside(self, path: Path) -> None:
        """Refuse a file that does not (or no longer) resolve inside a catalogue folder."""
        resolved = path.resolve()
        if not any(resolved.is_relative_to(root) for _, root in self.roots):
            raise CheckpointError(f"{path} lies outside the models folders; refused")


def scan_folder(label: str, root: Path) -> list[ModelEntry]:
    """Run folders (``final.zip`` or ``checkpoints/*.zip``) and loose checkpoint zips
    under ``root``."""
    found: list[ModelEntry] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        depth = len(here.relative_to(root).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and depth < MAX_DEPTH)
        if is_run_folder(here):
            entry = make_entry(label, root, here, run_policy_file(here))
            found += [entry] if entry else []
            dirs[:] = []  # its checkpoints and snapshots are the run's, listed as the run
            continue
        for name in sorted(files):
            if name.endswith(".zip") and not name.startswith("."):
                entry = make_entry(label, root, here / name, here / name)
                found += [entry] if entry else []
        if len(found) >= MAX_ENTRIES:
            break
    return found[:MAX_ENTRIES]


def is_run_folder(folder: Path) -> bool:
    return (folder / "final.zip").is_file() or any((folder / "checkpoints").glob("*.zip"))


def make_entry(label: str, root: Path, listed: Path, policy_file: Path) -> ModelEntry | None:
    """The entry of one model, or None if it is no readable flockgym checkpoint inside ``root``."""
    resolved = policy_file.resolve()
    if not resolved.is_relative_to(root) or not resolved.is_file():
        return None
    try:
        with CheckpointArchive(resolved) as archive:
            meta = read_meta(archive)
    except CheckpointError:
        return None
    relative = listed.relative_to(root).as_posix()
    model_id = label if relative == "." else f"{label}/{relative}"
    return ModelEntry(model_id, resolved, meta.env_id, dict(meta.env_options), int(meta.steps))
