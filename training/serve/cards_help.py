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


SKYBIRDS_BONUSES = {
    "medallion": "add one Medallion to your Squadron",
    "follow_equal": "follow with a Squadron equal to the one on the table",
    "swap_one": "before a Campaign: give an Ace of your choice to an opponent, take one at random",
    "run": "play consecutive values as a Squadron (worth the highest; never with Garros)",
    "tiebreaker": "no bonus; claiming it takes the largest fractional VP token left",
    "wild": "one Ace of your Squadron is wild: declare its value",
    "two_medallions": "add two Medallions to your Squadron",
    "unmatched": "two or three unmatched Aces as a Squadron (worth the lowest)",
    "swap_two": "before a Campaign: swap two Aces of your choice for two random Aces of an "
    "opponent",
    "size_change": "your Squadron may be one Ace larger or smaller than the Squadron Size",
    "armistice": "taking it ends the Great War after this Dogfight",
}


def skybirds_help() -> Help:
    from flockgym.envs.skybirds import data

    tokens = [
        (f"{row['token']} (ribbon {row['ribbon']}, {row['vp_front']}/{row['vp_back']} VP)",
         SKYBIRDS_BONUSES.get(row["bonus"], "no bonus"))
        for row in data.DEFAULT_AERODROME_ROWS
    ]  # fmt: skip
    return [
        ("G Roland Garros", "must start the Campaign: alone he wins the Dogfight at once, with "
         "a set he takes its value (G 4: size 2, value 4)"),
        ("9 and 10", "carry a Medallion: played alone they beat any Squadron with fewer "
         "Medallions, whatever its size"),
        ("Dogfight", "follow with as many Aces of a higher value, or more Medallions; pass and "
         "come back later; the last to play leads the next"),
        ("tokens", "taken by going out (by place and prerequisites); each bonus can be used "
         "twice: flipped (-1 VP), then back on the Aerodrome"),
        *tokens,
    ]  # fmt: skip


GAME_HELP: dict[str, Callable[[], Help]] = {
    "asrus_v0": asrus_help,
    "astrobirdz_v0": astrobirdz_help,
    "skybirds_v0": skybirds_help,
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
