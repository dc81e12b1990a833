"""The reconstructed box (envs/arena/arena.yaml) and its loader: the counts of
every kind of card, every name and number the rulebook gives, the board's
shape (connected, every space reachable, the two entrances exactly as the
rulebook describes them), and clear errors for a malformed file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from flockgym.envs.arena import data
from flockgym.envs.arena.data import BoxError, default_box, load_box, parse_box

BOX = default_box()
SHIPPED = data.DEFAULT_PATH.read_text()


def raw() -> dict:
    return yaml.safe_load(SHIPPED)


def box_with(change) -> str:
    """The shipped file with ``change(dict)`` applied, as YAML text."""
    d = raw()
    change(d)
    return yaml.safe_dump(d, sort_keys=False)


# ---- counts of every kind ------------------------------------------------------------


def test_card_counts_are_the_rulebooks():
    assert BOX.num_maneuvers == 30
    assert BOX.num_worlds == 20
    assert len(BOX.gyms) == 8 and BOX.gyms_used == 4
    assert BOX.gym_power_cards * len(BOX.gyms) == 16
    assert len(BOX.medal_cards) == 12
    assert len(BOX.medal_bonus_cards) == 8
    assert BOX.num_astrobirdz == 10
    invazorz = [c for c in BOX.characters if c.invazorz]
    assert len(invazorz) == 8
    races = sorted(c.detail for c in invazorz)
    assert races == ["Insecta"] * 2 + ["Jellyfish"] * 2 + ["Mecha"] * 2 + ["Raptor"] * 2
    # ten Berzerkerbirdz cards: one per Astrobirdz, same name, its own bonus
    assert all(c.berzerkerbirdz_bonus is not None for c in BOX.characters if not c.invazorz)
    assert BOX.trophies == 40
    assert BOX.medal_supply == (6, 6, 6)
    assert BOX.permanently_defended_cards == 6


def test_two_gyms_turn_astrobirdz_into_berzerkerbirdz():
    transform = [g.name for g in BOX.gyms if g.power.kind == "transform"]
    assert len(transform) == 2


def test_medal_cards_give_a_trophy_now_or_an_extra_die_later():
    trophy = [m for m in BOX.medal_cards if m.trophy]
    dice = [m for m in BOX.medal_cards if m.extra_die]
    assert len(trophy) + len(dice) == 12 and trophy and dice
    assert all(not (m.trophy and m.extra_die) for m in BOX.medal_cards)


def test_every_character_has_one_bonus():
    for c in BOX.characters:
        assert c.bonus.kind in data.BONUS_KINDS and c.bonus.amount >= 1


# ---- every name and number the rulebook gives -------------------------------------


def card(name: str):
    return BOX.cards[BOX.card_named[name.lower()]]


def test_spacefreeze_cryo_blast_snowboardzerka_needs_13_challenge_15():
    c = card("Spacefreeze Cryo Blast")
    assert (c.kind, c.character, c.number, c.challenge) == (
        "maneuver", "Snowboardzerka", 13, 15,
    )  # fmt: skip


def test_challenge_number_is_favourite_plus_two_for_every_maneuver():
    for c in BOX.cards[: BOX.num_maneuvers]:
        assert c.challenge == c.number + 2


def test_hoverboardzerka_needs_a_10_on_its_homeworld_and_favourite_trick():
    homeworlds = [c for c in BOX.cards if c.is_world and c.character == "Hoverboardzerka"]
    tricks = [c for c in BOX.cards if not c.is_world and c.character == "Hoverboardzerka"]
    assert 10 in [c.number for c in homeworlds]
    assert 10 in [c.number for c in tricks]


def test_rulebook_character_names_are_in_the_box():
    names = {c.name for c in BOX.characters}
    assert {"Spaceboardzerka", "Snowboardzerka", "Hoverboardzerka"} <= names
    graptarg = BOX.characters[BOX.character_named["mecha-invazorz destructarian graptarg"]]
    assert graptarg.invazorz and graptarg.detail == "Mecha"


def test_every_card_names_a_character_of_the_box():
    names = {c.name for c in BOX.characters}
    assert all(c.character in names for c in BOX.cards)


def test_setup_numbers():
    assert (BOX.start_trophies, BOX.gym_trophies, BOX.challenge_dice) == (2, 5, 4)
    assert (BOX.trophy_value, BOX.maneuvers_for_worlds, BOX.medal_target) == (2, 4, 6)
    assert [(m.medal, m.maneuvers, m.below, m.reads) for m in BOX.medal_levels] == [
        ("bronze", 3, 1, 2), ("silver", 5, 2, 3), ("gold", 7, 3, 4),
    ]  # fmt: skip
    assert BOX.movement_die == (6, 8, 6) and BOX.challenge_die == (6, 8, 6)
    assert BOX.slide_die == (6, 8, 8) and BOX.first_turn_die == 6
    assert (BOX.win_worlds, BOX.win_defended, BOX.transform_on) == (5, 3, 6)


# ---- the board ----------------------------------------------------------------------


def test_board_has_fewer_spaces_than_cards():
    assert len(BOX.maneuver_spaces) < BOX.num_maneuvers
    assert len(BOX.world_spaces) < BOX.num_worlds
    assert (len(BOX.maneuver_spaces), len(BOX.world_spaces)) == (20, 12)
    assert (BOX.num_maneuvers, BOX.num_worlds) == (30, 20)


def test_outer_loop_with_a_gym_in_each_corner():
    outside = [s for s in BOX.spaces if s.region == "outside"]
    loop, at = [], BOX.corners[0]
    while True:
        loop.append(at)
        at = next(v for v in BOX.spaces[at].next if BOX.spaces[v].region == "outside")
        if at == BOX.corners[0]:
            break
    assert sorted(loop) == sorted(s.id for s in outside)
    assert len(BOX.corners) == 4
    for corner in BOX.corners:
        r, c = BOX.spaces[corner].at
        assert r in (0, 8) and c in (0, 8)


def test_four_portals_in_a_row_and_the_spaces_the_tables_name():
    assert BOX.portals == (2, 3, 4, 5)
    for a, b in zip(BOX.portals, BOX.portals[1:], strict=False):
        assert BOX.spaces[a].next == (b,)
    assert BOX.spaces[BOX.portal_front].next == (BOX.portals[0],)
    assert BOX.portal_exit_outside in BOX.spaces[BOX.portals[-1]].next
    assert BOX.spaces[BOX.portal_exit_inside].region == "inside"


def test_nebula_slide_has_two_ends():
    a, b = BOX.slide_ends
    assert BOX.spaces[a].kind == BOX.spaces[b].kind == "slide" and a != b


def test_entrances_are_spaces_1_to_4_exactly_as_described():
    entrances = BOX.entrance_spaces()
    assert sorted(entrances) == ["A", "B"]
    for steps in entrances.values():
        one, two, three, four = (steps[k] for k in (1, 2, 3, 4))
        outer_next = next(v for v in BOX.spaces[one].next if BOX.spaces[v].region == "outside")
        # 1: toward the middle to 2, or on along the outside
        assert set(BOX.spaces[one].next) == {two, outer_next}
        # 2: to 1 or to 4
        assert set(BOX.spaces[two].next) == {one, four}
        # 3: to 4 or to 2
        assert set(BOX.spaces[three].next) == {four, two}
        # 4: only around the corner to the next space of the middle
        (after,) = BOX.spaces[four].next
        assert BOX.spaces[after].region == "inside" and BOX.spaces[after].kind == "world"


def test_only_entrances_fork():
    forks = [s.id for s in BOX.spaces if len(s.next) > 1]
    assert sorted(forks) == sorted(
        s for steps in BOX.entrance_spaces().values() for k, s in steps.items() if k != 4
    )


def test_every_space_reachable_from_every_space():
    for start in range(BOX.num_spaces):
        seen, todo = {start}, [start]
        while todo:
            for v in BOX.spaces[todo.pop()].next:
                if v not in seen:
                    seen.add(v)
                    todo.append(v)
        assert len(seen) == BOX.num_spaces, start


def test_inner_loop_holds_every_world_space():
    inner = [s.id for s in BOX.spaces if s.region == "inside" and s.step != 2]
    at, loop = inner[0], []
    while True:
        loop.append(at)
        at = next(v for v in BOX.spaces[at].next if BOX.spaces[v].step != 2)
        if at == inner[0]:
            break
    assert sorted(loop) == sorted(inner)
    assert set(BOX.world_spaces) <= set(loop)


# ---- loading other files and malformed ones ----------------------------------------


def test_load_another_file_gives_the_same_box(tmp_path: Path):
    copy = tmp_path / "box.yaml"
    copy.write_text(SHIPPED)
    other = load_box(copy)
    assert other.cards == BOX.cards and other.spaces == BOX.spaces


def test_missing_file_is_an_error(tmp_path: Path):
    with pytest.raises(BoxError, match="cannot read the file"):
        load_box(tmp_path / "nope.yaml")


def test_not_yaml_is_an_error():
    with pytest.raises(BoxError, match="not valid YAML"):
        parse_box("a: [1, 2", "bad.yaml")


def test_yaml_tags_that_would_run_code_are_refused():
    with pytest.raises(BoxError, match="not valid YAML"):
        parse_box("!!python/object/apply:os.system ['true']", "evil.yaml")


def set_in(path, value):
    def change(d):
        target = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


MALFORMED = [
    (set_in(["maneuvers", 2, "number"], "x"),
     r"maneuvers\[2\] \(Polar Vortex Spin\): field 'number' must be an integer"),
    (set_in(["maneuvers", 0, "favourite"], "Nobody"),
     r"maneuvers\[0\] \(Spacefreeze Cryo Blast\): field 'favourite' names 'Nobody'"),
    (lambda d: d["worlds"][3].pop("homeworld"),
     r"worlds\[3\] \(Frostmere\): field 'homeworld' is missing"),
    (set_in(["worlds", 1, "bonus"], {"form": "dragon", "amount": 1}),
     r"worlds\[1\] \(Levitas Prime\).bonus: field 'form' must be one of"),
    (set_in(["gyms", 2, "power"], {"kind": "bonus", "roll": "flying", "amount": 4}),
     r"gyms\[2\] \(Halfpipe Hall\).power: field 'roll' must be one of"),
    (set_in(["medal_cards", 0, "extra_die"], ["movement"]),
     r"medal_cards\[0\] \(Crowd Favourite\): give exactly one of the fields"),
    (set_in(["characters", "astrobirdz", 1, "bonus"], {"kind": "luck", "amount": 1}),
     r"characters.astrobirdz\[1\] \(Hoverboardzerka\).bonus: field 'kind' must be one of"),
    (set_in(["board", "spaces", 7, "next"], [99]),
     r"board.spaces\[7\]: field 'next' must list 1 or more other space ids"),
    (set_in(["board", "spaces", 3, "kind"], "lava"),
     r"board.spaces\[3\]: field 'kind' must be one of"),
    (set_in(["board", "spaces", 32, "next"], [6]),
     r"board.spaces\[32\]: entrance A space 2 must lead to exactly \[6, 34\]"),
    (set_in(["board", "spaces", 49, "next"], [34]),
     r"board.spaces\[49\]: entrance A space 3 must lead to exactly \[32, 34\]"),
    (set_in(["board", "spaces", 6, "next"], [7]),
     r"board.spaces\[6\]: entrance A space 1 must lead to exactly \[7, 32\]"),
    (set_in(["board", "portal_front"], 0),
     r"board: field 'portal_front' must be 1"),
    (set_in(["setup", "trophies"], 10),
     r"setup: field 'trophies' \(10\) must cover"),
    (lambda d: d["worlds"].__delitem__(slice(12, None)),
     r"board: 12 world spaces need more world cards than that, the box has 12"),
    (set_in(["board", "spaces", 31, "next"], [30]),
     r"board"),
    (set_in(["rules", "medal_levels", 0, "medal"], "gold"),
     r"rules.medal_levels\[0\]: field 'medal' must be bronze here"),
    (set_in(["maneuvers", 1, "name"], "Spacefreeze Cryo Blast"),
     r"maneuvers and worlds: the name 'Spacefreeze Cryo Blast' is used twice"),
    (set_in(["setup", "surprise"], 1), r"setup: unknown field\(s\) surprise"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "message"), MALFORMED)
def test_malformed_box_names_the_entry_and_the_field(change, message):
    with pytest.raises(BoxError, match=message):
        parse_box(box_with(change), "box.yaml")


def test_box_error_names_the_file():
    with pytest.raises(BoxError, match=r"^arena box box.yaml: "):
        parse_box(box_with(set_in(["maneuvers", 2, "number"], -1)), "box.yaml")


def test_the_box_and_the_config_ship_with_the_package(tmp_path: Path, monkeypatch) -> None:
    """The shipped box is package data of ``flockgym.envs.arena`` (read from the
    package, not from a checkout), and ``arena/ppo`` is found from any folder."""
    import importlib.resources

    from flockgym.bots.shipped import resolve_config

    shipped = importlib.resources.files("flockgym.envs.arena") / "arena.yaml"
    assert shipped.is_file()
    assert parse_box(shipped.read_text(encoding="utf-8"), "arena.yaml") == default_box()
    monkeypatch.chdir(tmp_path)
    config = resolve_config("arena/ppo")
    assert config.parent.name == "arena" and config.is_file()
    assert yaml.safe_load(config.read_text())["env"]["id"] == "arena_v0"
