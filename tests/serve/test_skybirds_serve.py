"""Skybirds at the server: which moves the log shows to the other seats, and the
page's help on Garros, Medallions and every Aerodrome token."""

from __future__ import annotations

from flockgym.envs import make
from flockgym.envs.skybirds import data
from flockgym.play.cards_help import special_cards_help
from flockgym.play.disclosure import is_public


def test_only_the_aces_given_in_a_swap_are_hidden_from_the_log():
    raw = make("skybirds_v0").unwrapped
    raw.reset(seed=0)
    for text in ("5 5", "G 4", "G", "pass", "use B3", "add 5", "done", "wild 7", "declare 5",
                 "target player_1", "take C1", "+1VP", "trade 2 for A2"):  # fmt: skip
        assert is_public(raw, raw.string_to_action("player_0", text)), text
    assert not is_public(raw, raw.string_to_action("player_0", "give 5"))


def test_the_help_explains_garros_medallions_and_every_token():
    helped = dict(special_cards_help("skybirds_v0"))
    assert "G Roland Garros" in helped and "9 and 10" in helped
    for row in data.DEFAULT_AERODROME_ROWS:
        entry = next(text for card, text in helped.items() if card.startswith(f"{row['token']} "))
        assert entry != "no bonus", row["token"]
