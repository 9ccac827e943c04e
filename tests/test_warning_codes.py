"""The warning codes ``LayoutWarning``'s docstring lists are the codes vision/ emits: each
``LayoutWarning(code, ...)`` and ``renamed_warning(layout, tiles, code, ...)`` call with its code
written out, found by walking every module's syntax tree (docs/pipeline.md and the JSON's
readers rely on the list)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from vision.layout import LayoutWarning

VISION = Path(__file__).resolve().parent.parent / "vision"
# calls that make a warning, and the position of their code argument
MAKERS = {"LayoutWarning": 0, "renamed_warning": 2}


def _emitted() -> tuple[set[str], list[str]]:
    """The codes written out in the calls of :data:`MAKERS`, and where a code is not."""
    codes, unwritten = set(), []
    for path in sorted(VISION.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name not in MAKERS:
                continue
            at = MAKERS[name]
            arg = node.args[at] if len(node.args) > at else next(
                (k.value for k in node.keywords if k.arg == "code"), None)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                codes.add(arg.value)
            else:
                unwritten.append(f"{path.relative_to(VISION.parent)}:{node.lineno}")
    return codes, unwritten


def test_the_docstring_lists_the_codes_emitted():
    codes, unwritten = _emitted()
    doc = LayoutWarning.__doc__
    listed = set(re.findall(r"``([a-z_]+)``", doc[doc.index("``code``"):doc.index("``message``")]))
    listed.discard("code")
    # the one call whose code is a parameter: renamed_warning itself (vision/layout/grouping.py)
    assert unwritten == [next(u for u in unwritten if u.startswith("vision/layout/grouping.py"))]
    assert "not_flowers" in codes and "doubled" in codes and "repair_refused" in codes
    assert listed == codes, (sorted(listed - codes), sorted(codes - listed))
