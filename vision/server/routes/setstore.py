"""The set profiles the server reads and learns with: named sets of its data folder
(:mod:`vision.read.tileset`), never files named over HTTP.
"""
from __future__ import annotations

import contextlib
import logging
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

from scoring.tiles import quoted

from .errors import ApiError

log = logging.getLogger("tilescope.serve")


class SetStore:
    """The named sets: their files, a reader per set (loaded once per version of its file),
    and :attr:`lock`, held by whatever changes a set (one learn/add/undo at a time).

    ``reader``: the server's own reader (a call: it is loaded on first use)."""

    KEEP = 16       # readers with a set kept at once (each ~2 MB: 400 references in 9 looks)
    # A set grows by a sheet (38) or a correction (1) at a time; one that reads a photo in
    # good time holds a few sheets' worth (each reference is matched in 9 looks). The command
    # line's sets may hold tileset.MAX_REFERENCES.
    MAX_REFERENCES = 400

    def __init__(self, reader: Callable[[], Any]):
        self._reader = reader
        self._readers: OrderedDict = OrderedDict()    # (name, mtime_ns, size) -> reader with it
        self._readers_lock = threading.Lock()
        self.lock = threading.Lock()

    def path(self, name: str) -> Path:
        """The file of the named set; ApiError 422 for a name that is no set's name."""
        from vision.read.tileset import data_dir, is_name

        if not isinstance(name, str) or not is_name(name):
            raise ApiError(422, "bad_set_name", f"set {quoted(str(name)[:40])} is no set's name: "
                                                "letters, digits, '_', '-' or '.', at most 40")
        return data_dir() / f"{name}.npz"

    def base_reader(self):
        """The server's reader, which must be able to learn and read with sets."""
        reader = self._reader()
        if not hasattr(reader, "with_set") or not hasattr(reader, "embed"):
            raise ApiError(503, "no_sets", "this server's tile reader cannot learn or read with "
                                           "a set")
        return reader

    def reader_for(self, set_name: str | None) -> tuple[Any, tuple]:
        """The reader for a request's ``set`` field, and what names that reading for the memo:
        the server's own reader without one; the set is loaded once per version of its file."""
        if not set_name:
            return self._reader(), ()
        path = self.path(set_name)
        try:
            st = path.stat()
        except OSError:
            from vision.read.tileset import data_dir
            known = ", ".join(sorted(p.stem for p in data_dir().glob("*.npz"))[:20]) or "none yet"
            raise ApiError(422, "unknown_set", f"no set named {quoted(set_name)} on this server "
                                               f"(sets learned: {known})") from None
        key = (set_name, st.st_mtime_ns, st.st_size)
        with self._readers_lock:
            found = self._readers.get(key)
            if found is not None:
                self._readers.move_to_end(key)
        if found is None:
            found = self._load_reader(set_name, path)
            with self._readers_lock:
                for old in [k for k in self._readers if k[0] == set_name]:
                    del self._readers[old]        # an older version of the same set
                self._readers[key] = found
                while len(self._readers) > self.KEEP:
                    self._readers.popitem(last=False)
        return found, key

    def _load_reader(self, set_name: str, path: Path):
        from vision.read.detector import ModelError
        from vision.read.tileset import SetError, TileSet

        base = self.base_reader()
        try:
            return base.with_set(TileSet.load(path))
        except (SetError, ModelError) as exc:
            raise ApiError(422, "bad_set", f"set {quoted(set_name)}: {exc}") from None

    def load(self, name: str, model: str | None = None):
        """``(path, set)``: the named set, or an empty one of that name (``model`` given) when
        there is none."""
        from vision.read.tileset import SetError, TileSet, empty

        path = self.path(name)
        if not path.exists():
            if model is None:
                raise ApiError(422, "unknown_set", f"no set named {quoted(name)} on this server")
            return path, empty(name, model)
        try:
            return path, TileSet.load(path)
        except SetError as exc:
            raise ApiError(422, "bad_set", f"set {quoted(name)}: {exc}") from None

    @contextlib.contextmanager
    def writing(self, path: Path):
        """Held by whatever changes a set: this server's one change at a time, and the set
        file's own lock against other programs (``tilescope set learn`` beside the server)."""
        from vision.common.safe_files import locked

        with self.lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            with locked(path):
                yield

    def room(self, ts, more: int) -> None:
        """ApiError 422 ``set_full`` when ``more`` references would take ``ts`` past
        :attr:`MAX_REFERENCES`."""
        if len(ts) + more > self.MAX_REFERENCES:
            raise ApiError(422, "set_full", f"set {quoted(ts.name)} holds {len(ts)} references; "
                                            f"this server keeps at most {self.MAX_REFERENCES} "
                                            "in a set: learn into a new one")

    @staticmethod
    def save(ts, path: Path) -> None:
        from vision.read.tileset import SetError

        try:
            ts.save(path)
        except SetError as exc:
            log.error("tilescope serve: %s", exc)
            raise ApiError(500, "cannot_save", "the set could not be written on this server "
                                               "(its log says why)") from None
