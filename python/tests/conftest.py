"""Shared fixtures for the nvfp4 Python tests.

Run from a build tree with
  PYTHONPATH=<build>/python_packages python3 -m pytest python/tests
or after `pip install ./python` with plain `python3 -m pytest python/tests`.
"""

import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(20250929)
