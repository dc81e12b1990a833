"""Observation vectors and views of Skybirds.

The field table (:func:`field_table`) is the single description of the
vector's layout; the env's documentation prints the same table. Fields are
``pub`` (the same for every observer), ``seat`` (one block per seat, from the
observer's seat: itself first, then its left neighbour, ...) or ``priv`` (the
observer's own: its hand and the move it is building). Every entry lies in
[0, 1]: counts are divided by the largest value they can take in the
configuration (deck counts, hand size, +1VP tokens, the Aerodrome's total VP).

:func:`view` is the same information in words, for bots, renderers and people.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import data
from .data import CARD_COUNTS, FRACTIONAL, MAX_SQUADRON, NUM_KINDS, PLUS_ONE_TOKENS
from .rules import (
    BACK,
    FRONT,
    MAT,
    PHASE_NAMES,
    STEP_NAMES,
    Phase,
    SkybirdsConfig,
    SkybirdsGame,
    Squadron,
    Step,
)

NUM_PHASES = len(Phase) - 1  # OVER is all zeros
NUM_STEPS = len(STEP_NAMES)
_OVER = Phase.OVER


@dataclass(frozen=True)
class Field:
    """One observation field; ``kind`` is ``pub``, ``seat`` or ``priv``."""

    name: str
    kind: str
    width: int
    doc: str


def field_table(n: int, k: int) -> list[Field]:
    """The observation layout for ``n`` players and ``k`` Aerodrome tokens, in order."""
    return [
        Field("phase", "pub", NUM_PHASES, "one-hot: pre_campaign, dogfight, take, trade "
              "(all zero once over)"),
        Field("step", "pub", NUM_STEPS, "one-hot: start, tokens, cards, declare, target, give"),
        Field("campaign", "pub", 1, "Campaign number / max_campaigns"),
        Field("armistice", "pub", 1, "1 once the Armistice is taken (the Great War is ending)"),
        Field("garros_due", "pub", 1, "1 while Roland Garros must start the Campaign"),
        Field("table", "pub", 5, "the Squadron to beat: present, size / 6, value / 10, "
              "Medallions / most possible, the Dogfight's Squadron Size / 6"),
        Field("played", "pub", NUM_KINDS, "Aces played this Campaign per kind (G, 1..10) / "
              "deck count"),
        Field("fractional_left", "pub", 3, "the 3/4, 1/2, 1/4 tokens not yet taken"),
        Field("to_act", "seat", 1, "1 for the player to act"),
        Field("table_player", "seat", 1, "1 for who played the Squadron to beat"),
        Field("passed", "seat", 1, "1 if passed since the last Squadron"),
        Field("cards_left", "seat", 1, "Aces in hand / hand size"),
        Field("place", "seat", n, "one-hot finishing place this Campaign (zero: not out)"),
        Field("tokens", "seat", 2 * k, "per Aerodrome token: held face up, held flipped"),
        Field("pre_used", "seat", k, "per token: used before this Campaign"),
        Field("plus_one", "seat", 1, "+1VP tokens held / 8"),
        Field("fractional", "seat", 3, "one-hot fractional token held: 3/4, 1/2, 1/4"),
        Field("vp", "seat", 1, "Victory Points / the most a player can hold"),
        Field("hand", "priv", NUM_KINDS, "own Aces per kind (G, 1..10) / deck count"),
        Field("pending_tokens", "priv", k, "tokens used on the Squadron being built"),
        Field("pending_cards", "priv", NUM_KINDS, "Aces added to the Squadron being built, "
              "or chosen to give in a swap, per kind / deck count"),
        Field("pending_wild", "priv", 10, "one-hot printed value of the wild Ace added"),
        Field("pending_swap", "priv", k, "one-hot swap token being used"),
        Field("pending_target", "priv", n, "one-hot swap opponent (from the observer's seat)"),
    ]  # fmt: skip


def observed_width(f: Field, n: int) -> int:
    return n * f.width if f.kind == "seat" else f.width


def observation_size(n: int, k: int) -> int:
    return sum(observed_width(f, n) for f in field_table(n, k))


class SkybirdsObserver:
    """Keeps one store of every observation field up to date with the engine.

    The store holds public fields once, per-seat fields in absolute seat
    order and one private block per seat; each seat's observation is a single
    gather ``store[index[seat]]`` that rotates the per-seat fields to that seat
    (itself first). The engine bumps version counters when hands, tokens or
    the finishing order change; the observer keeps a Python mirror of what the
    store shows and writes only the entries that differ (a step changes a
    handful), since one NumPy write of a scalar costs far less than a slice
    assigned from a list.
    """

    def __init__(self, config: SkybirdsConfig) -> None:
        self.config = config
        n, k = config.num_players, len(config.tokens)
        self.n, self.k = n, k
        self.fields = field_table(n, k)
        self.size = observation_size(n, k)
        self.width = {f.name: f.width for f in self.fields}
        self.at: dict[str, int] = {}
        at = 0
        for f in self.fields:
            if f.kind != "priv":
                self.at[f.name] = at
                at += f.width * (n if f.kind == "seat" else 1)
        self.private_start = at
        self.priv_at: dict[str, int] = {}
        p = 0
        for f in self.fields:
            if f.kind == "priv":
                self.priv_at[f.name] = p
                p += f.width
        self.private_width = p
        self.store = np.zeros(at + n * p, dtype=np.float32)
        self.cells = self.store.data.cast("B").cast("f")
        """The store's entries one by one: a scalar write through a memoryview
        costs about half what NumPy's item assignment does (the same float32
        rounding); slices are written through ``store``."""
        self.index = [self._gather_index(seat) for seat in range(n)]
        self.scaled = [[c / total for c in range(total + 1)] for total in CARD_COUNTS]
        """scaled[kind][count]: a count of Aces of a kind over the deck's count."""
        self.hand_at = [self._private(seat, "hand") for seat in range(n)]
        self.to_act_at = self.at["to_act"]
        self.passed_at = self.at["passed"]
        self.hand_scale = 1.0 / config.hand_size
        self.vp_scale = 1.0 / config.max_vp
        self.medallion_scale = 1.0 / config.max_medallions
        self.max_campaigns = config.max_campaigns
        self._game: SkybirdsGame | None = None
        self._clear_mirrors()

    def __getstate__(self) -> dict[str, Any]:
        """A copy or a pickle leaves the memoryview out (it cannot be copied)."""
        state = dict(self.__dict__)
        del state["cells"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.cells = self.store.data.cast("B").cast("f")

    def _clear_mirrors(self) -> None:
        """Mirrors of an all-zero store (what ``forget`` leaves)."""
        n, k = self.n, self.k
        self._hand_versions = [-1] * n
        self._token_versions = [-1] * n
        self._finish_epoch = -1
        self._hands = [[0] * NUM_KINDS for _ in range(n)]
        self._left = [0] * n
        self._played = [0] * NUM_KINDS
        self._tokens = [[MAT] * k for _ in range(n)]
        self._pre_used = [0] * n
        self._plus_one = [0] * n
        self._fractional = [-1] * n
        self._vp = [0.0] * n
        self._pool: list[int] = []
        self._places: list[int] = []
        self._phase: Phase | None = None
        self._step: Step | None = None
        self._flags: tuple[int, bool, bool] = (0, False, False)
        self._table: Squadron | None = None
        self._squadron_size = 0
        self._actor = -1
        self._passed = [False] * n
        self._pending_seat = -1

    def _gather_index(self, seat: int) -> np.ndarray:
        n = self.n
        out: list[int] = []
        for f in self.fields:
            if f.kind == "pub":
                base = self.at[f.name]
                out += range(base, base + f.width)
            elif f.kind == "seat":
                base = self.at[f.name]
                for rel in range(n):
                    block = base + ((seat + rel) % n) * f.width
                    out += range(block, block + f.width)
            else:
                own = self.private_start + seat * self.private_width + self.priv_at[f.name]
                out += range(own, own + f.width)
        assert len(out) == self.size
        return np.asarray(out, dtype=np.intp)

    def _private(self, seat: int, name: str) -> int:
        return self.private_start + seat * self.private_width + self.priv_at[name]

    # -- reading --

    def encode(self, game: SkybirdsGame, seat: int) -> np.ndarray:
        """The observation of ``seat``: a fresh float32 vector."""
        self.sync(game)
        return self.store[self.index[seat]]

    def forget(self) -> None:
        """The next :meth:`sync` rebuilds the store (a new game object)."""
        self._game = None

    def sync(self, game: SkybirdsGame) -> None:
        """Bring the store up to date with ``game``."""
        if game is not self._game:
            self._game = game
            self.store.fill(0.0)
            self._clear_mirrors()
        versions = game.hand_versions
        if versions != self._hand_versions:
            for s in range(self.n):
                if versions[s] != self._hand_versions[s]:
                    self._write_hand(game, s)
            self._write_played(game)
            self._hand_versions = list(versions)
        versions = game.token_versions
        if versions != self._token_versions:
            for s in range(self.n):
                if versions[s] != self._token_versions[s]:
                    self._write_tokens(game, s)
            self._write_pool(game)
            self._token_versions = list(versions)
        if game.finish_epoch != self._finish_epoch:
            self._write_places(game)
            self._finish_epoch = game.finish_epoch
        self._write_turn(game)
        if self._pending_seat >= 0 or game.pend_tokens or game.pend_cards or game.pend_token >= 0:
            self._write_pending(game)

    # -- writing: only what differs from the mirrors --

    def _write_turn(self, game: SkybirdsGame) -> None:
        """Phase, step, Campaign flags, the table, whose turn and the passes (every
        step: the offsets are read from attributes, each write is one cell)."""
        cells = self.cells
        phase, step = game.phase, game.step
        if phase is not self._phase or step is not self._step:
            self._write_phase(phase, step)
        flags = (game.campaign, game.armistice_by >= 0, game.garros_due)
        if flags != self._flags:
            at = self.at
            cells[at["campaign"]] = flags[0] / self.max_campaigns
            cells[at["armistice"]] = float(flags[1])
            cells[at["garros_due"]] = float(flags[2])
            self._flags = flags
        table = game.table
        if table is not self._table or game.squadron_size != self._squadron_size:
            self._write_table(game, table)
        actor = -1 if phase is _OVER else game.actor
        old = self._actor
        if actor != old:
            to_act = self.to_act_at
            if old >= 0:
                cells[to_act + old] = 0.0
            if actor >= 0:
                cells[to_act + actor] = 1.0
            self._actor = actor
        passed, shown = game.passed, self._passed
        if passed != shown:
            base = self.passed_at
            if not game.passes:  # a Squadron was played: nobody has passed since
                self.store[base : base + self.n] = 0.0
                self._passed = [False] * self.n
                return
            for s in range(self.n):
                flag = bool(passed[s]) if passed else False
                if flag != shown[s]:
                    cells[base + s] = float(flag)
                    shown[s] = flag

    def _write_phase(self, phase: Phase, step: Step) -> None:
        store, at = self.cells, self.at
        if self._phase is not None and self._step is not None and self._phase is not Phase.OVER:
            store[at["phase"] + self._phase] = 0.0
            store[at["step"] + self._step] = 0.0
        if phase is not Phase.OVER:
            store[at["phase"] + phase] = 1.0
            store[at["step"] + step] = 1.0
        self._phase, self._step = phase, step

    def _write_table(self, game: SkybirdsGame, table: Squadron | None) -> None:
        store, at = self.cells, self.at["table"]
        old = self._table
        if old is not None:
            store[self.at["table_player"] + old.player] = 0.0
        if table is None:
            self.store[at : at + 5] = 0.0
        else:
            store[at] = 1.0
            store[at + 1] = table.size / MAX_SQUADRON
            store[at + 2] = table.value / 10
            store[at + 3] = table.medallions * self.medallion_scale
            store[at + 4] = game.squadron_size / MAX_SQUADRON
            store[self.at["table_player"] + table.player] = 1.0
        self._table, self._squadron_size = table, game.squadron_size

    def _write_hand(self, game: SkybirdsGame, seat: int) -> None:
        store, scaled = self.cells, self.scaled
        base, shown = self.hand_at[seat], self._hands[seat]
        for kind, count in enumerate(game.hands[seat]):
            if count != shown[kind]:
                store[base + kind] = scaled[kind][count]
                shown[kind] = count
        left = game.left[seat]
        if left != self._left[seat]:
            store[self.at["cards_left"] + seat] = left * self.hand_scale
            self._left[seat] = left

    def _write_played(self, game: SkybirdsGame) -> None:
        store, scaled = self.cells, self.scaled
        base, shown = self.at["played"], self._played
        for kind, count in enumerate(game.played):
            if count != shown[kind]:
                store[base + kind] = scaled[kind][count]
                shown[kind] = count

    def _write_tokens(self, game: SkybirdsGame, s: int) -> None:
        """Tokens, Pre-Campaign uses, +1VP, fractional token and VP of seat ``s``."""
        k, store, at = self.k, self.cells, self.at
        base, shown = at["tokens"] + s * 2 * k, self._tokens[s]
        for i, state in enumerate(game.tokens[s]):
            if state != shown[i]:
                store[base + 2 * i] = float(state == FRONT)
                store[base + 2 * i + 1] = float(state == BACK)
                shown[i] = state
        used = game.pre_used[s] if game.pre_used else 0
        if used != self._pre_used[s]:
            base = at["pre_used"] + s * k
            for i in range(k):
                store[base + i] = float(used >> i & 1)
            self._pre_used[s] = used
        if game.plus_one[s] != self._plus_one[s]:
            store[at["plus_one"] + s] = game.plus_one[s] / PLUS_ONE_TOKENS
            self._plus_one[s] = game.plus_one[s]
        fraction = game.fractional[s]
        if fraction != self._fractional[s]:
            base = at["fractional"] + 3 * s
            for f in range(3):
                store[base + f] = float(fraction == f)
            self._fractional[s] = fraction
        points = game.vp(s)
        if points != self._vp[s]:
            store[at["vp"] + s] = points * self.vp_scale
            self._vp[s] = points

    def _write_pool(self, game: SkybirdsGame) -> None:
        if game.pool != self._pool:
            base = self.at["fractional_left"]
            for f in range(3):
                self.cells[base + f] = float(f in game.pool)
            self._pool = list(game.pool)

    def _write_places(self, game: SkybirdsGame) -> None:
        if game.finish != self._places:
            n, base = self.n, self.at["place"]
            self.store[base : base + n * n] = 0.0
            for place, s in enumerate(game.finish):
                self.cells[base + s * n + place] = 1.0
            self._places = list(game.finish)

    def _write_pending(self, game: SkybirdsGame) -> None:
        """The move being built, in the private block of the player to act."""
        if self._pending_seat < 0 and not (
            game.pend_tokens or game.pend_cards or game.pend_token >= 0
        ):
            return
        store = self.cells
        if self._pending_seat >= 0:
            lo = self._private(self._pending_seat, "pending_tokens")
            hi = self.private_start + (self._pending_seat + 1) * self.private_width
            self.store[lo:hi] = 0.0
            self._pending_seat = -1
        seat = game.actor
        if game.phase == Phase.OVER or not (
            game.pend_tokens or game.pend_cards or game.pend_token >= 0
        ):
            return
        self._pending_seat = seat
        for token in game.pend_tokens:
            store[self._private(seat, "pending_tokens") + token] = 1.0
        base = self._private(seat, "pending_cards")
        for kind in set(game.pend_cards):
            store[base + kind] = self.scaled[kind][game.pend_cards.count(kind)]
        if game.pend_wild:
            store[self._private(seat, "pending_wild") + game.pend_wild - 1] = 1.0
        if game.pend_token >= 0:
            store[self._private(seat, "pending_swap") + game.pend_token] = 1.0
        if game.pend_target >= 0:
            rel = (game.pend_target - seat) % self.n
            store[self._private(seat, "pending_target") + rel] = 1.0


# ---- views -----------------------------------------------------------------------


_SQUADRON_VIEWS: dict[tuple[Squadron, tuple[str, ...]], dict[str, Any]] = {}
"""Views of Squadrons by (Squadron, token names): one Squadron is viewed at
every step of its Dogfight (shared: read-only; bounded by the size below)."""
_SQUADRON_VIEWS_SIZE = 1 << 12


def _squadron_view(s: Squadron | None, agents: list[str], names: tuple[str, ...]) -> Any:
    """A Squadron in words (None for none), built once per Squadron."""
    if s is None:
        return None
    key = (s, names)
    cached = _SQUADRON_VIEWS.get(key)
    if cached is None:
        cached = _build_squadron_view(s, agents, names)
        if len(_SQUADRON_VIEWS) >= _SQUADRON_VIEWS_SIZE:
            _SQUADRON_VIEWS.clear()
        _SQUADRON_VIEWS[key] = cached
    return cached


def _build_squadron_view(s: Squadron, agents: list[str], names: tuple[str, ...]) -> Any:
    return {
        "player": agents[s.player],
        "cards": [data.card_text(c) for c in s.cards],
        "size": s.size,
        "value": s.value,
        "medallions": s.medallions,
        "tokens": [names[i] for i in s.tokens],
        "wild": {"printed": s.wild, "declared": s.declare} if s.wild else None,
    }


_AGENTS = {n: [f"player_{s}" for s in range(n)] for n in data.PLAYER_COUNTS}


def _token_views(game: SkybirdsGame) -> dict[str, Any]:
    """The token-dependent part of every view, rebuilt only when a token changes
    (cached on the game, keyed by its token epoch)."""
    cached = getattr(game, "_token_view", None)
    if cached is not None and cached[0] == game.token_epoch:
        return cached[1]
    config = game.config
    n, names = config.num_players, config.names
    agents = _AGENTS[n]
    part = {
        "tokens": {
            agents[s]: {
                names[i]: ("front" if st == FRONT else "back")
                for i, st in enumerate(game.tokens[s])
                if st
            }
            for s in range(n)
        },
        "pre_used": {
            agents[s]: [names[i] for i in range(len(names)) if game.pre_used[s] >> i & 1]
            for s in range(n)
        },
        "plus_one": {agents[s]: game.plus_one[s] for s in range(n)},
        "fractional": {
            agents[s]: FRACTIONAL[game.fractional[s]] if game.fractional[s] >= 0 else None
            for s in range(n)
        },
        "fractional_left": [FRACTIONAL[f] for f in game.pool],
        "vp": {agents[s]: game.vp(s) for s in range(n)},
    }
    game._token_view = (game.token_epoch, part)  # type: ignore[attr-defined]
    return part


def _hand_text(game: SkybirdsGame, seat: int) -> list[str]:
    """``seat``'s hand as card strings, rebuilt only when its version moves (shared:
    read-only)."""
    texts = game.__dict__.setdefault("_hand_texts", {})
    version = game.hand_versions[seat]
    cached = texts.get(seat)
    if cached is None or cached[0] != version:
        cached = texts[seat] = (version, data.cards_text(game.hands[seat]))
    return cached[1]


def _played_text(game: SkybirdsGame) -> list[str]:
    """The Aces played this Campaign as strings: they change only with a hand (a
    Squadron played, a new deal), so they are rebuilt only then (shared: read-only)."""
    versions = tuple(game.hand_versions)
    cached = game.__dict__.get("_played_text")
    if cached is None or cached[0] != versions:
        cached = (versions, data.cards_text(game.played))
        game.__dict__["_played_text"] = cached
    return cached[1]


def view(game: SkybirdsGame, seat: int) -> dict[str, Any]:
    """What ``seat`` may see, in words and card strings (JSON types). The
    nested parts are shared between calls: treat a view as read-only."""
    config = game.config
    n, names = config.num_players, config.names
    agents = _AGENTS[n]
    done = game.over or game.truncated
    pending = None
    if not done and game.actor == seat:
        pending = {
            "tokens": [names[i] for i in game.pend_tokens],
            "cards": [data.card_text(c) for c in game.pend_cards],
            "wild": game.pend_wild or None,
            "swap_token": names[game.pend_token] if game.pend_token >= 0 else None,
            "target": agents[game.pend_target] if game.pend_target >= 0 else None,
        }
    passed = game.passed
    out = {
        "game": "skybirds",
        "agent": agents[seat],
        "players": n,
        "campaign": game.campaign,
        "max_campaigns": config.max_campaigns,
        "phase": PHASE_NAMES[game.phase],
        "step": None if done else STEP_NAMES[game.step],
        "to_act": None if done else agents[game.actor],
        "hand": _hand_text(game, seat),
        "garros_due": game.garros_due,
        "table": _squadron_view(game.table, agents, names),
        "squadron_size": game.squadron_size if game.table is not None else None,
        "leader_to_play": game.table is None and not done and game.phase == Phase.DOGFIGHT,
        "passed": [agents[s] for s in range(n) if passed and passed[s]],
        "last_dogfight": None
        if game.last_winner < 0
        else {
            "winner": agents[game.last_winner],
            "squadron": _squadron_view(game.last_squadron, agents, names),
        },
        "cards_left": dict(zip(agents, game.left, strict=True)),
        "played": _played_text(game),
        "finish": [agents[s] for s in game.finish],
        **_token_views(game),
        "armistice": agents[game.armistice_by] if game.armistice_by >= 0 else None,
        "pending": pending,
        "aerodrome": config.aerodrome_rows,
        "tokens_per_turn": config.tokens_per_turn,
        "over": game.over,
        "truncated": game.truncated,
        "winners": [agents[s] for s in game.winners()] if game.over else [],
    }
    return out


# ---- text ------------------------------------------------------------------------


def aerodrome_track(game: SkybirdsGame, seat: int) -> str:
    """One player's Aerodrome as a compact track, column by column: ``A1`` held
    face up, ``a1`` held flipped, ``..`` still on the mat; ``+n`` the +1VP
    tokens held and the fractional token."""
    config = game.config
    columns: list[list[str]] = []
    last_column = None
    for i, token in enumerate(config.tokens):
        state = game.tokens[seat][i]
        name = token.name
        mark = name if state == FRONT else name.lower() if state == BACK else "." * len(name)
        if token.column != last_column:
            columns.append([])
            last_column = token.column
        columns[-1].append(mark)
    track = " > ".join(" ".join(col) for col in columns)
    extra = f"  +1VP x{game.plus_one[seat]}"
    if game.fractional[seat] >= 0:
        extra += f"  {FRACTIONAL[game.fractional[seat]]}"
    return track + extra


def render_text(game: SkybirdsGame, seat: int | None) -> str:
    """The table in words: Campaign, the Squadron in play, each player's cards
    left, VP and Aerodrome track; the hand of ``seat`` (every hand for None)."""
    n = game.config.num_players
    agents = [f"player_{s}" for s in range(n)]
    done = game.over or game.truncated
    header = f"Skybirds  campaign {game.campaign}/{game.config.max_campaigns}  "
    header += (
        "over"
        if game.over
        else "truncated"
        if game.truncated
        else (f"{PHASE_NAMES[game.phase]} ({STEP_NAMES[game.step]})")
    )
    lines = [header]
    table = game.table
    if table is not None:
        cards = " ".join(data.card_text(c) for c in table.cards)
        extra = (
            f", tokens {' '.join(game.config.names[i] for i in table.tokens)}"
            if table.tokens
            else ""
        )
        lines.append(
            f"squadron: [{cards}] by {agents[table.player]}: size {table.size}, value "
            f"{table.value}, medallions {table.medallions}{extra}; "
            f"dogfight size {game.squadron_size}"
        )
    elif not done and game.phase == Phase.DOGFIGHT:
        lines.append(
            f"{agents[game.actor]} leads a new dogfight"
            + (" (Roland Garros must start the campaign)" if game.garros_due else "")
        )
    if game.armistice_by >= 0:
        lines.append(f"Armistice taken by {agents[game.armistice_by]}")
    for s in range(n):
        mark = ">" if not done and s == game.actor else " "
        status = (
            f"out #{game.finish.index(s) + 1}"
            if s in game.finish
            else f"{sum(game.hands[s]):>2} aces"
        )
        passed = " passed" if game.passed and game.passed[s] else ""
        line = f"{mark} {agents[s]}: {status:<7} {game.vp(s):>6.2f} VP{passed}  "
        line += aerodrome_track(game, s)
        if seat is None or seat == s:
            line += f"  hand [{' '.join(data.cards_text(game.hands[s]))}]"
        lines.append(line)
    if game.over:
        lines.append("winners: " + ", ".join(agents[s] for s in game.winners()))
    return "\n".join(lines)


# -- table talk: what a seat is told happened, from its views ---------------------


def squadron_text(squadron: dict[str, Any]) -> str:
    """``[5 5] (size 2, value 5, 1 Medallion, tokens A1)``."""
    extra = f", tokens {' '.join(squadron['tokens'])}" if squadron["tokens"] else ""
    if squadron["wild"]:
        extra += f", wild {squadron['wild']['printed']} as {squadron['wild']['declared']}"
    medals = squadron["medallions"]
    return (
        f"[{' '.join(squadron['cards'])}] (size {squadron['size']}, value {squadron['value']}"
        f"{f', {medals} Medallion(s)' if medals else ''}{extra})"
    )


def narrate_changes(
    old: dict[str, Any],
    new: dict[str, Any],
    who: Callable[[str], str],
    last_move: tuple[str, str] | None,
) -> list[str]:
    """What changed between two of a seat's views (``env.view``), in words, for
    terminal play and replays: each Dogfight won, each player going out, every
    token taken, flipped or returned, the Armistice and each new Campaign. Only
    the views are read, so nothing is told that the seat may not see; ``who``
    names an agent for that seat; ``last_move`` is unused here."""
    lines = []
    fight = new.get("last_dogfight")
    if fight and fight != old.get("last_dogfight"):
        lines.append(
            f"dogfight won by {who(fight['winner'])} with {squadron_text(fight['squadron'])}"
        )
    if new["campaign"] == old["campaign"]:
        for place, agent in enumerate(new["finish"], start=1):
            if agent not in old["finish"]:
                lines.append(f"{who(agent)} goes out: place {place}")
    for agent, held in new["tokens"].items():
        lines += _token_changes(who(agent), old["tokens"][agent], held)
        gained = new["plus_one"][agent] - old["plus_one"][agent]
        if gained:
            word = "takes" if gained > 0 else "spends"
            lines.append(f"{who(agent)} {word} {abs(gained)} +1VP token(s)")
        if new["fractional"][agent] and not old["fractional"][agent]:
            lines.append(f"{who(agent)} takes the {new['fractional'][agent]} VP token")
    if new["armistice"] and not old["armistice"]:
        lines.append(f"{who(new['armistice'])} takes the Armistice: the Great War ends")
    if new["campaign"] != old["campaign"] and not new["over"]:
        vp = ", ".join(f"{a} {v:g}" for a, v in new["vp"].items())
        lines.append(f"campaign {new['campaign']} dealt (VP: {vp})")
    return lines


def _token_changes(name: str, old: dict[str, str], new: dict[str, str]) -> list[str]:
    """One player's tokens taken, flipped (first use) and returned (second use)."""
    lines = []
    for token, side in new.items():
        if token not in old:
            lines.append(f"{name} takes {token}")
        elif side != old[token]:
            lines.append(f"{name} uses {token}: flipped")
    for token in old:
        if token not in new:
            lines.append(f"{name}'s {token} goes back to the Aerodrome")
    return lines
