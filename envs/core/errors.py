"""Errors shared by every flockgym environment.

They subclass ``ValueError`` so that code written against plain PettingZoo
(which raises ``ValueError``/``AssertionError`` for bad input) still catches them.
"""

from __future__ import annotations


class FlockgymError(ValueError):
    """Base class of every error flockgym raises on bad input."""


class IllegalActionError(FlockgymError):
    """An agent chose an action that the rules forbid at this point.

    The message names the agent, the action (number and string) and every legal
    action as a string, so that a person or a log reader can see what went wrong.
    """

    def __init__(self, agent: str, action: object, action_text: str, legal: list[str]):
        self.agent = agent
        self.action = action
        self.legal = list(legal)
        shown = ", ".join(legal) if legal else "(none: this agent is not to act)"
        super().__init__(
            f"illegal action {action!r} ({action_text}) for {agent}; legal actions: {shown}"
        )


class OptionError(FlockgymError):
    """An env option is unknown, of the wrong type or out of range."""


class OptionFileError(OptionError):
    """A file named by an option (``Option.reads_file``) is refused or unreadable.

    The message names the file as the caller gave it and the problem; it never
    quotes the file's content or a resolved absolute path."""


class StateDictError(FlockgymError):
    """A dict given to ``load_state_dict`` is not a state this env can restore."""


class DieNeeded(Exception):
    """A step stopped at a die whose face the caller feeds and has not given
    yet (a compiled engine's dice from outside: the OpenSpiel bridge's chance
    nodes). Not a ``ValueError``: nothing was wrong with the action.

    ``seat`` rolls a d``sides`` for ``purpose`` (the Python engine's words);
    ``too_many_sides`` is true when a face was there but the die has more
    faces than the caller allowed."""

    def __init__(self, seat: int, sides: int, purpose: str, too_many_sides: bool = False) -> None:
        super().__init__(f"player_{seat} rolls a d{sides} ({purpose})")
        self.seat, self.sides, self.purpose = seat, sides, purpose
        self.too_many_sides = too_many_sides
