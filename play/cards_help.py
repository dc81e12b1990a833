"""What the special cards of each game do, in a few words: ``?`` in terminal
play and the page's help both show it.

Each entry is ``(card, what it does)``. Astrobirdz's birds come from its own
data table (their printed powers); the turn's trump rule is always on the
table itself. Skybirds lists the shipped Aerodrome's tokens from its table,
the Arena the shipped box's gyms and medal cards (an Aerodrome or box given by
option is on the table itself: each token's bonus, each card's number). An
env without an entry gets a pointer to its rules page.
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
    "medallion": "one more Medallion on an Ace of the Squadron",
    "follow_equal": "follow with a Squadron equal to the one on the table",
    "swap_one": "before the Campaign: give an Ace of your choice to an opponent, take one "
    "of theirs at random",
    "run": "play consecutive values as a Squadron (worth its highest; never with Garros)",
    "tiebreaker": "no bonus: claiming it takes the largest fractional VP token left",
    "wild": "one Ace of the Squadron is wild: declare its value",
    "two_medallions": "two more Medallions on an Ace of the Squadron",
    "unmatched": "two or three unmatched Aces as a Squadron of that size (worth the lowest)",
    "swap_two": "before the Campaign: give two Aces of your choice to an opponent, take two "
    "of theirs at random",
    "size_change": "the Squadron may be one Ace larger or smaller than the Squadron Size",
    "armistice": "taking it ends the Great War after this Dogfight",
    "none": "no bonus, only its VP",
}
"""Each Aerodrome bonus in a few words (the table's ``bonus`` column)."""


def skybirds_help() -> Help:
    from flockgym.envs.skybirds import data

    tokens = [
        (
            f"{t.name} ({t.vp_front}/{t.vp_back} VP, ribbon "
            f"{'-'.join(str(p) for p in range(1, t.ribbon + 1))})",
            SKYBIRDS_BONUSES.get(t.bonus, t.bonus),
        )
        for t in data.AERODROME
    ]
    return [
        ("Squadron", "1-6 equal Aces; the others follow with the same size and more Medallions, "
         "or as many and a higher value, or pass; when all others passed, its player leads"),
        ("9 and 10", "carry a Medallion each: a single Ace with a Medallion may be played "
         "whatever the Squadron Size, and more Medallions beat a higher value"),
        ("G Roland Garros", "must start the Campaign: alone he wins the Dogfight at once, with a "
         "set he takes its value"),
        ("going out", "the first players out take a token of their Aerodrome (ribbon: the "
         "places allowed; a token needs one of the tokens before it) or a +1VP token"),
        ("tokens", "each bonus may be used twice from the next Campaign: the first use flips "
         "it (back VP), the second returns it to the Aerodrome"),
        ("trading", "after a Campaign: 2, 3 or 4 +1VP tokens buy a 1-2-3, 1-2 or 1 token"),
        *tokens,
    ]  # fmt: skip


ARENA_POWERS = {
    "transform": "an Astrobirdz becomes a Berzerkerbirdz (before a roll)",
    "gold_reading": "the dice of one challenge or defence read as with a gold medal",
    "extra_die": "one more die on your next challenge roll",
}


def arena_power_text(power: dict[str, object]) -> str:
    kind = power["kind"]
    if kind == "bonus":
        return f"+{power['amount']} to one {power['roll']} roll"
    if kind == "trophies":
        return f"take {power['amount']} trophies from the supply"
    return ARENA_POWERS.get(str(kind), str(kind))


def arena_help() -> Help:
    from flockgym.envs.arena.observer import box_tables

    tables = box_tables(None)
    rules = tables["rules"]
    medals = ", ".join(
        f"{m['medal']} ({m['maneuvers']} maneuvers): a die of 1"
        f"{'' if m['below'] == 1 else '-' + str(m['below'])} reads {m['reads']}"
        for m in rules["medal_levels"]
    )
    gyms = [
        (f"{name} ({gym['colour']} gym)", arena_power_text(gym["power"]))
        for name, gym in tables["gyms"].items()
    ]
    medal_cards = [
        (name, f"{card['trophy']} trophy at once" if card["trophy"]
         else f"an extra die for a {' or '.join(card['extra_die'])} roll")
        for name, card in tables["medal_cards"].items()
    ]  # fmt: skip
    return [
        ("winning", f"holding {rules['win_worlds']} worlds, or {rules['win_defended']} worlds "
         "permanently defended, wins at once; otherwise the most worlds after max_rounds"),
        ("trophies", f"spend them for +{rules['trophy_value']} each on a roll; each gym passed "
         "gives one while it has any"),
        ("challenges", f"{rules['challenge_dice']} dice against the card's challenge number; "
         f"worlds need {rules['maneuvers_for_worlds']} maneuver cards; a medal card needs a "
         f"die of {rules['medal_target']}; a player on your space: both roll (higher wins), "
         "or their card's number for your homeworld or favourite trick"),
        ("medals", medals),
        ("Nebula Slide", "the two slide ends are joined by the wormhole: go through, come out "
         "at the other end and roll on the slide table"),
        ("AstroPortal", "a move ending on a portal space: a d8 picks the encounter table, a "
         "d6 its row"),
        *gyms,
        *medal_cards,
    ]  # fmt: skip


GAME_HELP: dict[str, Callable[[], Help]] = {
    "asrus_v0": asrus_help,
    "astrobirdz_v0": astrobirdz_help,
    "skybirds_v0": skybirds_help,
    "arena_v0": arena_help,
}


def special_cards_help(env_id: str) -> Help:
    """The special cards of ``env_id`` and what they do (a pointer for envs without notes)."""
    if env_id in GAME_HELP:
        return GAME_HELP[env_id]()
    game = env_id.rsplit("_", 1)[0]
    return [("rules", f"see docs/rules/{game}.md and the env's docstring")]


HOW_TO_PLAY = "how_to_play.md"
"""A game's short rules for newcomers, package data in its own folder (``envs/<game>/``)."""


def how_to_play(env_id: str) -> str:
    """The how-to-play page (markdown) of a registered env, read from its game's package.

    The env id is looked up in the registry (an unknown id is an ``OptionError``
    naming the registered ones) and the file is found from the package of the
    env's class, never from a path given by a caller; so a request can only ever
    read one of these pages. An env whose game has no page gets a pointer."""
    from importlib.resources import files

    from flockgym.envs import env_module

    package = env_module(env_id).raw_env.__module__.rpartition(".")[0]
    page = files(package).joinpath(HOW_TO_PLAY)
    if page.is_file():
        return page.read_text(encoding="utf-8")
    game = env_id.rsplit("_", 1)[0]
    return (
        f"# {env_id}\n\nThis game has no how-to-play page yet: its rules are in its "
        f"env's docstring and on the rules page `docs/rules/{game}.md`.\n"
    )


def help_text(env_id: str) -> str:
    """The help as lines of text for a terminal."""
    return "\n".join(f"  {card}: {text}" for card, text in special_cards_help(env_id))
