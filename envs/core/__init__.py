"""What every flockgym game shares: errors, options, seeding, the AEC base,
rewards, bots and the play loop."""

from .aec import FlockAECEnv, agent_name
from .bots import Bot, RandomBot
from .errors import FlockgymError, IllegalActionError, OptionError, StateDictError
from .game import NO_PLAYER, GameEngine
from .options import Option, int_range
from .play import GameRecord, play_game

__all__ = [
    "NO_PLAYER",
    "Bot",
    "FlockAECEnv",
    "FlockgymError",
    "GameEngine",
    "GameRecord",
    "IllegalActionError",
    "Option",
    "OptionError",
    "RandomBot",
    "StateDictError",
    "agent_name",
    "int_range",
    "play_game",
]
