"""Fixtures of the training tests (helpers live in training_helpers.py)."""

from training_helpers import env_id, read_only_folder

__all__ = ["env_id", "read_only_folder"]
