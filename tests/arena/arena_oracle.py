"""An independent legality oracle for the Arena: the legal action strings of the
player to act, worked out from its ``view`` (what any player sees) and the box's
content, written from the rulebook apart from the engine's legality code (it
shares no function with ``flockgym.envs.arena``'s rules modules). The property
tests compare it with the env's mask at every step of many random games."""

from __future__ import annotations

from typing import Any

from flockgym.envs.arena.data import Box

CONTEXT = {"pre_roll": "pre", "move_spend": "post", "challenge_spend": "challenge",
           "defend_spend": "defence"}  # fmt: skip
MEDAL_DIE_USE = {"pre": "movement", "challenge": "challenge", "defence": "defence"}


def legal_strings(view: dict[str, Any], box: Box) -> set[str]:
    """The legal actions of ``view["to_act"]`` as strings."""
    me = view["to_act"]
    if me is None:
        return set()
    phase = view["phase"]
    if phase == "corner":
        return {f"corner {i}" for i in range(1, len(box.corners) + 1)}
    if phase == "wish":  # any character no seat has, of the seat's scenario form if any
        taken = {p["character"] for p in view["players"].values()}
        form = _me(view)["form"]
        return {f"wish {c.name}" for c in box.characters if c.name not in taken
                and (form is None or c.invazorz == (form == "invazorz"))}  # fmt: skip
    if phase in CONTEXT:
        return _spend(view, box, CONTEXT[phase])
    if phase == "move":
        return _move(view, box)
    if phase == "action":
        return _action(view, box)
    if phase == "gym_card":
        return {"train", "end"}
    return _pick(view, box)


# ---- helpers on the view ----------------------------------------------------------------


def _me(view: dict[str, Any]) -> dict[str, Any]:
    return view["players"][view["to_act"]]


def _others(view: dict[str, Any]) -> list[str]:
    return [a for a in view["players"] if a != view["to_act"]]


def _open_cards(player: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind, name) of the cards a challenger may take from ``player``."""
    out = [("maneuver", m) for m in player["maneuvers"]]
    out += [("world", w) for w in player["worlds"] if w not in player["defended_worlds"]]
    return out


def _space(view: dict[str, Any], sid: int) -> dict[str, Any]:
    return view["board"]["spaces"][sid]


# ---- phases ------------------------------------------------------------------------------------


def _spend(view: dict[str, Any], box: Box, ctx: str) -> set[str]:
    me = _me(view)
    out = {"roll"} if ctx == "pre" else {f"spend {k}" for k in range(me["trophies"] + 1)}
    for gym_name in set(me["gym_powers"]):
        power = next(g.power for g in box.gyms if g.name == gym_name)
        usable = {
            "transform": ctx != "post" and me["form"] == "astrobirdz",
            "bonus": (power.roll, ctx)
            in {("movement", "post"), ("challenge", "challenge"), ("defence", "defence")},
            "trophies": view["supply"] > 0,
            "gold_reading": ctx in ("challenge", "defence")
            and not me["roll_prep"]["gold_reading"]
            and "gold" not in me["medals"],
            "extra_die": ctx == "challenge",
        }[power.kind]
        if usable:
            out.add(f"use {gym_name}")
    use = MEDAL_DIE_USE.get(ctx)
    if use and not (ctx == "pre" and me["first_turn"]):
        for name in me["medal_cards"]:
            card = next(m for m in box.medal_cards if m.name == name)
            if use in card.extra_die and name not in me["roll_prep"]["medal_dice"]:
                out.add(f"add {name}")
    return out


def _move(view: dict[str, Any], box: Box) -> set[str]:
    me = _me(view)
    here = _space(view, me["position"])
    steps, entered = view["steps_left"], view["entered"]
    out = {f"to {x}" for x in here["next"]} if steps > 0 else set()
    if entered and steps > 0:
        others_here = [a for a in here["players"] if a != view["to_act"]]
        if any(_open_cards(view["players"][a]) for a in others_here):
            out.add("stop")
    if entered and here["kind"] == "slide":
        out.add("slide")
        if steps == 0:
            out.add("stay")
        if me["form"] == "astrobirdz":  # a transform power before the slide roll
            for gym in box.gyms:
                if gym.power.kind == "transform" and gym.name in me["gym_powers"]:
                    out.add(f"use {gym.name}")
    return out


def _action(view: dict[str, Any], box: Box) -> set[str]:
    me = _me(view)
    here = _space(view, me["position"])
    out: set[str] = set()
    others_here = [a for a in here["players"] if a != view["to_act"]]
    if view["forced_target"]:
        targets = [view["forced_target"]]
    elif view["stopped"]:
        targets = [a for a in others_here if _open_cards(view["players"][a])]
    else:
        targets = others_here
        out.add("end")
        first = me["first_turn"] or view["round"] == 0  # new turns inside it too
        first_turn_home = first and me["start_corner"] == here["id"]
        if here["kind"] == "gym" and here["gym_power_cards"] > 0 and not first_turn_home:
            out.add("train")
        if here.get("medal_card"):
            out.add("challenge medal")
        card = here.get("card")
        if card:
            kind = "world" if card in {c.name for c in box.cards if c.is_world} else "maneuver"
            if kind == "maneuver" or len(me["maneuvers"]) >= box.maneuvers_for_worlds:
                out.add(f"challenge {kind} {card}")
    for target in targets:
        for kind, name in _open_cards(view["players"][target]):
            out.add(f"challenge {target} {kind} {name}")
    return out


def _pick(view: dict[str, Any], box: Box) -> set[str]:
    task = view["task"]
    me = _me(view)
    spaces = view["board"]["spaces"]
    others = _others(view)
    every = {f"to {s['id']}" for s in spaces}
    inside = {f"to {s['id']}" for s in spaces if s["region"] == "inside"}
    corners = {f"to {c}" for c in view["board"]["corners"]}
    board_maneuvers = {
        f"pick {s['card']}" for s in spaces if s["kind"] == "maneuver" and s.get("card")
    }
    board_worlds = {f"pick {s['card']}" for s in spaces if s["kind"] == "world" and s.get("card")}
    if task in ("slide_lose_maneuver", "asteroid_discard"):
        return {f"pick {m}" for m in me["maneuvers"]}
    if task == "slide_lose_world":
        return {f"pick {w}" for w in me["worlds"]}
    if task == "slide_return":
        card = view["task_card"]
        kind = "world" if card in {c.name for c in box.cards if c.is_world} else "maneuver"
        of_kind = [s for s in spaces if s["kind"] == kind]
        empty = [s for s in of_kind if not s.get("card") and not s.get("medal_card")]
        free = empty or [s for s in of_kind if s.get("medal_card")]
        return {f"place {s['id']}" for s in free}
    if task == "slide_take_trophy":
        return {a for a in others if view["players"][a]["trophies"] > 0}
    if task == "slide_take_world":
        return {f"pick {w}" for a in others for w in view["players"][a]["worlds"]}
    if task in ("slide_new_turn", "wormhole_anywhere", "zoominium_anywhere"):
        return every
    if task in ("slide_gym", "nova_gym"):
        return corners
    if task == "nova_turn_back":
        return {a for a in others if view["players"][a]["form"] == "berzerkerbirdz"} | {"end"}
    if task in ("black_hole_inside", "black_hole_place", "wormhole_inside"):
        return inside
    if task in ("black_hole_world", "zoominium_world"):
        return board_worlds
    if task in ("dark_matter_maneuver", "space_time_maneuver", "zoominium_maneuver"):
        return board_maneuvers
    if task in ("dark_matter_other", "wormhole_player"):
        return set(others)
    if task == "wormhole_place":
        return {f"place {s['id']}" for s in spaces}
    if task in ("star_cluster_become", "nova_become"):
        taken = {view["players"][a]["character"] for a in others}
        want_invazorz = me["form"] != "invazorz"
        return {f"become {c.name}" for c in box.characters
                if c.invazorz == want_invazorz and c.name not in taken}  # fmt: skip
    if task == "space_time_target":
        able = [a for a in others if _open_cards(view["players"][a])]
        return set(able or others)
    raise AssertionError(f"the oracle does not know task {task!r}")
