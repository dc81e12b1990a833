"""Fixtures of the training tests (helpers live in training_helpers.py)."""

from training_helpers import env_id

__all__ = ["env_id"]
