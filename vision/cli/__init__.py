"""CLI: ``tilescope VERB`` — ``main`` dispatches to one module per verb in ``commands/``; the
last job, it may launch every other program (serve, stream, batch).
Exports ``main`` and ``COMMANDS``; ``python -m vision.cli`` runs it."""
from vision.common.lazy import lazy_exports

_EXPORTS = {"main": "main", "COMMANDS": "main"}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS, fallback="main")
