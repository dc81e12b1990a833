"""What the special cards of each game do, in a few words: ``?`` in terminal
play and the page's help both show it.

Each entry is ``(card, what it does)``. Astrobirdz's birds come from its own
data table (their printed powers); the turn's trump rule is always on the
table itself. An env without an entry gets a pointer to its rules page.
"""

from __future__ import annotations

from collections.abc import Callable

Help = list[tuple[str, str]]


def asrus_help() -> Help:
    return [
        ("number cards", "1 Sun .. 15 Moon; distance = |card - destination|; the closest "
         "distance no one else played wins, and everyone else pays the winner that distance"),
        ("C Close (Mercury)", "your distance counts 0.5 less: it breaks a tie in your favour"),
        ("B Blackhole (Venus)", "whoever wins, this turn's payments go to the deposit instead"),
        ("D Double (Mars)", "if you win, everyone pays you double (a 1 or 15 doubles again)"),
        ("M Majority (Jupiter)", "on the number played more often than any other, you win "
         "outright; two Majorities on it cancel"),
        ("R Retrograde (Saturn)", "the farthest unique distance wins this turn instead of the "
         "closest"),
        ("J joker (variant)", "declared as any special above, or X Explosion (nobody wins, "
         "nothing moves) or T Triple (if you win, you are paid x3)"),
        ("draw and deposit", "with no winner every player deposits the smallest non-zero "
         "distance; the next winner takes the deposit, what is left at the round's end goes "
         "to a lottery"),
    ]  # fmt: skip


def astrobirdz_help() -> Help:
    from flockgym.envs.astrobirdz import data

    birds = [
        (f"{bird.number} {bird.name} ({data.COLOUR_NAMES[bird.colour]})", bird.power)
        for bird in data.BERZERKERBIRDZ
    ]
    return [
        ("trump card", "the turned-up card: its colour is trump for the turn and its rule "
         "(shown on the table) holds until the turn ends"),
        ("following", "play the led colour if you can; the highest trump wins the trick, "
         "otherwise the highest card of the led colour"),
        ("AstroBoard", "goes to the highest guess; 5 more points with a correct highest guess; "
         "missing your guess by exactly one, you may take or give one trick to make both "
         "guesses exact"),
        ("scoring", "1 a trick, 5 for an exact guess, 5 for the highest correct guess, the "
         "bird's points, minus 1 per trick the guess was off"),
        *birds,
    ]  # fmt: skip


GAME_HELP: dict[str, Callable[[], Help]] = {
    "asrus_v0": asrus_help,
    "astrobirdz_v0": astrobirdz_help,
}


def special_cards_help(env_id: str) -> Help:
    """The special cards of ``env_id`` and what they do (a pointer for envs without notes)."""
    if env_id in GAME_HELP:
        return GAME_HELP[env_id]()
    game = env_id.rsplit("_", 1)[0]
    return [("rules", f"see docs/rules/{game}.md and the env's docstring")]


def help_text(env_id: str) -> str:
    """The help as lines of text for a terminal."""
    return "\n".join(f"  {card}: {text}" for card, text in special_cards_help(env_id))
