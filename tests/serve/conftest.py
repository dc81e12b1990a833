"""Fixtures of the server tests: an app on a temporary data folder, a models
folder holding small untrained checkpoints, and a client that checks every
state a seat is sent against that seat's view (see serve_helpers.py)."""

import warnings

import pytest

# Starlette's test client prefers a newer HTTP client package; httpx works.
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")

from serve_helpers import make_client, models_folder  # noqa: E402


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("catalogue") / "models"
    folder.mkdir()
    return models_folder(folder)


@pytest.fixture
def client(tmp_path, models_dir):
    with make_client(tmp_path / "games", [models_dir]) as test_client:
        yield test_client
