"""Astrobirdz: content (:mod:`.data`), action ids (:mod:`.actions`), rules engine
(:mod:`.rules`), env (:mod:`.env`) and heuristic bot (:mod:`.bots`)."""
