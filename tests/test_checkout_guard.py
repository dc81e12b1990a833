"""The suite's own check that tests leave the checkout as they found it
(``checkout_guard.py``), run on a throwaway git checkout with pytest in a
subprocess: a stray file fails the run and is named, a clean run passes, files
there before the run and edits to tracked files do not count, and under
pytest-xdist only the controller checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from checkout_guard import untracked_files

TESTS = Path(__file__).resolve().parent


def checkout(tmp_path: Path, test_body: str) -> Path:
    """A git checkout whose conftest registers the guard and whose one test runs
    ``test_body``; .gitignore hides runs/ and __pycache__/ as the project's does."""
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("runs/\n__pycache__/\n")
    (root / "tracked.txt").write_text("before\n")
    subprocess.run(["git", "add", "."], cwd=root, check=True)
    (root / "conftest.py").write_text(
        "import sys\nfrom pathlib import Path\n"
        f"sys.path.insert(0, {str(TESTS)!r})\n"
        "from checkout_guard import CheckoutGuard\n\n"
        "def pytest_configure(config):\n"
        "    config.pluginmanager.register(CheckoutGuard(Path(__file__).parent), 'guard')\n"
    )
    (root / "test_it.py").write_text(
        "from pathlib import Path\nROOT = Path(__file__).parent\n\n"
        f"def test_it():\n    {test_body}\n"
    )
    return root


def run_pytest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


STRAY = (
    "(ROOT / 'runs' / 'games').mkdir(parents=True); "
    "(ROOT / 'runs' / 'games' / 'g.json').write_text('{}'); (ROOT / 'stray.txt').write_text('x')"
)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_new_files_in_the_checkout_fail_the_run_and_are_named(
    tmp_path: Path, workers: list[str]
) -> None:
    root = checkout(tmp_path, STRAY)
    done = run_pytest(root, *workers)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    report = done.stdout.split("the tests left ", 1)[1].splitlines()
    assert report[:5] == [
        f"4 new file(s) or folder(s) in {root} (tests write only to temporary folders, "
        "e.g. tmp_path):",
        "  runs/",
        "  runs/games/",
        "  runs/games/g.json",
        "  stray.txt",
    ]
    assert done.stdout.count("the tests left ") == 1  # the controller's check alone


def test_a_clean_run_passes_though_files_predate_it_and_tracked_files_change(
    tmp_path: Path,
) -> None:
    root = checkout(tmp_path, "(ROOT / 'tracked.txt').write_text('edited during the run')")
    (root / "runs").mkdir()
    (root / "runs" / "earlier.json").write_text("{}")
    (root / "notes.txt").write_text("someone's work in progress")
    done = run_pytest(root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the tests left" not in done.stdout


def test_outside_a_git_checkout_there_is_nothing_to_compare(tmp_path: Path) -> None:
    assert untracked_files(tmp_path) is None
