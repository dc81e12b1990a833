"""Whole games played in a real browser: Debian's Chromium, headless, driven
through Playwright, clicking the page like a person (cards in the hand where
the move is a card, move buttons otherwise, the hand-over in hot seat, the
summary's buttons, the replay).

Chromium is found at ``/usr/bin/chromium`` (or ``FLOCKGYM_CHROMIUM``); without
it these tests fail naming the install command, unless
``FLOCKGYM_SKIP_BROWSER=1``. Screenshots of each table go to a temporary
folder, or to ``FLOCKGYM_SCREENSHOTS`` (``docs/img`` regenerates the docs').
"""

from __future__ import annotations

import json
import os
import random
import re
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect
from serve_helpers import small_options, write_checkpoint

from flockgym.envs import entry, list_envs
from flockgym.envs.skybirds import data
from flockgym.play import ServerConfig, create_app
from flockgym.play.cards_help import special_cards_help

CHROMIUM = Path(os.environ.get("FLOCKGYM_CHROMIUM", "/usr/bin/chromium"))
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
GAME_SECONDS = 90
BROWSER_OPTIONS: dict[str, dict[str, int]] = {
    "skybirds_v0": {"max_campaigns": 2},
    "arena_v0": {"max_rounds": 3},
}
"""Game options typed into the setup form on top of the small options, so that a
clicked game stays short: a Skybirds Great War plays two Campaigns (the second with
the tokens taken in the first), then the cap truncates it; the Arena three rounds
(enough choices for a person to click the board several times)."""
CLICKABLE = ", ".join(
    f"#table {what}"
    for what in (
        "button.card.playable",  # a card in the hand
        "button.token.playable",  # a Skybirds token on the seat's own Aerodrome
        "button.chip.playable",  # an Arena card, gym power or medal card
        "button.name-player",  # a player an effect names (an Arena effect, a Skybirds swap)
        ".space.playable",  # an Arena board space (go, place, start, challenge there)
    )
)
"""What a person clicks on the table itself, where the move is that thing."""
SHOT_AT = {"skybirds_v0": 12, "arena_v0": 3}
"""The click before which each table's screenshot is taken (a table with something on it)."""
LONG_RUN = "20261204-081500-maskable_ppo-seed12345-a-run-name-with-no-space-in-it-at-all"
"""A run folder name as long as a user's may be, with nowhere to break it."""
RULES_SENTENCE = {
    "asrus_v0": "A card on the destination (distance 0) never wins.",
    "astrobirdz_v0": "You must play the led colour if you can, otherwise any card.",
    "skybirds_v0": "A player who passed may play again when the turn comes back.",
    "arena_v0": "A turn is a move, then one action (or none).",
}
"""A sentence of each game's how-to-play page, as the Rules panel shows it."""


@pytest.fixture(scope="module")
def server(tmp_path_factory, models_dir):
    """The app on a free loopback port, served by uvicorn in a thread."""
    import uvicorn

    data = tmp_path_factory.mktemp("browser-games")
    long_names = tmp_path_factory.mktemp("catalogue-long") / "runs"
    for env_id in list_envs():  # a model per env whose id is long and unbreakable
        write_checkpoint(long_names / f"{env_id}-{LONG_RUN}" / "final.zip", env_id,
                         small_options(env_id))  # fmt: skip
        default = {"num_players": entry(env_id).default_players}  # and one at the default table
        write_checkpoint(long_names / f"{env_id}-default-{LONG_RUN}" / "final.zip", env_id, default)
    app = create_app(ServerConfig(data_dir=data, models=[models_dir, long_names]))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    runner = uvicorn.Server(config)
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not runner.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    runner.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        if os.environ.get("FLOCKGYM_SKIP_BROWSER") == "1":
            pytest.skip("FLOCKGYM_SKIP_BROWSER=1: browser tests skipped")
        pytest.fail(
            f"the browser tests need Debian's Chromium at {CHROMIUM}: install it with "
            f"`apt-get install -y chromium` (or set FLOCKGYM_CHROMIUM to its path; "
            f"FLOCKGYM_SKIP_BROWSER=1 skips these tests)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        yield context
        context.close()


@pytest.fixture
def page(browser):
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.errors = errors
    yield page
    page.close()
    assert not errors, errors


def shots_folder(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("FLOCKGYM_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_setup(
    page, server: str, env_id: str, seats: list[str], query: str = "fast", players: int = 0
) -> None:
    """The new-game form, filled in for a short game (``players``: instead of the few)."""
    page.goto(f"{server}/?{query}")
    page.wait_for_selector("body[data-ready='1']")
    page.click("nav button[data-go='setup']")
    page.select_option("#env", env_id)
    options = {**small_options(env_id), **BROWSER_OPTIONS.get(env_id, {})}
    if players:
        options["num_players"] = players
    page.select_option("#opt-num_players", str(options["num_players"]))
    rest = {k: v for k, v in options.items() if k != "num_players"}
    if rest:
        page.click("details.more summary")
    for name, value in rest.items():  # the short game's options, as a person sets them
        field = page.locator(f"#opt-{name}")
        if field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(json.dumps(value))
        else:
            field.fill(json.dumps(value))
    for index, seat in enumerate(seats):
        page.select_option(f"#seat-{index}", seat)
    page.fill("#seed", "11")


def click_through(
    page,
    rng: random.Random,
    shot: Path | None = None,
    shot_at: int = 3,
    stop_after: int | None = None,
) -> int:
    """Play the seats of this page until the summary shows (or ``stop_after``
    clicks); return the clicks (the screenshot ``shot`` is taken before click
    number ``shot_at``)."""
    clicks = 0
    deadline = time.monotonic() + GAME_SECONDS
    while not page.is_visible("#summary") and clicks != stop_after:
        assert time.monotonic() < deadline, "the game did not end in time"
        if page.is_visible("#take-seat"):
            page.click("#take-seat")
            continue
        # A choice is waiting for the person only with two or more moves (a
        # single one is played for them); then the page holds still until a click.
        if page.locator("#moves button.move:enabled").count() > 1:
            if shot is not None and clicks == shot_at:
                page.screenshot(path=str(shot), full_page=True)
                assert "[object" not in page.inner_text("#table")  # no value drawn as text
            cards = page.locator(CLICKABLE)
            moves = page.locator("#moves button.move:not(.dim):enabled")
            target = (
                cards.nth(rng.randrange(cards.count()))
                if cards.count() and rng.random() < 0.7
                else moves.nth(rng.randrange(max(1, moves.count())))
            )
            try:
                if rng.random() < 0.2 and moves.count():
                    key = moves.first.locator("kbd").inner_text(timeout=3000)
                    page.keyboard.press(key)  # the move's keyboard shortcut
                else:
                    target.click(timeout=3000)
                clicks += 1
            except PlaywrightTimeout:
                pass  # the page moved on (a bot's move) before the click: look again
        page.wait_for_timeout(40)
    return clicks


@pytest.mark.parametrize("env_id", list_envs())
def test_a_whole_game_by_clicking(page, server: str, env_id: str, tmp_path: Path):
    players = small_options(env_id)["num_players"]
    open_setup(page, server, env_id, ["human"] + ["bot:heuristic"] * (players - 1))
    page.click("#start")
    page.wait_for_selector("#table .view-table, #table .zone")
    shot = shots_folder(tmp_path) / f"play-{env_id.rsplit('_', 1)[0]}.png"
    clicks = click_through(page, random.Random(1), shot, SHOT_AT.get(env_id, 3))
    assert clicks > 0 and shot.exists()
    summary = page.inner_text("#summary")
    assert "deal seed 11" in summary and "saved as" in summary
    page.screenshot(path=str(shots_folder(tmp_path) / f"summary-{env_id.rsplit('_', 1)[0]}.png"))
    assert page.locator("#log li").count() > players
    page.click("#replay-this")
    page.wait_for_selector("#replay-position")
    assert page.evaluate(REPLAY_ICONS) == [True] * 5
    page.click("#replay-next")
    expect(page.locator("#replay-position")).to_contain_text("move 1 of")
    page.click("#replay-last")
    expect(page.locator("#replay-position")).to_contain_text("the end")
    if env_id in ("skybirds_v0", "arena_v0"):
        replay_every_frame(page, summary)


def replay_every_frame(page, summary: str) -> None:
    """Draw every view of the saved game (each frame, from every seat) with the
    game's drawn table, in the page: a drawing error fails the test, and no
    value may be drawn as ``[object ...]``."""
    name = re.search(r"saved as (\S+\.json)", summary).group(1)
    report = page.evaluate(DRAW_EVERY_FRAME, name)
    assert report["frames"] > 10 and not report["problems"], report


DRAW_EVERY_FRAME = """async (name) => {
  const get = async (path) => (await fetch(path)).json();
  const record = await get(`/api/saved/${name}`);
  const game = record.env.split("_")[0];
  const module = await import(`/static/games/${game}.js`);
  const { seatLabel } = await import("/static/dom.js");
  const count = record.moves.length;
  const frames = await Promise.all(
    Array.from({ length: count + 1 }, (_, k) => get(`/api/saved/${name}/frames/${k}`)));
  const problems = [];
  for (const frame of frames) {
    for (const [agent, view] of Object.entries(frame.views)) {
      const st = { game_id: `check:${name}`, env: record.env, seats: record.seats, agent,
        status: "running", move_number: frame.move_number, to_act: frame.to_act, view,
        legal: [], log: [], result: null };
      const ui = { pick: () => {}, select: () => {}, label: (a) => seatLabel(st, a),
        history: { data: {}, save: () => {} }, playing: false };
      const root = document.createElement("div");
      try {
        module.draw(root, st, ui);
        if (module.scoreSheet) module.scoreSheet(root, st, ui);
        const where = `${frame.move_number} ${agent}`;
        if (root.textContent.includes("[object")) problems.push(`${where}: [object`);
      } catch (err) {
        problems.push(`${frame.move_number} ${agent}: ${err}`);
      }
    }
  }
  return { frames: frames.length, problems: problems.slice(0, 5) };
}"""


def test_astrobirdz_hot_seat_at_phone_width_in_the_dark(browser, server: str, tmp_path):
    """Two people share the device (the page hands it over between their turns),
    in the dark colour scheme at a phone's width; then "new seed" starts again."""
    page = browser.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.emulate_media(color_scheme="dark")
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        open_setup(page, server, "astrobirdz_v0", ["human", "human"])
        page.click("#start")
        page.wait_for_selector("#table .zone")
        clicks = click_through(
            page, random.Random(2), shots_folder(tmp_path) / "play-astrobirdz-phone-dark.png"
        )
        assert clicks > 0
        page.click("#new-seed")
        page.wait_for_selector("#summary", state="hidden")
        page.wait_for_selector("#table .zone")
        assert "deal seed" not in page.inner_text("#table")
    finally:
        page.close()
    assert not errors, errors


def test_a_checkpoint_seat_and_a_bad_option(page, server: str):
    open_setup(page, server, "astrobirdz_v0", ["human", "model:models/loose/astrobirdz_v0.zip"])
    page.click("details.more summary")
    page.fill("#opt-ages", "[1, 2, 3]")
    page.click("#start")
    page.wait_for_selector("#setup-error .error")
    assert "ages" in page.inner_text("#setup-error")
    page.fill("#opt-ages", "")
    page.click("#start")
    page.wait_for_selector("#table .zone")
    assert "models/loose/astrobirdz_v0.zip" in page.inner_text("#table")


def test_the_skybirds_table_draws_the_squadron_hands_and_each_aerodrome(page, server: str):
    open_setup(page, server, "skybirds_v0", ["human", "bot:heuristic"])
    page.click("#start")
    page.wait_for_selector("#table .seat-box")
    assert page.locator("#table .view-table").count() == 0  # the drawn table, not the generic
    tokens = len(data.DEFAULT_AERODROME_ROWS)
    expect(page.locator("#table .seat-box")).to_have_count(2)
    expect(page.locator("#table .seat-box [data-token]")).to_have_count(2 * tokens)
    expect(page.locator("#table .hand .card")).to_have_count(16)
    text = page.inner_text("#table")
    assert "Campaign 1 of at most" in text and "squadron in play (to beat)" in text.lower()
    # Clicking a playable Ace plays its one move, or keeps the moves made with it.
    page.locator("#table button.card.playable").first.click()
    page.wait_for_function("document.querySelector('#table .card') !== null")


def test_the_generic_renderer_plays_a_whole_game(page, server: str, tmp_path: Path):
    """What an env registered tomorrow gets: its view as a table, its moves as buttons."""
    open_setup(page, server, "astrobirdz_v0", ["human", "bot:random"], query="fast&generic")
    page.click("#start")
    page.wait_for_selector("#table .view-table")
    assert page.locator("#table .zone").count() == 0
    clicks = click_through(page, random.Random(3), shots_folder(tmp_path) / "play-generic.png")
    assert clicks > 0 and "won" in page.inner_text("#summary h2")


@pytest.mark.parametrize("env_id", ["skybirds_v0", "arena_v0"])
def test_the_new_tables_at_phone_width_in_the_dark(browser, server: str, env_id: str, tmp_path):
    """Skybirds and the Arena at a phone's width in the dark colour scheme: the page
    does not scroll sideways (the table scrolls inside itself if it must)."""
    page = browser.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.emulate_media(color_scheme="dark")
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    game = env_id.rsplit("_", 1)[0]
    try:
        open_setup(page, server, env_id, ["human", "bot:heuristic"])
        page.click("#start")
        page.wait_for_selector("#table .zone")
        shot = shots_folder(tmp_path) / f"play-{game}-phone-dark.png"
        shot_at = min(SHOT_AT[env_id], 10)
        click_through(page, random.Random(4), shot, shot_at, stop_after=shot_at + 1)
        assert shot.exists()
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= 390, f"the page is {width}px wide at a 390px phone"
        leave_game(page)
    finally:
        page.close()
    assert not errors, errors


REPLAY_ICONS = """() => [...document.querySelectorAll(".replay-bar button")].map((b) => {
  const icon = b.querySelector("svg path");
  const box = icon ? icon.getBoundingClientRect() : { width: 0, height: 0 };
  return b.textContent.trim() === "" && box.width > 5 && box.height > 5 && !!b.title;
})"""
"""Each replay button is drawn as an icon of its own (no character a font may lack)."""


def start_game(page, server: str, env_id: str, second: str = "bot:heuristic") -> None:
    players = small_options(env_id)["num_players"]
    open_setup(page, server, env_id, ["human", second] + ["bot:heuristic"] * (players - 2))
    page.click("#start")
    page.wait_for_selector("#table .zone, #table .view-table")


@pytest.mark.parametrize("env_id", list_envs())
def test_the_help_and_the_rules_from_the_table(page, server: str, env_id: str, tmp_path: Path):
    """The help (?) lists the game's special cards; the Rules button opens its
    how-to-play page (how it is won, a turn, the special cards)."""
    start_game(page, server, env_id)
    page.click("#show-help")
    expect(page.locator("#help")).to_be_visible()
    text = page.inner_text("#game-help")
    assert "[object" not in text
    notes = special_cards_help(env_id)
    for card, what in (notes[0], notes[-1]):
        assert f"{card}\n{what}" in text, (card, what, text[:300])
    assert page.locator("#game-help dt").count() == len(notes)
    page.click("#close-help")
    page.click("#show-rules")
    page.wait_for_selector("#rules-body h3")
    headings = page.locator("#rules-body h3").all_inner_texts()
    assert headings == ["How it is won", "A turn", "The special cards", "The full rules"]
    assert RULES_SENTENCE[env_id] in page.inner_text("#rules-body")
    assert page.locator("#rules-body script, #rules-body [onclick]").count() == 0
    if env_id == "skybirds_v0":
        page.screenshot(path=str(shots_folder(tmp_path) / "rules-skybirds.png"))
    page.keyboard.press("Escape")
    expect(page.locator("#rules")).to_be_hidden()
    leave_game(page)


NAMES_IN_BOXES = """(name) => {
  const boxes = ".seat-box, .side-column, .table, #summary .card-panel";
  const found = [];
  for (const el of document.querySelectorAll("th, td, h4, li, span, p")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.includes(name));
    if (!own || !el.getClientRects().length) continue;
    const box = el.parentElement.closest(boxes) || document.querySelector("main");
    const r = el.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    found.push({ where: `${el.tagName}.${el.className} in ${box.className || box.tagName}`,
      inside: r.left >= b.left - 0.5 && r.right <= b.right + 0.5 });
  }
  return found;
}"""
"""Every element showing a text itself, and whether it lies inside its box."""
BOARD_LABEL_PX = """() => Math.min(...[...document.querySelectorAll("svg.arena-board text.label")]
  .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))"""
"""The smallest Arena board label, in screen pixels."""
PLAYABLE_IN_VIEW = """() => {
  const wrap = document.querySelector("#table .board-wrap");
  const frame = wrap.getBoundingClientRect();
  const spaces = [...wrap.querySelectorAll(".space.playable")]
    .map((s) => s.getBoundingClientRect());
  const inside = spaces.filter((r) => r.left >= frame.left - 1 && r.right <= frame.right + 1);
  return [spaces.length, inside.length];
}"""
"""The Arena's highlighted spaces, and how many of them the board's frame shows."""


@pytest.mark.parametrize("width", [1280, 390])
def test_no_sideways_scroll_and_long_names_stay_in_their_boxes(browser, server: str, width: int):
    """Every game, with a model of a long unbreakable name at the table, a few moves
    in: the page does not scroll sideways, the name wraps inside the seat box, the
    score sheet and the log, and the Arena board's labels stay readable."""
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        for env_id in list_envs():
            name = f"runs/{env_id}-{LONG_RUN}"
            start_game(page, server, env_id, second=f"model:{name}")
            click_through(page, random.Random(5), stop_after=6)
            sizes = page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            assert sizes[0] <= sizes[1], f"{env_id} at {width}px: the page is {sizes[0]}px wide"
            shown = page.evaluate(NAMES_IN_BOXES, name)
            assert any("in side-column" in s["where"] for s in shown), shown
            assert all(s["inside"] for s in shown), (env_id, width, shown)
            if env_id == "arena_v0":
                assert page.evaluate(BOARD_LABEL_PX) >= 9.0
                playable, seen = page.evaluate(PLAYABLE_IN_VIEW)
                assert seen >= min(1, playable), "no highlighted space is in the board's frame"
            leave_game(page)
            page.evaluate("sessionStorage.clear()")  # the next game starts from the form
    finally:
        page.close()
    assert not errors, errors


DEFAULTS = [
    ("asrus_v0", 5, "model:shipped/asrus/ppo_5p.zip"),
    ("asrus_v0", 3, "bot:heuristic"),  # the user's own 3-player models are not the default
    ("astrobirdz_v0", 2, "model:shipped/astrobirdz/ppo_2p.zip"),
    ("astrobirdz_v0", 4, "model:shipped/astrobirdz/ppo_4p.zip"),
    ("astrobirdz_v0", 5, "bot:heuristic"),  # no shipped bot for five
    ("skybirds_v0", 2, "model:shipped/skybirds/ppo_2p.zip"),
    ("skybirds_v0", 4, "model:shipped/skybirds/ppo_4p.zip"),
    ("arena_v0", 2, "model:shipped/arena/ppo_2p.zip"),
]


def test_the_form_defaults_to_the_strongest_shipped_bot_and_says_what_each_is(
    page, server: str, tmp_path: Path
):
    page.goto(f"{server}/?fast")
    page.wait_for_selector("body[data-ready='1']")
    envs = {e["id"]: e for e in page.evaluate("fetch('/api/envs').then((r) => r.json())")["envs"]}
    for env_id, players, chosen in DEFAULTS:
        page.select_option("#env", env_id)
        page.select_option("#opt-num_players", str(players))
        assert page.input_value("#seat-1") == chosen, (env_id, players)
        if chosen.startswith("model:"):
            model = next(m for m in envs[env_id]["models"] if f"model:{m['id']}" == chosen)
            assert page.inner_text("#seat-note-1") == model["description"]
            assert model["description"].startswith("shipped, trained; wins ")
        else:
            assert page.inner_text("#seat-note-1") == (
                "the hand-written bot of this game: plays by rules of thumb"
            )
        assert page.input_value("#seat-0") == "human"
    page.select_option("#env", "skybirds_v0")
    page.select_option("#opt-num_players", "4")
    page.screenshot(path=str(shots_folder(tmp_path) / "setup.png"), full_page=True)
    page.select_option("#seat-1", "bot:random")
    assert page.inner_text("#seat-note-1") == "plays a legal move at random"
    page.click("#setup-rules")
    page.wait_for_selector("#rules-body h3")
    assert RULES_SENTENCE["skybirds_v0"] in page.inner_text("#rules-body")


def test_the_page_shows_that_a_search_bot_is_thinking(page, server: str):
    """A search bot thinks up to a second a move; meanwhile the prompt says who is
    thinking (class ``thinking``), and the class goes once the move is in."""
    open_setup(page, server, "astrobirdz_v0", ["human", "bot:search"])
    page.click("#start")
    page.wait_for_selector("#table .zone")
    rng = random.Random(3)
    deadline = time.monotonic() + GAME_SECONDS
    while not page.is_visible("#prompt.thinking"):
        assert time.monotonic() < deadline, "no bot move was shown as thinking"
        click_through(page, rng, stop_after=1)
    assert "is thinking" in page.inner_text("#prompt")
    page.wait_for_selector("#prompt:not(.thinking)", timeout=30_000)


def test_a_person_wishes_for_an_arena_character_on_the_table(browser, server: str, tmp_path):
    """The Arena's setup wish is playable by a person: the table draws a button per
    character the seat may wish for; a click wishes, the seat then sees its own
    wish (and the bot's seat only that it has wished, until its wish settles)."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        open_setup(page, server, "arena_v0", ["human", "bot:heuristic"])
        page.click("#start")
        page.wait_for_selector("#table .zone.wishes")
        buttons = page.locator("#table .zone.wishes button.move")
        assert buttons.count() == 18
        # the board is dealt after the wishes: no gym and no card on it yet
        corners = page.locator("#table .space.k-gym")
        assert corners.count() == 4
        texts = [corners.nth(i).text_content() for i in range(4)]
        assert [t.split("\n")[1] for t in texts] == [
            f"corner {c}: its gym is dealt once every player has a character" for c in (1, 2, 3, 4)
        ]
        assert all(t.endswith("Gymafter wishes") for t in texts)
        assert page.locator("#table .space.has-card").count() == 0
        page.screenshot(path=str(shots_folder(tmp_path) / "play-arena-wish.png"), full_page=True)
        page.locator("#table .zone.wishes button.move", has_text="Spaceboardzerka").click()
        page.wait_for_selector("#table .zone.wishes", state="detached")
        boxes = page.inner_text("#table .seats-row")
        assert "Spaceboardzerka" in boxes and "[object" not in boxes
        page.wait_for_selector("#table .space.has-card")
        assert not any("after wishes" in corners.nth(i).text_content() for i in range(4))
    finally:
        page.close()
    assert not errors, errors


def leave_game(page) -> None:
    """Leave the game by its link (unless it is over), saying yes when the page asks,
    then see the summary."""
    if not page.is_visible("#summary"):
        page.click("#leave")
        page.click("#leave-yes")
    page.wait_for_selector("#summary")


AXE = Path(
    os.environ.get(
        "FLOCKGYM_AXE", Path(__file__).parents[2] / "node_modules" / "axe-core" / "axe.min.js"
    )
)
"""axe-core, installed by ``make test`` (``npm ci``: package.json pins its version)."""
TABLE_WIDTHS = (1280, 390)
"""The widths the page is checked at: a laptop's and a phone's."""
CONTRAST_FAILURES = """async () => {
  const result = await axe.run(document, {
    runOnly: { type: "rule", values: ["color-contrast"] },
    resultTypes: ["violations"],
  });
  return result.violations.flatMap((v) => v.nodes.map((n) =>
    `${n.target.join(" ")} "${n.html.slice(0, 80)}": ${n.any.map((c) => c.message).join("; ")}`));
}"""
"""axe-core's colour-contrast rule (WCAG AA: 4.5:1 for text, 3:1 for large text) on
everything the page shows; each failure names the element and the two colours."""
BROKEN_NUMBERS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll("table.scores td, table.scores thead th")) {
    if (!cell.getClientRects().length) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/-?\\d+(?:[.,]\\d+)*/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(`${match[0]} on ${lines.size} lines: ${cell.textContent}`);
      }
    }
  }
  return broken;
}"""
"""Every number of every score sheet on screen (its cells; a seat's name may wrap
anywhere) that is split over two lines or more."""


def load_axe(page) -> None:
    if not AXE.exists():
        pytest.fail(
            f"the colour-contrast check needs axe-core at {AXE}: `make test` installs it "
            f"(`npm ci` in the checkout; package.json pins the version)"
        )
    # Evaluated through the DevTools protocol, which the page's CSP does not block.
    page.evaluate(AXE.read_text(encoding="utf-8"))


def check_every_width(page, where: str) -> None:
    """At each width: no colour-contrast failure and no number of a score sheet broken."""
    for width in TABLE_WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(50)  # the layout at the new width
        assert page.evaluate(CONTRAST_FAILURES) == [], f"{where} at {width}px"
        assert page.evaluate(BROKEN_NUMBERS) == [], f"{where} at {width}px"


def readable_later(env_id: str, scheme: str) -> bool:
    """The scheme checks left to ``make test-slow``: the dark scheme of every game
    but Asrus, and the Arena's and Skybirds' light one (``make test`` keeps
    Asrus in both and Astrobirdz in the light one: the same page code and
    colours; each game's own board in the other browser tests)."""
    if scheme == "dark":
        return env_id != "asrus_v0"
    return env_id in ("arena_v0", "skybirds_v0")


SCHEMES = [
    pytest.param(env_id, scheme, id=f"{env_id}-{scheme}",
                 marks=[pytest.mark.slow] if readable_later(env_id, scheme) else [])
    for env_id in list_envs()
    for scheme in ("light", "dark")
]  # fmt: skip
"""Asrus in both schemes and Astrobirdz in the light one in ``make test``; the
rest in ``make test-slow`` (:func:`readable_later`)."""


@pytest.mark.parametrize(("env_id", "scheme"), SCHEMES)
def test_every_table_view_is_readable_in_both_schemes(browser, server: str, env_id: str, scheme):
    """The form, a game's first decision (the Arena's: the character wish), the table a
    few moves in and the summary, at a laptop's and a phone's width, in the light and the
    dark scheme: axe-core finds no text below WCAG AA contrast, and no score-sheet
    number is split over two lines. The table is the default player count with a model
    of a long name at it (the names take the score sheet's width)."""
    page = browser.new_page()
    page.emulate_media(color_scheme=scheme)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        players = entry(env_id).default_players
        model = f"model:runs/{env_id}-default-{LONG_RUN}"
        seats = ["human", model] + ["bot:heuristic"] * (players - 2)
        open_setup(page, server, env_id, seats, players=players)
        load_axe(page)
        check_every_width(page, f"{env_id} {scheme}: the form")
        page.click("#start")
        page.wait_for_selector("#table .zone, #table .view-table")
        check_every_width(page, f"{env_id} {scheme}: the first decision")
        if env_id == "astrobirdz_v0":  # turn 1 deals one card: one trick, in words
            assert " · 1 trick · " in page.inner_text("#table .zone")
        click_through(page, random.Random(6), stop_after=8)
        check_every_width(page, f"{env_id} {scheme}: a few moves in")
        if not page.is_visible("#summary"):  # leaving asks first; "keep playing" keeps the game
            page.click("#leave")
            expect(page.locator("#leave-confirm")).to_be_visible()
            check_every_width(page, f"{env_id} {scheme}: leave this game?")
            assert not page.is_visible("#summary")
            page.click("#leave-no")
            expect(page.locator("#leave-confirm")).to_be_hidden()
            assert not page.is_visible("#summary")
            assert click_through(page, random.Random(7), stop_after=1) in (0, 1)
        leave_game(page)
        check_every_width(page, f"{env_id} {scheme}: the summary")
    finally:
        page.close()
    assert not errors, errors
