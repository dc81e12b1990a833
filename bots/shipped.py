"""The configs and checkpoints that ship with flockgym, found from the package.

They are package data (``flockgym.configs`` and ``flockgym.checkpoints``, the
``configs/`` and ``checkpoints/`` folders of a checkout), so ``flockgym list``,
``flockgym train quickstart`` and the bot spec ``asrus/ppo_5p`` work from any
folder and from an installed wheel, not only in a checkout.

Names are paths below those folders without the suffix: ``quickstart``,
``asrus/ppo`` (configs), ``asrus/ppo_5p`` (checkpoints). The checkout form of
the same files (``configs/asrus/ppo.yaml``, ``checkpoints/asrus/ppo_5p.zip``)
is accepted too: a path that exists is always the file it names; one that does
not exist here but names a shipped file is that shipped file.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path, PurePosixPath

CONFIG_PACKAGE = "flockgym.configs"
CHECKPOINT_PACKAGE = "flockgym.checkpoints"


def package_folder(package: str) -> Path | None:
    """The folder of a data package, or None if it is not installed."""
    try:
        spec = find_spec(package)
    except ModuleNotFoundError:
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def configs_root() -> Path | None:
    return package_folder(CONFIG_PACKAGE)


def checkpoints_root() -> Path | None:
    return package_folder(CHECKPOINT_PACKAGE)


def game_folder(env_id: str) -> str:
    """``asrus_v0`` -> ``asrus``: the folder name of a game's configs and checkpoints."""
    return env_id.rsplit("_", 1)[0]


def shipped_files(root: Path | None, suffix: str) -> dict[str, Path]:
    """Every ``*suffix`` file below ``root`` by name (relative path, no suffix), sorted."""
    if root is None:
        return {}
    files = sorted(p for p in root.rglob(f"*{suffix}") if p.is_file())
    return {p.relative_to(root).with_suffix("").as_posix(): p for p in files}


def shipped_configs() -> dict[str, Path]:
    """``{"asrus/ppo": .../configs/asrus/ppo.yaml, "quickstart": ..., ...}``."""
    return shipped_files(configs_root(), ".yaml")


def shipped_checkpoints() -> dict[str, Path]:
    """``{"asrus/ppo_5p": .../checkpoints/asrus/ppo_5p.zip, ...}``."""
    return shipped_files(checkpoints_root(), ".zip")


def shipped_name(text: str, folder: str, suffix: str) -> str:
    """The shipped name ``text`` may mean: ``asrus/ppo_5p``, ``asrus/ppo_5p.zip``
    and ``checkpoints/asrus/ppo_5p.zip`` all mean ``asrus/ppo_5p``."""
    path = PurePosixPath(text.replace("\\", "/"))
    if path.parts and path.parts[0] == folder:
        path = PurePosixPath(*path.parts[1:]) if len(path.parts) > 1 else PurePosixPath()
    if path.suffix == suffix:
        path = path.with_suffix("")
    return path.as_posix()


def find_shipped(text: str, kind: str) -> Path | None:
    """The shipped ``kind`` (``"config"`` or ``"checkpoint"``) ``text`` names, or None."""
    if kind == "config":
        return shipped_configs().get(shipped_name(text, "configs", ".yaml"))
    return shipped_checkpoints().get(shipped_name(text, "checkpoints", ".zip"))


def resolve_config(text: str | Path) -> Path:
    """A config argument: a file that exists, else the shipped config it names
    (else the path as given, for the loader to report as missing)."""
    path = Path(text)
    try:
        if path.exists():
            return path
        return find_shipped(str(text), "config") or path
    except OSError:  # a name past the system's limit: the loader names the problem
        return path
