"""The examples in the env package's docstrings run and print what they show.

A docstring example is documentation a reader copies; one that no longer
matches the code (a Skybirds layout example showed ``'2 2'`` for the single 2
for years) misleads quietly, so every module of ``flockgym.envs`` is run here.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import flockgym.envs

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(flockgym.envs.__path__, "flockgym.envs.")
    if not info.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
