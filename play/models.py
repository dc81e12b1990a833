"""The trained bots a server may seat: the shipped checkpoints and the ``--models`` folders.

The page never names a file: it picks a model id from :meth:`ModelCatalogue.entries`
(``shipped/asrus/ppo_5p.zip``, ``runs/asrus_v0-ppo-20260101-120000``), and
the server maps the id back through the same listing. So nothing outside the
catalogue's folders can be loaded, whatever a request says; the listing itself
resolves every path (symbolic links included) and drops what lies outside its
folder. A checkpoint is read the way :func:`flockgym.training.load_policy`
reads one: its JSON metadata, then the network's weights only, never by
unpickling.

Each entry says what it is, for the new-game form: a shipped bot carries the
win rate against the heuristic from its saved evaluation (the
``<name>_eval/heuristic`` or ``<name>_eval/field_heuristic`` tournament next to
it, written by ``flockgym eval``), and per game and player count the shipped
bot with the highest such rate, if above a fair share, is marked ``strongest``:
the form's default opponent. A model from a ``--models`` folder is the user's
own and is never the default.

A file that cannot be read as a checkpoint (a damaged zip, metadata that does
not parse, numbers past Python's digit limit) is left out of the listing with a
warning naming it, once per version of the file: one bad file never stops the
listing, nor the games that seat other models.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from flockgym.bots.checkpoints import CheckpointArchive
from flockgym.bots.policies import CheckpointError, read_meta, run_policy_file

SHIPPED_LABEL = "shipped"
MAX_DEPTH = 5
"""Folders deeper than this below a models folder are not searched."""
MAX_ENTRIES = 500
"""At most this many models are listed per folder."""
RESCAN_SECONDS = 5.0


def shipped_checkpoints() -> Path | None:
    """The shipped checkpoints' folder (package data), if any."""
    from flockgym.bots.shipped import checkpoints_root

    return checkpoints_root()


EVAL_FOLDERS = ("heuristic", "field_heuristic")
"""The saved evaluations against the heuristic: two seats rotated, or one seat among heuristics."""


@dataclass(frozen=True)
class Evaluation:
    """A shipped bot's saved result against the heuristic bot."""

    win_rate: float
    games: int
    players: int
    alone: bool
    """True: the bot alone at a table of heuristics; False: one heuristic, seats rotated."""

    def text(self) -> str:
        """``wins 72.8% against the heuristic (2 players, 400 games)``."""
        rate = f"{100 * self.win_rate:.1f}%"
        if self.alone:
            return (
                f"wins {rate} alone among {self.players - 1} heuristic bots "
                f"({self.players} players, {self.games} games; a fair share is "
                f"{100 / self.players:.0f}%)"
            )
        return f"wins {rate} against the heuristic ({self.players} players, {self.games} games)"


@dataclass(frozen=True)
class ModelEntry:
    """One model a game may seat: its id, its file, what it was trained for, and
    (for a shipped bot) how it did against the heuristic."""

    id: str
    path: Path
    env_id: str
    env_options: dict[str, Any]
    steps: int
    shipped: bool = False
    evaluation: Evaluation | None = None
    strongest: bool = False

    def description(self) -> str:
        """What the form says this choice is."""
        if not self.shipped:
            return f"your model ({self.steps:,} steps of training; not evaluated here)"
        if self.evaluation is None:
            return f"shipped, trained ({self.steps:,} steps); no saved evaluation"
        return f"shipped, trained; {self.evaluation.text()}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "env": self.env_id,
            "options": self.env_options,
            "steps": self.steps,
            "shipped": self.shipped,
            "win_rate_vs_heuristic": None if self.evaluation is None else self.evaluation.win_rate,
            "strongest": self.strongest,
            "description": self.description(),
        }


class ModelCatalogue:
    """Models found under labelled folders, rescanned at most every few seconds."""

    def __init__(
        self,
        folders: list[Path],
        shipped: Path | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.warn = warn or console_warning
        self.warned: set[tuple[str, int, int]] = set()
        """The unreadable files already named (path, size, time), so each is named once."""
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
                found += scan_folder(label, root, self.skipped)
            self._entries = mark_strongest(sorted(found, key=lambda e: e.id))
            self._scanned = now
        return self._entries

    def skipped(self, model_id: str, path: Path, why: str) -> None:
        """Name an unreadable model file once (again only if the file changes)."""
        try:
            info = path.stat()
            key = (str(path), info.st_size, info.st_mtime_ns)
        except OSError:
            key = (str(path), -1, -1)
        if key not in self.warned:
            self.warned.add(key)
            self.warn(f"model {model_id} skipped: {why}")

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


def console_warning(text: str) -> None:
    print(f"flockgym serve: {text}", file=sys.stderr, flush=True)


Skipped = Callable[[str, Path, str], None]
"""Told of each file left out: its model id, its path and why."""


def scan_folder(label: str, root: Path, skipped: Skipped | None = None) -> list[ModelEntry]:
    """Run folders (``final.zip`` or ``checkpoints/*.zip``) and loose checkpoint zips
    under ``root``; ``skipped`` hears of each that cannot be read."""
    skipped = skipped or (lambda model_id, path, why: console_warning(f"{model_id}: {why}"))
    found: list[ModelEntry] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        depth = len(here.relative_to(root).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and depth < MAX_DEPTH)
        if is_run_folder(here):
            entry = checked_entry(label, root, here, run_policy_file(here), skipped)
            found += [entry] if entry else []
            dirs[:] = []  # its checkpoints and snapshots are the run's, listed as the run
            continue
        for name in sorted(files):
            if name.endswith(".zip") and not name.startswith("."):
                entry = checked_entry(label, root, here / name, here / name, skipped)
                found += [entry] if entry else []
        if len(found) >= MAX_ENTRIES:
            break
    return found[:MAX_ENTRIES]


def is_run_folder(folder: Path) -> bool:
    return (folder / "final.zip").is_file() or any((folder / "checkpoints").glob("*.zip"))


def model_id_of(label: str, root: Path, listed: Path) -> str:
    relative = listed.relative_to(root).as_posix()
    return label if relative == "." else f"{label}/{relative}"


def checked_entry(
    label: str, root: Path, listed: Path, policy_file: Path, skipped: Skipped
) -> ModelEntry | None:
    """:func:`make_entry`, a file it cannot read told to ``skipped`` (never raised:
    whatever a damaged file makes the reader raise, the listing goes on)."""
    try:
        return make_entry(label, root, listed, policy_file)
    except CheckpointError as err:
        why = str(err)
    except Exception as err:  # a reader's bare error on a damaged file (see the docstring)
        why = unreadable_because(err)
    skipped(model_id_of(label, root, listed), policy_file, why)
    return None


def unreadable_because(err: Exception) -> str:
    """What a bare error from reading a checkpoint means, in a line."""
    text = str(err)
    if isinstance(err, ValueError) and "integer string conversion" in text:
        return "its metadata holds a number of thousands of digits (Python reads at most 4,300)"
    if isinstance(err, RecursionError):
        return "its metadata nests too deeply"
    return f"cannot be read ({type(err).__name__}: {text[:200]})"


def make_entry(label: str, root: Path, listed: Path, policy_file: Path) -> ModelEntry | None:
    """The entry of one model; None for a file outside ``root`` or gone, and
    :class:`CheckpointError` (or the reader's own error) for one that is no readable
    flockgym checkpoint."""
    resolved = policy_file.resolve()
    if not resolved.is_relative_to(root) or not resolved.is_file():
        return None
    with CheckpointArchive(resolved) as archive:
        meta = read_meta(archive)
    model_id = model_id_of(label, root, listed)
    shipped = label == SHIPPED_LABEL
    evaluation = saved_evaluation(resolved) if shipped else None
    options = dict(meta.env_options)
    return ModelEntry(
        model_id, resolved, meta.env_id, options, int(meta.steps), shipped, evaluation
    )


def saved_evaluation(checkpoint: Path) -> Evaluation | None:
    """The bot's win rate against the heuristic from the tournament saved beside it
    (``ppo_2p.zip`` -> ``ppo_2p_eval/heuristic/tournament.json``), or None.

    Only a tournament of this checkpoint against heuristic bots alone counts; a
    file that is missing or shaped otherwise is no evaluation (the bot is still
    listed, just not ranked)."""
    for folder in EVAL_FOLDERS:
        path = checkpoint.parent / f"{checkpoint.stem}_eval" / folder / "tournament.json"
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
            standings = result["standings"]
            mine = [s for s in standings if str(s["spec"]).endswith(checkpoint.name)]
            others = [s for s in standings if s not in mine]
            if len(mine) != 1 or not others or any(s["spec"] != "heuristic" for s in others):
                continue
            return Evaluation(
                win_rate=float(mine[0]["win_rate"]),
                games=int(mine[0]["games"]),
                players=int(result["num_players"]),
                alone=result["seating"] == "field",
            )
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            continue
    return None


def mark_strongest(entries: list[ModelEntry]) -> list[ModelEntry]:
    """Mark, per env and player count, the shipped bot with the highest saved win
    rate against the heuristic, if it wins more than a fair share (1 / players) of
    those games; otherwise the heuristic is the stronger choice and none is marked."""
    best: dict[tuple[str, Any], tuple[float, str]] = {}
    for entry in entries:
        evaluation = entry.evaluation
        if not entry.shipped or evaluation is None:
            continue
        if evaluation.win_rate <= 1 / evaluation.players:
            continue
        key = (entry.env_id, entry.env_options.get("num_players"))
        if key not in best or evaluation.win_rate > best[key][0]:
            best[key] = (evaluation.win_rate, entry.id)
    chosen = {model_id for _, model_id in best.values()}
    return [replace(e, strongest=True) if e.id in chosen else e for e in entries]
