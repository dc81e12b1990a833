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
)

NUM_PHASES = len(Phase) - 1  # OVER is all zeros
NUM_STEPS = len(STEP_NAMES)


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
    the finishing order change, so a step patches only what moved; the small
    fields (phase, table, whose turn, passes, the move being built) are
    rewritten every time.
    """

    SMALL = ("phase", "step", "campaign", "armistice", "garros_due", "table")

    def __init__(self, config: SkybirdsConfig) -> None:
        self.config = config
        n, k = config.num_players, len(config.tokens)
        self.n, self.k = n, k
        self.fields = field_table(n, k)
        self.size = observation_size(n, k)
        self.width = {f.name: f.width for f in self.fields}
        # store layout: the small public fields, the turn fields, the rest of the
        # public and per-seat fields, then one private block per seat
        order = [*self.SMALL] + [f.name for f in self.fields if f.name not in self.SMALL]
        kinds = {f.name: f.kind for f in self.fields}
        self.at: dict[str, int] = {}
        at = 0
        for name in order:
            if kinds[name] == "priv":
                continue
            self.at[name] = at
            at += self.width[name] * (n if kinds[name] == "seat" else 1)
        self.private_start = at
        self.priv_at: dict[str, int] = {}
        p = 0
        for f in self.fields:
            if f.kind == "priv":
                self.priv_at[f.name] = p
                p += f.width
        self.private_width = p
        self.store = np.zeros(at + n * p, dtype=np.float32)
        self.index = [self._gather_index(seat) for seat in range(n)]
        self.inv_deck = [1.0 / c for c in CARD_COUNTS]
        self.hand_scale = 1.0 / config.hand_size
        self.vp_scale = 1.0 / config.max_vp
        self.medallion_scale = 1.0 / config.max_medallions
        self.max_campaigns = config.max_campaigns
        self._game: SkybirdsGame | None = None
        self._hands: list[int] = []
        self._tokens = -1
        self._finish = -1
        self._pending_seat = -1
        self._shown: list[Any] = [(-1, -1), None, (None, 0), -1, None]
        """What the small fields show: (phase, step), (campaign, armistice,
        garros), (table, size), the player to act, the passes."""

    def _gather_index(self, seat: int) -> np.ndarray:
        n, out = self.n, []
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
            self._hands = [-1] * self.n
            self._tokens = self._finish = -1
            self._pending_seat = -1
            self._shown = [(-1, -1), None, (None, 0), -1, None]
        versions = game.hand_versions
        if versions != self._hands:
            for s in range(self.n):
                if versions[s] != self._hands[s]:
                    self._write_hand(game, s)
            self._write_played(game)
            self._hands = list(versions)
        if game.token_epoch != self._tokens:
            self._write_tokens(game)
            self._tokens = game.token_epoch
        if game.finish_epoch != self._finish:
            self._write_places(game)
            self._finish = game.finish_epoch
        self._write_small(game)
        self._write_pending(game)

    # -- writing --

    def _write_small(self, game: SkybirdsGame) -> None:
        """Phase, step, Campaign, Armistice, Garros, the table, whose turn and the
        passes: compared with what the store shows, and only changes written."""
        store, n = self.store, self.n
        over = game.phase == Phase.OVER
        phase_step = (-1, -1) if over else (int(game.phase), int(game.step))
        shown = self._shown
        if phase_step != shown[0]:
            old = shown[0]
            if old[0] >= 0:
                store[old[0]] = 0.0
                store[NUM_PHASES + old[1]] = 0.0
            if not over:
                store[phase_step[0]] = 1.0
                store[NUM_PHASES + phase_step[1]] = 1.0
            shown[0] = phase_step
        flags = (game.campaign, game.armistice_by >= 0, game.garros_due)
        if flags != shown[1]:
            at = self.at["campaign"]
            store[at : at + 3] = (
                game.campaign / self.max_campaigns,
                float(flags[1]),
                float(flags[2]),
            )
            shown[1] = flags
        table = game.table
        table_key = (table, game.squadron_size)
        if table_key != shown[2]:
            at = self.at["table"]
            old = shown[2][0]
            if old is not None:
                store[self.at["table_player"] + old.player] = 0.0
            if table is None:
                store[at : at + 5] = 0.0
            else:
                store[at : at + 5] = (
                    1.0,
                    table.size / MAX_SQUADRON,
                    table.value / 10,
                    table.medallions * self.medallion_scale,
                    game.squadron_size / MAX_SQUADRON,
                )
                store[self.at["table_player"] + table.player] = 1.0
            shown[2] = table_key
        actor = -1 if over else game.actor
        if actor != shown[3]:
            at = self.at["to_act"]
            if shown[3] >= 0:
                store[at + shown[3]] = 0.0
            if actor >= 0:
                store[at + actor] = 1.0
            shown[3] = actor
        passed = tuple(game.passed) if game.passed else (False,) * n
        if passed != shown[4]:
            at = self.at["passed"]
            store[at : at + n] = passed
            shown[4] = passed

    def _write_hand(self, game: SkybirdsGame, seat: int) -> None:
        base = self._private(seat, "hand")
        inv = self.inv_deck
        self.store[base : base + NUM_KINDS] = [c * inv[k] for k, c in enumerate(game.hands[seat])]
        self.store[self.at["cards_left"] + seat] = game.left[seat] * self.hand_scale

    def _write_played(self, game: SkybirdsGame) -> None:
        base, inv = self.at["played"], self.inv_deck
        self.store[base : base + NUM_KINDS] = [c * inv[k] for k, c in enumerate(game.played)]

    def _write_tokens(self, game: SkybirdsGame) -> None:
        """Tokens, Pre-Campaign uses, +1VP, fractional tokens and VP of every seat."""
        n, k, store, at = self.n, self.k, self.store, self.at
        for s in range(n):
            row = [0.0] * (2 * k)
            for i, state in enumerate(game.tokens[s]):
                if state != MAT:
                    row[2 * i + (state == BACK)] = 1.0
            base = at["tokens"] + s * 2 * k
            store[base : base + 2 * k] = row
            used = game.pre_used[s] if game.pre_used else 0
            base = at["pre_used"] + s * k
            store[base : base + k] = [float(used >> i & 1) for i in range(k)]
            store[at["plus_one"] + s] = game.plus_one[s] / PLUS_ONE_TOKENS
            base = at["fractional"] + 3 * s
            store[base : base + 3] = [float(game.fractional[s] == f) for f in range(3)]
            store[at["vp"] + s] = game.vp(s) * self.vp_scale
        base = at["fractional_left"]
        store[base : base + 3] = [float(f in game.pool) for f in range(3)]

    def _write_places(self, game: SkybirdsGame) -> None:
        n, base = self.n, self.at["place"]
        places = [0.0] * (n * n)
        for place, s in enumerate(game.finish):
            places[s * n + place] = 1.0
        self.store[base : base + n * n] = places

    def _write_pending(self, game: SkybirdsGame) -> None:
        """The move being built, in the private block of the player to act."""
        store = self.store
        if self._pending_seat >= 0:
            lo = self._private(self._pending_seat, "pending_tokens")
            hi = self.private_start + (self._pending_seat + 1) * self.private_width
            store[lo:hi] = 0.0
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
            store[base + kind] = game.pend_cards.count(kind) * self.inv_deck[kind]
        if game.pend_wild:
            store[self._private(seat, "pending_wild") + game.pend_wild - 1] = 1.0
        if game.pend_token >= 0:
            store[self._private(seat, "pending_swap") + game.pend_token] = 1.0
        if game.pend_target >= 0:
            rel = (game.pend_target - seat) % self.n
            store[self._private(seat, "pending_target") + rel] = 1.0


# ---- views -----------------------------------------------------------------------


def _squadron_view(s: Squadron | None, agents: list[str], names: tuple[str, ...]) -> Any:
    if s is None:
        return None
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
        "hand": data.cards_text(game.hands[seat]),
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
        "played": data.cards_text(game.played),
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
