"""An Arena game's parameters: :class:`ArenaConfig` (the env options, resolved
and frozen) and the values each option allows.

Below every rules module: the rules chapters, the saved-state reader
(:mod:`.state`) and the engine (:mod:`.rules`) all read a config, and it reads
only the box (:mod:`.data`).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from ..core.validate import short_repr
from . import data
from .data import Box

WORLD_CHALLENGES = ("offset", "printed")
DARK_MATTER_MODES = ("two", "medals")
NOVA_INVAZORZ_MODES = ("turn_back", "become")
FIFTH_WORLD_MODES = ("held", "won")


@dataclass(frozen=True)
class ArenaConfig:
    """Frozen parameters of one game (the env options, resolved)."""

    num_players: int = 4
    max_rounds: int = 40
    """Full rounds before the time victory (the rulebook's two hours)."""
    world_challenge: str = "offset"
    """A world's challenge number on the board: its number + the box's offset
    (2, as for maneuvers; ruling) or 'printed': the number itself."""
    dark_matter: str = "two"
    """'two': dark-matter dice read 2 whatever medals say (ruling); 'medals':
    a medal still reads that 2 as a rolled 2."""
    nova_invazorz: str = "turn_back"
    """Nova Debris Field 1-2 for an Invazorz: 'turn_back' (it stays an Invazorz
    and may turn one Berzerkerbirdz back; ruling) or 'become' (read literally,
    it "isn't a Berzerkerbirdz" and becomes one of its choice)."""
    fifth_world: str = "held"
    """The five-worlds victory counts worlds 'held' now (ruling) or worlds 'won'
    over the game (every world gained, kept or not)."""
    data: str | None = None
    """Path of the box file; None: the shipped ``arena.yaml``."""

    def check(self) -> None:
        """Raise ``ValueError`` naming what is allowed for an impossible parameter."""
        if (
            isinstance(self.num_players, bool)
            or not isinstance(self.num_players, int)
            or self.num_players not in range(2, 7)
        ):
            raise ValueError(
                f"num_players={short_repr(self.num_players)} is not allowed; allowed: 2..6"
            )
        if isinstance(self.max_rounds, bool) or not isinstance(self.max_rounds, int):
            raise ValueError(f"max_rounds={short_repr(self.max_rounds)} must be an integer >= 1")
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds={self.max_rounds} must be an integer >= 1")
        if self.world_challenge not in WORLD_CHALLENGES:
            raise ValueError(
                f"world_challenge={short_repr(self.world_challenge)} is not allowed; allowed: "
                f"{', '.join(WORLD_CHALLENGES)}"
            )
        for name, allowed in (
            ("dark_matter", DARK_MATTER_MODES),
            ("nova_invazorz", NOVA_INVAZORZ_MODES),
            ("fifth_world", FIFTH_WORLD_MODES),
        ):
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(
                    f"{name}={short_repr(value)} is not allowed; allowed: {', '.join(allowed)}"
                )

    @functools.cached_property
    def box(self) -> Box:
        """The box of ``data``, read and checked once per config: a game's box
        does not change under it when the file is edited."""
        return data.load_box(self.data)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
