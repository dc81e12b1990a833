"""Shared test settings: hypothesis profiles (``fast`` default, ``thorough`` for
the slow run, chosen with HYPOTHESIS_PROFILE), and the check that the suite
leaves the checkout as it found it (``checkout_guard.py``)."""

import os
from pathlib import Path

import pytest
from checkout_guard import CheckoutGuard
from hypothesis import HealthCheck, settings

settings.register_profile(
    "fast", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(
        CheckoutGuard(Path(__file__).resolve().parent.parent), "flockgym-checkout-guard"
    )
