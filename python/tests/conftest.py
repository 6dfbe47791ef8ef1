"""Shared set-up: the caches under the repository's build/ folder, a seed per test, the test tier."""
import os
import pathlib
import random

import numpy as np
import pytest

_build = pathlib.Path(__file__).resolve().parents[2] / "build"
# The runtime's disk cache and PoCL's: compiled kernels survive between runs.
os.environ.setdefault("SCANGEN_CACHE_DIR", str(_build / "python-cache"))
os.environ.setdefault("POCL_CACHE_DIR", str(_build / "pocl-cache"))
# PoCL's generic work-group functions only: by default PoCL compiles each kernel twice, once when the runtime
# asks for the program's binary (its disk cache) and again, specialised, at its first launch. (Not for the
# generator's tests, which build programs without asking for binaries: there the generic build costs more.)
os.environ.setdefault("POCL_WORK_GROUP_SPECIALIZATION", "0")

# One seed for the whole run (pytest-xdist's workers inherit it from here):
# it draws the quick tier's sample and every test's data.
os.environ.setdefault("SCANGEN_TEST_SEED", str(random.SystemRandom().randrange(2**32)))
FULL_TIER = os.environ.get("SCANGEN_TEST_FULL", "") not in ("", "0")

# Every size class: empty, one, around powers of two, and more than one tile.
SIZES = [0, 1, 2, 31, 33, 255, 257, 1023, 1025, 4097, 20001]


@pytest.fixture
def rng(request):
    """A NumPy generator; its seed (SCANGEN_TEST_SEED, else random) is printed when the test fails."""
    seed = int(os.environ["SCANGEN_TEST_SEED"], 0)
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


def pytest_collection_modifyitems(config, items):
    """The quick tier (scripts/test; tests/support/test_tier.h is the C++ side):
    of each parametrized test, a sixth of its cases (at least one), drawn
    with the seed, those that bring a parameter value not yet kept first; the
    rest deselected. The docs' examples (test_docs.py) always run all.
    SCANGEN_TEST_FULL=1 keeps every case."""
    if FULL_TIER:
        return
    seed = os.environ["SCANGEN_TEST_SEED"]
    groups = {}
    for item in items:
        if hasattr(item, "callspec") and item.module.__name__.rsplit(".", 1)[-1] != "test_docs":
            groups.setdefault(item.nodeid.split("[")[0], []).append(item)
    deselected = []
    for name, group in groups.items():
        order = list(group)
        random.Random(f"{seed}:{name}").shuffle(order)
        budget = max(1, -(-len(order) // 6))
        covered, kept = set(), []
        for item in order:  # first those that bring a new parameter value
            values = {(k, repr(v)) for k, v in item.callspec.params.items()}
            if values - covered and len(kept) < budget:
                covered |= values
                kept.append(item)
        for item in order:  # then any, up to the budget
            if item not in kept and len(kept) < budget:
                kept.append(item)
        deselected += [item for item in group if item not in kept]
    if deselected:
        dropped = set(map(id, deselected))
        items[:] = [item for item in items if id(item) not in dropped]
        config.hook.pytest_deselected(items=deselected)


def pytest_report_header(config):
    tier = "full" if FULL_TIER else "quick: a sixth of each parametrized test's cases, drawn; the rest deselected"
    return f"scangen test tier: {tier}; SCANGEN_TEST_SEED={os.environ['SCANGEN_TEST_SEED']}"
