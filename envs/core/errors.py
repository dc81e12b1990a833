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
