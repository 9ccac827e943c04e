"""``--set NAME|FILE`` and ``--learn NAME``: the photo verbs' flags for a learned tile set."""
from __future__ import annotations

SET_HELP = ("read the tiles with the set profile learned from your set (tilescope set learn): "
            "a name or a profile file")
LEARN_HELP = ("add each --fix'd tile's picture to this set (a name or a profile file; made if "
              "new), so the set is read right next time")


def add_set_argument(parser, learn: bool = False) -> None:
    """Add ``--set`` (and ``--learn`` for verbs that take ``--fix``)."""
    parser.add_argument("--set", metavar="NAME|FILE", help=SET_HELP)
    if learn:
        parser.add_argument("--learn", metavar="NAME|FILE", help=LEARN_HELP)


def with_set(reader, name_or_file: str | None):
    """``reader`` reading with the profile ``--set`` names (unchanged without one).
    Raises ``vision.read.tileset.SetError`` naming what is wrong."""
    if not name_or_file:
        return reader
    from vision.read.detector import ModelError
    from vision.read.tileset import SetError, load

    try:
        return reader.with_set(load(name_or_file))
    except ModelError as exc:
        raise SetError(f"--set: {exc}") from None


def learn_fixes(reader, image, photo, fixes: dict[int, str], name_or_file: str) -> str:
    """Add the crops of the tiles ``fixes`` corrected (``{n: tile}``, as ``--fix``) to the
    profile ``--learn`` names; returns the line that says what was kept. Raises ``SetError``."""
    from vision.common.safe_files import locked
    from vision.read.tileset import path_of

    path = path_of(name_or_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path):       # reread and written under the set's lock: no learn lost beside it
        return _learn_fixes(reader, image, photo, fixes, name_or_file, path)


def _learn_fixes(reader, image, photo, fixes: dict[int, str], name_or_file: str, path) -> str:
    from vision.read.set_learning import learn_tile
    from vision.read.tileset import SetError, TileSet, empty, is_name

    try:
        tileset = TileSet.load(path)
    except SetError:
        if path.exists():
            raise
        tileset = empty(name_or_file if is_name(name_or_file) else path.stem, reader.model_id)
    order = photo.layout.order
    added = []
    for n, code in sorted(fixes.items()):
        if code == "none":           # a box that is no tile teaches nothing of the set
            continue
        d = order[n - 1] if 0 < n <= len(order) else None
        if d is None or d.tile != code:
            matches = [t for t in order if t.tile == code and t.confidence == 1.0]
            d = matches[0] if len(matches) == 1 else None
        if d is None:
            raise SetError(f"--learn: cannot tell which tile --fix {n}={code} corrected; nothing learned")
        tileset = learn_tile(reader, image, d, code, tileset, f"fix {n}={code}")
        added.append(f"{n}={code}")
    if not added:
        return "--learn: no corrected tile to learn"
    saved = tileset.save(path)
    return (f"learned {', '.join(added)} into the set {tileset.name!r} "
            f"(now {len(tileset)} reference{'s' if len(tileset) != 1 else ''}) -> {saved}")
