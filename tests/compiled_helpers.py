"""The compiled extensions for the tests that compare them with Python.

`make test` builds them (setup.py), so a missing one fails those tests rather
than skipping them quietly; a machine deliberately without a compiler sets
``FLOCKGYM_SKIP_COMPILER=1`` (as the Makefile's ``compiler`` target reads) and
the comparisons are skipped.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def require_compiled(game: str) -> ModuleType:
    """``flockgym.envs.<game>._native``, or a skip when no compiler is wanted."""
    name = f"flockgym.envs.{game}._native"
    if os.environ.get("FLOCKGYM_SKIP_COMPILER"):
        return pytest.importorskip(name, reason="FLOCKGYM_SKIP_COMPILER is set")
    return importlib.import_module(name)
