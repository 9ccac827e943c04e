"""The packages' import graph has no circle, and the scoring core never imports the vision side.

Every ``import`` and ``from … import`` in ``vision/`` and ``scoring/`` is read with :mod:`ast`,
those inside functions too (a lazy import is still a dependency: it only moves the circle to run
time). An edge goes to the module named; ``from pkg import name`` goes to ``pkg.name`` when that
is a module of ours, else to ``pkg``. A package's own ``__init__`` is not counted as imported by
its submodules (Python runs it first, but it is not what the submodule depends on).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("vision", "scoring")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _resolve(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from … import`` names (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph() -> dict[str, set[str]]:
    """Each of our modules → the modules of ours it imports (anywhere in its body)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, path.name == "__init__.py", node)
                for a in node.names:
                    sub = f"{base}.{a.name}" if base else a.name
                    targets.add(sub if sub in modules else base)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_is_read():
    graph = import_graph()
    assert "vision.cli.commands.score" in graph and "scoring.api" in graph
    # a function-level import is an edge (vision.cli.commands.score imports the pipeline lazily)
    assert "vision.photo.pipeline" in graph["vision.cli.commands.score"]
    # a relative import is resolved
    assert "vision.layout" in graph["vision.photo.report"]


def test_no_import_circle():
    assert _cycles(import_graph()) == []


def test_scoring_never_imports_vision():
    graph = import_graph()
    bad = {m: sorted(t for t in ts if t.split(".")[0] == "vision")
           for m, ts in graph.items() if m.split(".")[0] == "scoring"}
    assert {m: ts for m, ts in bad.items() if ts} == {}


def test_only_the_command_line_imports_its_commands():
    # parsing (vision.layout.fixspec) and formatting (vision.photo.report) the server and the pipeline share
    # live outside the CLI's verbs: only the CLI itself (vision.cli.dispatch) may import vision.cli.commands
    graph = import_graph()
    users = {m: sorted(t for t in ts if t.startswith("vision.cli.commands"))
             for m, ts in graph.items()
             if m != "vision.cli.dispatch" and not m.startswith("vision.cli.commands")}
    assert {m: ts for m, ts in users.items() if ts} == {}


# vision/'s job packages in pipeline order (issue 41). A module may import its own job and the jobs
# before it, never one after: ``common`` is plumbing any job may use; ``read`` gives detections,
# ``layout`` lays them out, ``photo`` judges a photo; then the programs, each of which may use the
# ones before it — the offline page answers the server's API with the server's own functions,
# the stream's overlay is served through the server's guard and origin checks, batch reads
# videos with the stream reader, and the CLI launches them all.
JOBS = ("common", "read", "layout", "photo", "server", "offline", "stream", "batch", "cli")


def _job(module: str) -> int:
    """The job of a vision module: its package's place in JOBS (``vision`` itself, which only
    re-exports ``score_photo`` and ``check_photo``, stands with ``photo``)."""
    parts = module.split(".")
    return JOBS.index(parts[1] if len(parts) > 1 else "photo")


def test_every_vision_module_is_in_a_job_package():
    loose = [m for m in _modules() if m.startswith("vision.") and m.split(".")[1] not in JOBS]
    assert loose == []


def test_vision_imports_run_one_way_between_the_jobs():
    graph = import_graph()
    backwards = {m: sorted(t for t in ts if t.split(".")[0] == "vision" and _job(t) > _job(m))
                 for m, ts in graph.items() if m.split(".")[0] == "vision"}
    assert {m: ts for m, ts in backwards.items() if ts} == {}


def test_the_direction_rule_sees_a_backward_import():
    # the check above is not vacuous: the pipeline imports the reader, not the other way round
    graph = import_graph()
    assert "vision.read.detector" in graph["vision.photo.pipeline"]
    assert _job("vision.photo.pipeline") > _job("vision.read.detector")
