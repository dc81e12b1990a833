"""The decision phases of an Arena turn and where cards can be, shared by the
rules modules (:mod:`.rules`, :mod:`.movement`, :mod:`.encounters`,
:mod:`.challenges`) and the observer."""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    """What the seat to act decides (``OVER`` once the game has ended)."""

    CORNER = 0
    """choose a starting corner (setup)"""
    PRE_ROLL = 1
    """before the movement roll: gym powers, a movement medal die, then roll"""
    MOVE_SPEND = 2
    """after the movement roll: trophies (+2 each) or a movement gym power"""
    MOVE = 3
    """moving: the next space at a fork, stop to challenge, the Nebula Slide"""
    ACTION = 4
    """the one action after moving (or none)"""
    CHALLENGE_SPEND = 5
    """the challenger, before the challenge roll"""
    DEFEND_SPEND = 6
    """the defender of a standard challenge, before its roll"""
    PICK_CARD = 7
    PICK_SPACE = 8
    PICK_PLAYER = 9
    PICK_CHARACTER = 10
    """what a Nebula Slide or AstroPortal result asks for (see ``task``)"""
    GYM_CARD = 11
    """Nova Debris Field 5-6: take a gym power card here, or not"""
    WISH = 12
    """wish for a character (setup; hidden from the others until all have wished)"""
    OVER = 13


(CORNER, PRE_ROLL, MOVE_SPEND, MOVE, ACTION, CHALLENGE_SPEND, DEFEND_SPEND, PICK_CARD,
 PICK_SPACE, PICK_PLAYER, PICK_CHARACTER, GYM_CARD, WISH, OVER) = range(14)  # fmt: skip
"""The phases as plain ints, for the engine's hot paths (an IntEnum member
lookup costs several times an int comparison); ``Phase`` names them."""

PHASE_NAMES = ("corner", "pre_roll", "move_spend", "move", "action", "challenge_spend",
               "defend_spend", "pick_card", "pick_space", "pick_player", "pick_character",
               "gym_card", "wish", "over")  # fmt: skip
SPEND_PHASES = frozenset((PRE_ROLL, MOVE_SPEND, CHALLENGE_SPEND, DEFEND_SPEND))
PICK_PHASES = frozenset((PICK_CARD, PICK_SPACE, PICK_PLAYER, PICK_CHARACTER))

BOARD, BOX, DISCARD = -1, -2, -3
"""Where a maneuver or world card is when no player holds it: on a board
space, in the box (not dealt: the box has more cards than spaces), or
discarded (the Dangerous Asteroid Field's lost maneuver)."""
ON_BOARD, IN_STACK = -1, -2
"""Where a medal card is when no player holds it: on a board space, or in the
face-down medal stack beside the board."""
