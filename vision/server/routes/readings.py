"""What the reader saw in the last few photos, remembered by the upload's bytes."""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import replace
from typing import Callable


class Readings:
    """What the reader saw in the last few photos, by the upload's bytes: the web page sends
    each photo to /api/score and /api/check-photo, and again with every correction, and the
    tiles seen do not change with the corrections (which apply after reading)."""

    SIZE = 8

    def __init__(self) -> None:
        self._seen: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def reader(self, reader, data: bytes, tag: tuple = ()) -> "Readings._Memo":
        """``reader`` for the upload ``data``; ``tag`` names what else the reading depends on
        (the set read with, and its file's version): another set reads the photo anew."""
        return self._Memo(self, reader, (hashlib.blake2b(data, digest_size=16).digest(), tag))

    def _get(self, key, look: Callable):
        with self._lock:
            found = self._seen.get(key)
            if found is not None:
                self._seen.move_to_end(key)
        if found is None:
            found = look()
            with self._lock:
                self._seen[key] = found
                while len(self._seen) > self.SIZE:
                    self._seen.popitem(last=False)
        return replace(found, tiles=list(found.tiles))      # the caller's own list

    class _Memo:
        """The reader's ``read``/``look_again`` for one upload, remembered."""

        def __init__(self, owner: "Readings", reader, digest: bytes):
            self._owner, self._reader, self._digest = owner, reader, digest
            if hasattr(reader, "look_again"):
                self.look_again = lambda array, how: owner._get(
                    (digest, "look_again", how), lambda: reader.look_again(array, how))

        def read(self, array, *args):
            return self._owner._get((self._digest, "read", args),
                                    lambda: self._reader.read(array, *args))

