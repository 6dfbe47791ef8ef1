"""The .pyi stubs name what the package exports, with the same parameters."""
import ast
import inspect
import pathlib

import scangen

STUB = pathlib.Path(scangen.__file__).with_name("__init__.pyi")


def stub_functions():
    tree = ast.parse(STUB.read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out.setdefault(node.name, node)
        elif isinstance(node, ast.ClassDef):
            out[node.name] = node
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef):
                    out.setdefault(f"{node.name}.{sub.name}", sub)
    return out


def parameters(node):
    a = node.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]


def test_stubs_match_the_package():
    stubs = stub_functions()
    assert set(scangen.__all__) <= set(stubs) | {"ScanError"}
    for name in scangen.__all__:
        obj = getattr(scangen, name)
        if inspect.isfunction(obj):
            assert parameters(stubs[name]) == list(inspect.signature(obj).parameters), name
    call = list(inspect.signature(scangen.Scan.__call__).parameters)
    assert parameters(stubs["Scan.__call__"]) == call
