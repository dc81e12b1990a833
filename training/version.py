"""flockgym's version (``flockgym.__version__``), for modules of this package."""

from __future__ import annotations

from flockgym import __version__

__all__ = ["__version__"]
