"""Asrus: rules engine (:mod:`.rules`), content (:mod:`.data`), env (:mod:`.env`)
and heuristic bot (:mod:`.bots`)."""
