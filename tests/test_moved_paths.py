"""The modules that moved out of ``flockgym.training`` still import under their
old names for one release: the same module object (so a patch on either name
patches both), with a DeprecationWarning naming the new path; and the names
``flockgym.training`` used to export resolve, warning."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from flockgym.training import MOVED_MODULES

OURS = r"flockgym\.training\.\w+ moved"
"""The warnings an old path gives (other packages' warnings are theirs to give)."""


def test_every_old_module_path_is_the_new_module_with_a_warning() -> None:
    """In a fresh process (nothing imported yet under either name): each old name
    imports as the new module, warning once with the new path."""
    pytest.importorskip("rliable")  # every moved module imports with the train extra
    code = (
        "import importlib, json, sys, warnings\n"
        f"moved = {dict(sorted(MOVED_MODULES.items()))!r}\n"
        "found = {}\n"
        "for old, new in moved.items():\n"
        f"    warnings.filterwarnings('error', message={OURS!r})\n"
        "    module = importlib.import_module(new)\n"
        "    warnings.simplefilter('always')\n"
        "    with warnings.catch_warnings(record=True) as caught:\n"
        "        same = importlib.import_module(old) is module\n"
        "    found[old] = [same, [f'{w.category.__name__} {w.message}' for w in caught]]\n"
        "print(json.dumps(found))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found = json.loads(out.stdout)
    for old, new in MOVED_MODULES.items():
        same, caught = found[old]
        assert same, old
        assert len(caught) == 1 and caught[0].startswith(f"DeprecationWarning {old} moved to {new}")


def test_the_new_packages_import_without_any_deprecation_warning() -> None:
    code = (
        "import warnings\n"
        f"warnings.filterwarnings('error', message={OURS!r})\n"
        "import flockgym.bots, flockgym.common, flockgym.evaluation, flockgym.cli\n"
        "import flockgym.training, flockgym.bots.policies, flockgym.evaluation.tournaments\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    ("name", "package"),
    [("load_policy", "flockgym.bots"), ("make_participant", "flockgym.bots"),
     ("export_policy", "flockgym.bots"), ("tournament", "flockgym.evaluation")],
)  # fmt: skip
def test_a_name_the_training_package_used_to_export_resolves_with_a_warning(
    name: str, package: str
) -> None:
    training = importlib.import_module("flockgym.training")
    with pytest.warns(DeprecationWarning, match=f"import it from {package}"):
        value = getattr(training, name)
    assert value is getattr(importlib.import_module(package), name)


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    import flockgym.training

    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = flockgym.training.nothing_here  # type: ignore[attr-defined]
