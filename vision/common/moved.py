"""The module paths that issue 41 moved into job packages, still importable for one release:
``import vision.pipeline`` gives :mod:`vision.photo.pipeline` itself (the same module object, so a
patch on either name is seen by both) and a :class:`DeprecationWarning` naming the new path.
Installed by ``vision/__init__.py``; goes in the release after next."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

# old path under vision. → new path under vision. (a package moves with its modules)
MOVED = {
    "annotate": "photo.annotate",
    "api": "photo.api",
    "banner": "photo.banner",
    "classes": "read.classes",
    "commands": "cli.commands",
    "control": "stream.control",
    "corrections": "photo.corrections",
    "detections": "read.detections",
    "detector": "read.detector",
    "filekind": "common.filekind",
    "fixspec": "layout.fixspec",
    "frame_change": "stream.frame_change",
    "game_file": "server.game_file",
    "grouping": "layout.grouping",
    "held_ruling": "photo.held_ruling",
    "imageio": "read.imageio",
    "inplay": "photo.inplay",
    "joint_fix": "photo.joint_fix",
    "jsontext": "common.jsontext",
    "judging": "photo.judging",
    "ledger": "server.ledger",
    "livecontext": "stream.livecontext",
    "overlay": "stream.overlay",
    "photo_warnings": "photo.photo_warnings",
    "pipeline": "photo.pipeline",
    "progress": "common.progress",
    "read_plan": "stream.read_plan",
    "reflections": "read.reflections",
    "report": "photo.report",
    "routes": "server.routes",
    "rows": "read.rows",
    "safe_files": "common.safe_files",
    "set_learning": "read.set_learning",
    "tile_counts": "read.tile_counts",
    "tile_crops": "read.tile_crops",
    "tileset": "read.tileset",
    "userdata": "common.userdata",
    "validation": "common.validation",
    "zoom": "read.zoom",
}


def new_path(fullname: str) -> str | None:
    """The new name of an old ``vision.…`` module path, or None when it did not move."""
    if not fullname.startswith("vision."):
        return None
    old = fullname[len("vision."):]
    head, _, rest = old.partition(".")
    if old in MOVED:
        return "vision." + MOVED[old]
    if head in MOVED and rest:
        return f"vision.{MOVED[head]}.{rest}"
    return None


class _Alias(importlib.abc.Loader):
    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec):
        warnings.warn(f"{spec.name} has moved to {self.new}; the old path goes in the next release",
                      DeprecationWarning, stacklevel=4)
        return importlib.import_module(self.new)

    def exec_module(self, module) -> None:
        pass        # the new module ran when it was imported


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds an old path before the path finder does (so a module is never loaded twice)."""

    def find_spec(self, fullname, path=None, target=None):
        new = new_path(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(new))


def install() -> None:
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())
