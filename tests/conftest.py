"""Shared test settings: hypothesis profiles (``fast`` default, ``thorough`` for
the slow run, chosen with HYPOTHESIS_PROFILE)."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "fast", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))
