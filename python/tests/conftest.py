"""Shared set-up: the caches under the repository's build/ folder, a seed per test."""
import os
import pathlib

import numpy as np
import pytest

_build = pathlib.Path(__file__).resolve().parents[2] / "build"
# The runtime's disk cache and PoCL's: compiled kernels survive between runs.
os.environ.setdefault("SCANGEN_CACHE_DIR", str(_build / "python-cache"))
os.environ.setdefault("POCL_CACHE_DIR", str(_build / "pocl-cache"))

# Every size class: empty, one, around powers of two, and more than one tile.
SIZES = [0, 1, 2, 31, 33, 255, 257, 1023, 1025, 4097, 20001]


@pytest.fixture
def rng(request):
    """A NumPy generator; its seed (SCANGEN_TEST_SEED, else random) is printed when the test fails."""
    seed = int(os.environ.get("SCANGEN_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
    request.node.user_properties.append(("seed", seed))
    return np.random.default_rng(seed), seed


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for name, value in item.user_properties:
            if name == "seed":
                report.sections.append(("seed", f"SCANGEN_TEST_SEED={value} reproduces this test's data"))
