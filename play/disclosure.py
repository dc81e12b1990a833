"""Which moves of the other seats a seat may read in the move log.

The view of a seat (``env.view(agent)``) is the env's own word on what that
seat may see; the move log is the server's, so it must not say more. A move
is shown with its action string to the seat that made it, and to the others
only where the game makes that move in the open. Anything not listed here is
shown as "moved" without its string: a game registered tomorrow leaks nothing
through the log on the day it appears.
"""

from __future__ import annotations

from collections.abc import Callable


def _never(text: str) -> bool:
    return False


def _astrobirdz(text: str) -> bool:
    # Cards played, guesses, trump colours, the players named by Nitro, Surfette
    # and the AstroBoard, and declines are made in the open; the cards chosen to
    # discard, pass or trade ("choose R4") are not.
    return not text.startswith("choose ")


def _always(text: str) -> bool:
    return True


def _skybirds(text: str) -> bool:
    # Squadrons ("5 5", "G 4"), passes, tokens used, taken and traded, +1VP, the
    # steps of a Squadron built with tokens ("add 5", "wild 7", "declare 5",
    # "done": its Aces all land on the table) and a Pre-Campaign swap's opponent
    # ("target player_2": made at the table, it shows no card) are in the open;
    # the Aces given in the swap ("give 5") show only in the two hands involved.
    return not text.startswith("give ")


PUBLIC_MOVES: dict[str, Callable[[str], bool]] = {
    # Every commitment is face down until the turn resolves; the resolved turn
    # (every play) is in each seat's view as ``last_turn``.
    "asrus_v0": _never,
    "astrobirdz_v0": _astrobirdz,
    "skybirds_v0": _skybirds,
    # Everything on the Arena's board is public (positions, cards held, trophies,
    # medals, gym powers, medal cards held, every roll); only the medal stack's
    # order is not, and no move names it.
    "arena_v0": _always,
}


def is_public(env_id: str, text: str) -> bool:
    """True if a move with this string is seen by every seat when it is made."""
    return PUBLIC_MOVES.get(env_id, _never)(text)
