"""Files that cannot be lost: the user's game files (and, for their writers to call, the set
profiles). Three tools, each small:

- :func:`locked` — an exclusive lock on a file, across processes (``fcntl.flock`` on
  ``NAME.lock`` beside it) and across the threads of this one (a ``threading.Lock`` per file:
  flock is per open file, and two threads of one process would otherwise both hold it). Hold
  it from the read to the write, and read the file again under it: a writer that appends to
  what it read before the lock loses what another wrote meanwhile.
- :func:`atomic_write` — the new contents in a temporary file created in the same folder with
  ``O_CREAT | O_EXCL | O_NOFOLLOW`` (a link planted at a guessable name is never followed:
  the name is random and must not exist), fsynced, renamed over the file, the folder fsynced:
  a crash leaves the old file or the new one, whole.
- :func:`open_regular` / :func:`read_text` — a file opened for reading only when it is a
  regular file: a FIFO named like a photo or a game would block the reader for ever, a device
  would never end; they are refused by name (:class:`NotRegular`) before anything waits.

Where ``fcntl`` is missing (Windows) the lock is the thread lock alone.
"""
from __future__ import annotations

import contextlib
import os
import secrets
import stat
import threading
from typing import Iterator

try:
    import fcntl
except ImportError:         # Windows: one process's threads are still kept apart
    fcntl = None  # type: ignore[assignment]

_THREAD_LOCKS: dict[str, threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


class NotRegular(OSError):
    """The path names a FIFO, a device, a socket or a folder: not a file to read or replace."""


def _kind(mode: int) -> str:
    return ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a folder" if stat.S_ISDIR(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode)
            or stat.S_ISBLK(mode) else "not a regular file")


def check_regular(path: str | os.PathLike) -> None:
    """Raise :class:`NotRegular` naming what ``path`` is when it exists and is not a regular
    file (links followed); FileNotFoundError when it does not exist."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegular(f"{os.fspath(path)} is {_kind(mode)}, not a file")


def open_regular(path: str | os.PathLike, mode: str = "rb", **kw):
    """``open(path, mode)`` for reading, refusing a non-regular file by name first (and again
    after opening, without blocking: a FIFO swapped in between is refused too)."""
    check_regular(path)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(f"{os.fspath(path)} is {_kind(st.st_mode)}, not a file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, mode, **kw)
    except BaseException:
        os.close(fd)
        raise


def read_text(path: str | os.PathLike, encoding: str = "utf-8-sig") -> str:
    """The regular file's text (UnicodeDecodeError for bytes that are not ``encoding``)."""
    with open_regular(path, "r", encoding=encoding) as fh:
        return fh.read()


def _thread_lock(key: str) -> threading.Lock:
    with _THREAD_LOCKS_GUARD:
        return _THREAD_LOCKS.setdefault(key, threading.Lock())


@contextlib.contextmanager
def locked(path: str | os.PathLike) -> Iterator[None]:
    """Hold the exclusive lock of ``path`` (which need not exist yet) for the block; other
    processes and threads taking it wait. The lock file ``PATH.lock`` stays (removing it would
    let two writers each lock a different file)."""
    full = os.path.abspath(os.fspath(path))
    with _thread_lock(full):
        if fcntl is None:
            yield
            return
        fd = os.open(full + ".lock", os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise NotRegular(f"{full}.lock is not a regular file")
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)            # closing releases the flock


def atomic_write(path: str | os.PathLike, data: bytes | str, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``data`` at once (see the module's words). The file's own
    permissions are kept when it exists (0644 for a new one); a non-regular ``path`` (a FIFO,
    a folder) is refused with :class:`NotRegular`. Hold :func:`locked` around the read that
    ``data`` was made from and this call."""
    full = os.path.abspath(os.fspath(path))
    folder, name = os.path.split(full)
    mode = 0o644
    with contextlib.suppress(FileNotFoundError):
        st = os.stat(full)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(f"{full} is {_kind(st.st_mode)}, not a file")
        mode = stat.S_IMODE(st.st_mode)
    if isinstance(data, str):
        data = data.encode(encoding)
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0), mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, full)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    _fsync_folder(folder)


def _fsync_folder(folder: str) -> None:
    """The rename itself made durable (POSIX: fsync the folder); nothing where it cannot be."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
