"""scangen.mpi: scans across MPI ranks, run under mpirun with 1 to 5 ranks (mpi_check.py compares every
rank's part with the scan of the whole array)."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("mpi4py", reason="needs mpi4py (scripts/setup-deps installs it)")
MPIRUN = shutil.which("mpirun")


def mpirun(ranks):
    cmd = [MPIRUN, "--oversubscribe", "-n", str(ranks)]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


def launch_problem():
    """Why mpirun cannot start Python ranks here (None where it can): a machine without MPI is skipped, and
    says so, rather than counted as a pass or a scangen failure."""
    if MPIRUN is None:
        return "needs mpirun (Open MPI: scripts/setup-deps installs it)"
    for _attempt in range(2):  # a machine busy with the other tests has failed one start without a word
        probe = subprocess.run(mpirun(2) + [sys.executable, "-c", "from mpi4py import MPI; MPI.COMM_WORLD.Barrier()"],
                               capture_output=True, text=True, timeout=300)
        if probe.returncode == 0:
            return None
    return (f"mpirun cannot start 2 Python ranks here (exit {probe.returncode}): "
            f"{(probe.stderr or probe.stdout).strip()[:300]}")


@pytest.mark.parametrize("ranks", [1, 2, 3, 5])
def test_ranks(ranks, rng):
    problem = launch_problem()
    if problem:
        pytest.skip(problem)
    _rng, seed = rng
    script = pathlib.Path(__file__).with_name("mpi_check.py")
    run = subprocess.run(mpirun(ranks) + [sys.executable, str(script), str(seed)], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"mpi_check: {ranks} ranks, ok" in run.stdout


@pytest.mark.parametrize("ranks", [1, 2, 3, 5, 8])
def test_segments_span_ranks(ranks, rng):
    """Segmented scans (flags=, offsets=, local to each part) whose segments span ranks (mpi_segmented_check.py)."""
    problem = launch_problem()
    if problem:
        pytest.skip(problem)
    _rng, seed = rng
    script = pathlib.Path(__file__).with_name("mpi_segmented_check.py")
    run = subprocess.run(mpirun(ranks) + [sys.executable, str(script), str(seed)], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"mpi_segmented_check: {ranks} ranks, ok" in run.stdout


def cuda_problem(kind):
    """Why the ranks cannot hold `kind` CUDA arrays here (None where they can)."""
    try:
        lib = __import__(kind)
    except ImportError:
        return f"needs a CUDA GPU and {kind} ({kind} is not installed)"
    try:
        ok = lib.cuda.is_available() if kind == "torch" else lib.cuda.runtime.getDeviceCount() > 0
    except Exception:  # CuPy without a driver raises rather than counting none
        ok = False
    return None if ok else "needs a CUDA GPU (none here)"


@pytest.mark.parametrize("ranks,kind", [(1, "torch"), (3, "torch"), (2, "cupy")])
def test_ranks_on_the_gpu(ranks, kind, rng):
    """Every rank's part a CUDA array of `kind`, the ranks sharing the GPU (each its own CUDA context)."""
    problem = cuda_problem(kind) or launch_problem()
    if problem:
        pytest.skip(problem)
    _rng, seed = rng
    script = pathlib.Path(__file__).with_name("mpi_check.py")
    run = subprocess.run(mpirun(ranks) + [sys.executable, str(script), str(seed), kind], capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"mpi_check: {ranks} ranks ({kind}), ok" in run.stdout


def test_refusals():
    from mpi4py import MPI
    import numpy as np
    import scangen
    import scangen.mpi
    s = scangen.compile("scan sum_mpi { type = f64; op = add; level = device; }")
    with pytest.raises(ValueError, match="1-D"):
        scangen.mpi.scan(MPI.COMM_SELF, s, np.zeros((2, 2)))
    index = scangen.compile("scan index_mpi { type = u64; input = u8; convert(v, i) = i; op = add; level = device; }")
    with pytest.raises(scangen.ScanError, match="reads the element's index"):
        scangen.mpi.scan(MPI.COMM_SELF, index, np.zeros(3, np.uint8))
    with pytest.raises(NotImplementedError, match="keys= are not carried across ranks"):
        scangen.mpi.scan(MPI.COMM_SELF, s, np.zeros(3), keys=np.zeros(3, np.int32))
    with pytest.raises(TypeError, match="one of offsets=, flags= and keys="):
        scangen.mpi.scan(MPI.COMM_SELF, s, np.zeros(3), flags=np.ones(3, np.uint8), offsets=np.array([0, 3]))
    with pytest.raises(ValueError, match="offsets= must go from 0"):
        scangen.mpi.scan(MPI.COMM_SELF, s, np.zeros(3), offsets=np.array([0, 2]))
    with pytest.raises(ValueError, match="one entry per element"):
        scangen.mpi.scan(MPI.COMM_SELF, s, np.zeros(3), flags=np.ones(2, np.uint8))
