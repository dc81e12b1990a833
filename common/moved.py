"""Old import paths kept for one release. A module that moved stays importable
under its old name, as the very same module object (so ``mock.patch`` on either
name patches the one module), with a DeprecationWarning that names the new path.
The old names are served by one import hook instead of a file each, so a package
holds only what it holds now. Also the packages' names exported on first use
(:func:`lazy_exports`), shared instead of written in each package.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from collections.abc import Mapping
from importlib.machinery import ModuleSpec
from types import ModuleType


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds each old module name of ``moved`` (old -> new dotted name) and loads
    it as the new module."""

    def __init__(self, moved: Mapping[str, str]) -> None:
        self.moved = dict(moved)

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in self.moved:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        new = self.moved[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new}; the old path is kept until the next release "
            "(docs/own-code.md names the new ones)",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """The new module ran when it was imported: nothing to run again."""


def keep_old_paths(moved: Mapping[str, str]) -> None:
    """Serve ``moved``'s old names from now on (once per table of names)."""
    for finder in sys.meta_path:
        if isinstance(finder, MovedModules) and finder.moved == dict(moved):
            return
    sys.meta_path.append(MovedModules(moved))


def lazy_exports(package: str, exports: Mapping[str, str]) -> tuple[object, object]:
    """A package's ``__getattr__`` and ``__dir__`` that import each exported name
    (name -> its module, relative to ``package``) on first use, so importing the
    package stays cheap (no torch)."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__
