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


@pytest.mark.parametrize("doc,index,code", BLOCKS, ids=[f"{d}[{i}]" for d, i, _ in BLOCKS])
def test_example(doc, index, code, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples name files under examples/
    exec(compile(code, f"{doc} block {index}", "exec"), {"__name__": "__doc_example__"})
