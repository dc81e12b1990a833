"""The errors the ``flockgym`` command reports, importable without the training
extra (no torch, pydantic or YAML), so that the command line can catch them and
``--help`` and ``list`` answer at once."""

from __future__ import annotations

TRAIN_EXTRA = "train"
TRAIN_MODULES = frozenset(
    {
        "torch",
        "stable_baselines3",
        "sb3_contrib",
        "pydantic",
        "annotated_types",
        "tensorboard",
        "tqdm",
        "matplotlib",
    }
)
"""Top-level modules installed by the ``train`` extra (from a clone:
``pip install -c constraints.txt '.[train]'``)."""

CONSTRAINTS = {"rllib": "constraints-rllib.txt"}
"""The pin file an extra installs with, where it is not ``constraints.txt`` (the
``rllib`` extra pins an older gymnasium and gets a venv of its own)."""


def install_command(extra: str) -> str:
    """How to install ``extra`` from a clone of the repository, as the README says:
    flockgym is not on a package index, so ``pip install 'flockgym[...]'`` fails."""
    return f"pip install -c {CONSTRAINTS.get(extra, 'constraints.txt')} '.[{extra}]'"


class ConfigError(ValueError):
    """A config file, or a ``--set`` override, is not valid; the message says why."""


class BotSpecError(ValueError):
    """A bot spec string names nothing we can seat."""


class CheckpointError(ValueError):
    """A checkpoint cannot be read, or was trained for another env or shape."""


class RunError(ValueError):
    """A run folder cannot be created, resumed or plotted."""


class GameAbandoned(Exception):
    """The person quit, or the input ended, before the game was over."""


class MissingExtraError(ImportError):
    """A command needs a package of an optional extra that is not installed."""

    def __init__(self, module: str, what: str, extra: str = TRAIN_EXTRA) -> None:
        super().__init__(
            f"{what} needs the '{extra}' extra, and {module} is not installed; install it "
            f"from the flockgym clone with: {install_command(extra)}"
        )
        self.module = module
        self.extra = extra


def missing_extra_module(err: ModuleNotFoundError) -> str | None:
    """The top-level module of the ``train`` extra that ``err`` failed to import, if any."""
    name = (err.name or "").split(".")[0]
    return name if name in TRAIN_MODULES else None


def require_train_extra(what: str, modules: tuple[str, ...] = ("torch",)) -> None:
    """Raise :class:`MissingExtraError` unless every module in ``modules`` can be
    imported (checked without importing them: fast)."""
    from importlib.util import find_spec

    for module in modules:
        if find_spec(module) is None:
            raise MissingExtraError(module, what)
