"""A package's exports loaded when first asked for: importing a job package (``vision.read``)
must not load OpenCV, onnxruntime or FastAPI until one of its names is used."""
from __future__ import annotations

from importlib import import_module
from typing import Any, Callable


def lazy_exports(package: str, exports: dict[str, str],
                 fallback: str | None = None) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``exports`` maps a name to the submodule (relative
    to ``package``) that defines it; ``fallback``: the submodule asked for any other public name
    (the module that the package's name stood for before issue 41, e.g. ``vision.server``)."""
    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None and fallback and not name.startswith("_"):
            module = fallback
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        try:
            return getattr(import_module(f"{package}.{module}"), name)
        except AttributeError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
    return __getattr__
