"""CLI: ``tilescope VERB`` — ``dispatch.main`` hands each verb to its module in ``commands/``;
the last job, it may launch every other program (serve, stream, batch).
Exports ``main`` and ``COMMANDS``; ``python -m vision.cli`` runs it."""
from vision.common.lazy import lazy_exports

_EXPORTS = {"main": "dispatch", "COMMANDS": "dispatch"}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS, fallback="dispatch")
