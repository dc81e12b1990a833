"""Builds the compiled game engines (C++17 bound with pybind11) at ``pip install``.

Everything else about the package is in pyproject.toml. Each game folder that
holds ``native/*.cpp`` gets one extension, ``flockgym.envs.<folder>._native``,
built from those sources with ``envs/core/native`` (numpy_rng.hpp) on the
include path; a new game's engine needs no edit here.

The extensions are optional: where no C++ compiler is found the install still
succeeds (setuptools says which one failed) and the Python engines run, saying
so once (flockgym.envs.core.native). The Makefile and .ci/run install g++ by its
Debian package name when it is missing.
"""

from __future__ import annotations

from pathlib import Path

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup

HERE = Path(__file__).parent
CORE_INCLUDE = "envs/core/native"


def native_extensions() -> list[Pybind11Extension]:
    """One extension per ``envs/<folder>/native`` folder with C++ sources."""
    extensions = []
    for folder in sorted((HERE / "envs").glob("*/native")):
        sources = sorted(str(p.relative_to(HERE)) for p in folder.glob("*.cpp"))
        if not sources:
            continue
        headers = sorted(str(p.relative_to(HERE)) for p in folder.glob("*.hpp"))
        extensions.append(
            Pybind11Extension(
                f"flockgym.envs.{folder.parent.name}._native",
                sources,
                include_dirs=[CORE_INCLUDE, str(folder.relative_to(HERE))],
                depends=[*headers, *(str(p) for p in Path(CORE_INCLUDE).glob("*.hpp"))],
                cxx_std=17,
                optional=True,
            )
        )
    return extensions


setup(ext_modules=native_extensions(), cmdclass={"build_ext": build_ext})
