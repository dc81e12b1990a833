"""Skybirds: content (:mod:`.data`), action ids (:mod:`.actions`), rules engine
(:mod:`.rules`), observations and views (:mod:`.observer`), env (:mod:`.env`)
and heuristic bot (:mod:`.bots`)."""
