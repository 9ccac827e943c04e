"""Photo: one photo judged — read, laid out, corrected in named steps, scored or ruled on
(``pipeline.score_photo``), then warned about, reported (``report``) and drawn (``annotate``).
Exports what the programs use: ``score_photo``, ``check_photo``, ``PhotoResult``, ``PhotoError``."""
from vision.common.lazy import lazy_exports

_EXPORTS = {"score_photo": "api", "check_photo": "api", "PhotoResult": "pipeline",
            "PhotoError": "judging", "Reading": "judging", "photo_report": "report"}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
