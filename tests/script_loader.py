"""Load a script of benchmarks/ as a module, as it runs: its folder on the path
(scripts import their neighbours), registered in ``sys.modules`` (dataclasses
look their module up there)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load_script(name: str, folder: Path = BENCHMARKS) -> ModuleType:
    """``folder/name.py`` as the module ``bench_<name>``."""
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
