"""The command line without the training extra, its version, and the shipped
configs and checkpoints found from the package from any folder."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from flockgym.bots.shipped import find_shipped, resolve_config, shipped_checkpoints
from flockgym.cli import main
from flockgym.common.errors import TRAIN_MODULES

BLOCK_TRAIN_EXTRA = textwrap.dedent(
    f"""
    import importlib.abc, sys
    BLOCKED = {sorted(TRAIN_MODULES)!r}

    class NotInstalled(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
            return None

    sys.meta_path.insert(0, NotInstalled())
    import importlib.util
    real_find_spec = importlib.util.find_spec
    importlib.util.find_spec = lambda name, *a: (
        None if name.split(".")[0] in BLOCKED else real_find_spec(name, *a)
    )
    import atexit
    atexit.register(
        lambda: print("LOADED:", sorted(m for m in BLOCKED if m in sys.modules), file=sys.stderr)
    )
    from flockgym.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)


def without_train_extra(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``flockgym ARGV`` in a Python where no package of the train extra imports."""
    return subprocess.run(
        [sys.executable, "-c", BLOCK_TRAIN_EXTRA, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        ((), "usage: flockgym"),
        (("--help",), "usage: flockgym"),
        (("--version",), "flockgym "),
        (("list",), "asrus_v0:"),
        (("eval", "--help"), "--jobs"),
    ],
)
def test_the_env_only_install_answers_without_torch(argv, shown, tmp_path: Path) -> None:
    done = without_train_extra(*argv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert shown in done.stdout
    assert "LOADED: []" in done.stderr  # nothing of the train extra was even imported


def test_list_from_another_folder_names_the_shipped_files(tmp_path: Path) -> None:
    done = without_train_extra("list", cwd=tmp_path)
    assert "checkpoints: asrus/ppo_5p" in done.stdout and "configs: asrus/ppo" in done.stdout


@pytest.mark.parametrize("command", [("train", "quickstart"), ("plot", "runs/x")])
def test_a_command_that_needs_the_extra_names_it(command, tmp_path: Path) -> None:
    done = without_train_extra(*command, cwd=tmp_path)
    assert done.returncode == 1
    assert "needs the 'train' extra" in done.stderr
    assert "pip install -c constraints.txt '.[train]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_checkpoint_bot_without_the_extra_names_it(tmp_path: Path) -> None:
    argv = ("eval", "--env", "asrus_v0", "--players", "asrus/ppo_5p,random", "--games", "2")
    done = without_train_extra(*argv, cwd=tmp_path)
    assert done.returncode == 1 and "pip install -c constraints.txt '.[train]'" in done.stderr


def test_bots_play_a_tournament_without_the_extra(tmp_path: Path) -> None:
    argv = ["eval", "--env", "asrus_v0", "--players", "heuristic,random", "--games", "2"]
    done = without_train_extra(*argv, "--option", "num_players=3", "--out", "e", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "e" / "tournament.json").is_file()


def test_version(capsys) -> None:
    import flockgym

    assert flockgym.__version__ == importlib.metadata.version("flockgym")
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"flockgym {flockgym.__version__}"


def test_shipped_names_resolve_from_any_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    shipped = shipped_checkpoints()["asrus/ppo_5p"]
    for name in ("asrus/ppo_5p", "asrus/ppo_5p.zip", "checkpoints/asrus/ppo_5p.zip"):
        assert find_shipped(name, "checkpoint") == shipped
    from flockgym.bots import parse_spec

    assert parse_spec("asrus/ppo_5p@sample").path == shipped
    assert resolve_config("quickstart").name == "quickstart.yaml"
    assert resolve_config("configs/asrus/ppo.yaml").parent.name == "asrus"
    (tmp_path / "quickstart").write_text("mine")  # a file that exists is always itself
    assert resolve_config("quickstart") == Path("quickstart")


def test_baselines_print_and_write_nothing_where_they_run(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    from flockgym.evaluation import baselines

    monkeypatch.setattr(baselines, "list_envs", lambda: ["asrus_v0"])
    monkeypatch.chdir(tmp_path)
    assert main(["baselines", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Baselines") and "Shipped checkpoints with both bots" in out
    assert list(tmp_path.iterdir()) == []


ROOT = Path(__file__).resolve().parents[2]
DATA_FOLDERS = {
    "flockgym.configs": ROOT / "configs",
    "flockgym.checkpoints": ROOT / "checkpoints",
    "flockgym.play.static": ROOT / "play" / "static",
}


def test_every_data_folder_is_a_listed_package_with_its_files() -> None:
    """A folder of shipped files that is not a listed package makes every wheel
    build warn about it (and newer setuptools drop it): each one is listed, with
    package-data globs matching each of its files."""
    import fnmatch

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed, globs = set(setuptools["packages"]), setuptools["package-data"]
    for package, root in DATA_FOLDERS.items():
        for path in sorted(root.rglob("*")):
            if not path.is_file() or path.name in ("__init__.py", ".gitkeep"):
                continue
            if "__pycache__" in path.parts:
                continue
            folder = path.parent.relative_to(root)
            name = ".".join([package, *folder.parts])
            assert name in listed, f"{name} (for {path.relative_to(ROOT)}) not in packages"
            patterns = globs.get(name, [])
            assert any(fnmatch.fnmatch(path.name, p) for p in patterns), (
                f"{path.relative_to(ROOT)}: no package-data glob of {name} matches it"
            )


def test_every_folder_of_modules_is_a_listed_package() -> None:
    """A folder of Python modules missing from ``packages`` is left out of the
    wheel, while the editable install still finds it: only an installed copy
    would fail (``flockgym.play`` and its ``static`` folders are listed)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    found = set()
    for package, folder in setuptools["package-dir"].items():
        root = ROOT / folder
        for module in root.rglob("*.py"):
            if "__pycache__" not in module.parts:
                found.add(".".join([package, *module.parent.relative_to(root).parts]))
    assert sorted(found - listed) == []
    assert {"flockgym.play", "flockgym.play.static", "flockgym.play.static.games"} <= listed
    assert not any(name.startswith("flockgym.training.serve") for name in listed)
