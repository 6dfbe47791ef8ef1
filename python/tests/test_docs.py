"""Every ```python block of docs/python.md and README.md runs and its asserts hold."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def python_blocks(doc):
    text = (ROOT / doc).read_text()
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)


BLOCKS = [(doc, i, code) for doc in ("docs/python.md", "README.md") for i, code in enumerate(python_blocks(doc))]


def test_the_docs_have_examples():
    assert len([b for b in BLOCKS if b[0] == "docs/python.md"]) >= 5
    assert len([b for b in BLOCKS if b[0] == "README.md"]) == 1


def needs_gpu(code):
    """Blocks that start with '# needs: a CUDA GPU and PyTorch' run where scangen and PyTorch have one."""
    if not code.startswith("# needs: a CUDA GPU and PyTorch"):
        return None
    try:
        import torch
    except ImportError:
        return "needs a CUDA GPU and PyTorch (torch is not installed)"
    import scangen
    if not torch.cuda.is_available() or scangen.runtime_info()["backend"] != "cuda":
        return "needs a CUDA GPU (none here)"
    return None


def missing_module(code):
    """The optional package a block imports (Dask, mpi4py, JAX) where it is not installed, or None: the README's
    set-up installs them; a machine without them (the GPU machine) skips the block and says why."""
    import importlib.util
    for name in ("dask", "mpi4py", "jax"):
        if re.search(rf"^\s*(import|from)\s+{name}\b|,\s*{name}\b", code, flags=re.M) and \
                importlib.util.find_spec(name) is None:
            return f"needs {name} (not installed here; scripts/setup-deps installs it)"
    return None


@pytest.mark.parametrize("doc,index,code", BLOCKS, ids=[f"{d}[{i}]" for d, i, _ in BLOCKS])
def test_example(doc, index, code, monkeypatch):
    reason = needs_gpu(code) or missing_module(code)
    if reason:
        pytest.skip(reason)
    monkeypatch.chdir(ROOT)  # the examples name files under examples/
    exec(compile(code, f"{doc} block {index}", "exec"), {"__name__": "__doc_example__"})
