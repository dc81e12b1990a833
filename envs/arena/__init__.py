"""Berzerkerbirdz Extreme Sports Arena: the box (:mod:`.data`, ``arena.yaml``),
action ids (:mod:`.actions`), rules engine (:mod:`.rules` with :mod:`.setup`,
:mod:`.dice`, :mod:`.movement`, :mod:`.encounters`, :mod:`.challenges`),
observation and view (:mod:`.observer`), env (:mod:`.env`) and heuristic bot
(:mod:`.bots`)."""
