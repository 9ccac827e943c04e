"""No function in ``scoring/`` or ``vision/`` is over 60 lines unless its docstring says why.

The project's rule (STYLE.md, issue 34): a function is a named step a reader takes in at once;
one that must stay long (a hot loop, one decision table) says so with the words "long because"
and the reason. Every ``def`` is read with :mod:`ast`, methods and nested functions too; its
length runs from the ``def`` line to its last line, docstring and comments included.
"""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("scoring", "vision")
MAX_LINES = 60
REASON = "long because"


def long_functions(source: str, name: str = "<source>") -> list[str]:
    """``name:line function (N lines)`` for each function of ``source`` over MAX_LINES lines
    whose docstring lacks REASON."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        lines = node.end_lineno - node.lineno + 1
        if lines > MAX_LINES and REASON not in (ast.get_docstring(node) or "").lower():
            out.append(f"{name}:{node.lineno} {node.name} ({lines} lines)")
    return out


def test_no_long_function_without_its_reason():
    found = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            found += long_functions(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not found, ("functions over 60 lines: cut them into named steps, or say in the "
                       "docstring why they are 'long because' …:\n" + "\n".join(found))


def _function(body_lines: int, doc: str, indent: str = "") -> str:
    """A function of 1 (def) + 1 (docstring) + ``body_lines`` lines."""
    body = "".join(f"    x{i} = {i}\n" for i in range(body_lines))
    return textwrap.indent(f'def f():\n    """{doc}"""\n{body}', indent)


def test_the_walk_flags_a_long_function_and_spares_one_with_its_reason():
    # 61 lines: def + docstring + 59 statements; 60 lines is within the rule
    assert long_functions(_function(59, "Add up.")) == ["<source>:1 f (61 lines)"]
    assert long_functions(_function(58, "Add up.")) == []
    assert long_functions(_function(59, "Add up. Long because it is a hot loop.")) == []
    # methods and nested functions count too
    method = "class C:\n" + _function(59, "Add up.", "    ")
    assert long_functions(method) == ["<source>:2 f (61 lines)"]
    nested = "def outer():\n" + _function(59, "Add up.", "    ")
    assert [s.split(" ")[1] for s in long_functions(nested)] == ["outer", "f"]
