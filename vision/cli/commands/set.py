"""``tilescope set learn|show|list``: teach tilescope the tile set you play with."""
from __future__ import annotations

import hashlib
import re
import sys
import tempfile
from pathlib import Path

from vision.read.classes import TILE_CLASSES as TILE_ORDER
from vision.read.tileset import DEFAULT_SHEET, FLOWER_SHEET

HELP = ("learn your tile set from one photo of it (then read with --set): set learn PHOTO, "
        "set show NAME, set list")

EPILOG = f"""\
The reference sheet: every kind once, in rows top to bottom, each left to right, face up on a
plain surface, photographed from above:
  row 1  1m..9m   row 2  1p..9p   row 3  1s..9s   row 4  East South West North White Green Red
  row 5  the three red fives 0m 0p 0s, then one tile face down (back)
which is the default
  --tiles "{DEFAULT_SHEET}"
A sheet without the back still learns (name its tiles), but then the classifier alone tells a
back from the haku. MCR sets: add the eight flowers as a sixth row,
  --tiles "{FLOWER_SHEET}"
Any other tiles may be named (repeats, flowers 1f..8f, the word back for a face-down tile).
Then read with --set on read, score, check, stream and serve. A named set lives in your user
data folder (TILESCOPE_DATA overrides it); a file given by path is used as it is.
`set show` says how much the set's pictures weigh against the classifier (docs/sets.md)."""


def add_arguments(parser) -> None:
    import argparse

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    learn = sub.add_parser("learn", help="learn (or add to) a set from a photo of its tiles",
                           description="Learn a set profile from a photo of tiles of one set.")
    learn.add_argument("photo", metavar="PHOTO", help="photo of the tiles (JPEG, PNG, WebP, BMP, TIFF; - : standard input)")
    learn.add_argument("--tiles", metavar="TILES",
                       help=f'the tiles in reading order, mpsz (default the sheet: "{DEFAULT_SHEET}")')
    learn.add_argument("--again", action="store_true",
                       help="learn a photo the set has learned before once more (by default it "
                            "is said and skipped: the same references twice)")
    where = learn.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", metavar="FILE", help="profile file to write (added to when it exists)")
    where.add_argument("--name", metavar="NAME", help="keep it in your data folder under this name "
                       "(added to when it exists)")
    learn.add_argument("--trust-order", action="store_true",
                       help="learn a sheet even when most of its tiles read as other kinds than "
                            "--tiles names them (refused by default: rows out of order?)")
    learn.add_argument("--weights", metavar="DIR", help="model folder (default: the bundled one)")
    show = sub.add_parser("show", help="what a set holds; --out writes a contact sheet",
                          description="What a set profile holds, per kind.")
    show.add_argument("set", metavar="NAME|FILE")
    show.add_argument("--out", metavar="SHEET.png", help="write a picture of every reference, in a grid")
    sub.add_parser("list", help="the sets in your data folder", description="The named sets.")


def _fail(message: str) -> int:
    print(f"tilescope set: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    if args.action == "learn":
        return _learn(args)
    if args.action == "show":
        return _show(args)
    if args.action == "list":
        return _list()
    return _fail("give an action: learn, show or list (tilescope set --help)")


class _Refused(Exception):
    """A step of ``set learn`` that cannot go on: its message is the one line printed."""


def _learn(args) -> int:
    """``set learn``: the sheet's tiles named, the photo read, each tile learned into the set,
    the set saved, and what was learned said."""
    from vision.common.safe_files import locked

    try:
        kinds = _sheet_kinds(args)
        image = _photo(args)
        photo_name = "standard input" if args.photo == "-" else Path(args.photo).name
        digest = photo_digest(image)
        target = _target_path(args)
        with locked(target):     # two learns into one set at once: each adds to the other's
            into = _held(target)
            before = _learned_before(into, digest)
            if before and not args.again:
                print(f"{photo_name} was learned into the set {into.name!r} already ({before} "
                      f"references from it; the set holds {len(into)}): nothing added (--again "
                      "learns it once more)")
                return 0
            reader = _reader(args)
            learned = _learned(args, reader, image, kinds, into, target.stem, photo_name, digest)
            path = _saved(learned.tileset, target)
    except OSError as exc:       # the lock file cannot be made (a folder that is not writable)
        return _fail(f"cannot write the set beside {str(exc.filename or '')[:80]!r}: {exc.strerror or exc}")
    except _Refused as exc:
        return _fail(str(exc))
    _say_learned(args, learned, len(kinds), photo_name, path)
    return 0


# a profile's sources name each reference "PHOTO [DIGEST] #N": the digest of the photo's pixels
# tells the same photo learned again (under any name, or from standard input)
_DIGEST = re.compile(r" \[([0-9a-f]{12})\]")


def photo_digest(image) -> str:
    """12 hex digits of the decoded photo's pixels (and its size)."""
    h = hashlib.sha1(repr(image.shape).encode())
    h.update(image.tobytes())
    return h.hexdigest()[:12]


def _learned_before(into, digest: str) -> int:
    """How many references of ``into`` came from the photo of ``digest`` (0: none, or a new set)."""
    if into is None:
        return 0
    return sum(1 for source in into.sources or () if f" [{digest}]" in source)


def _sheet_kinds(args) -> list:
    """``--name`` checked and ``--tiles`` parsed (not given: the reference sheet, said in any
    error): the sheet's kinds in reading order."""
    from vision.read.set_learning import parse_sheet
    from vision.read.tileset import SetError, is_name

    if args.name is not None and not is_name(args.name):
        raise _Refused(f"--name {args.name[:40]!r}: use letters, digits, '_', '-' or '.' (at most 40)")
    args.tiles_given = args.tiles is not None
    if not args.tiles_given:
        args.tiles = DEFAULT_SHEET
    try:
        return parse_sheet(args.tiles)
    except SetError as exc:
        raise _Refused(str(exc)) from None


def _target_path(args) -> Path:
    """The set's file: ``--name`` in the data folder, or ``--out`` as named."""
    from vision.read.tileset import data_dir

    target = data_dir() / f"{args.name}.npz" if args.name else Path(args.out)
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


def _held(target: Path):
    """The set ``target`` holds already (None when it is new)."""
    from vision.read.tileset import SetError, TileSet

    if not target.exists():
        return None
    try:
        return TileSet.load(target)
    except SetError as exc:
        raise _Refused(f"{exc} (to start afresh, write to another file)") from None


def _photo(args):
    """The photo, decoded."""
    from vision.read.imageio import ImageError, load_image

    try:
        return load_image(args.photo)
    except ImageError as exc:
        raise _Refused(str(exc)) from None


def _reader(args):
    """The tile reader (``--weights`` or the bundled models)."""
    from vision.read.detector import ModelError
    from vision.photo.pipeline import get_reader

    try:
        return get_reader(args.weights)
    except (ModelError, OSError) as exc:
        raise _Refused(f"cannot load the tile models: {exc}") from None


def _learned(args, reader, image, kinds: list, into, stem: str, photo_name: str, digest: str):
    """:func:`vision.read.set_learning.learn_sheet` on the photo; a refused sheet's message says
    what the user gave (the default sheet when no ``--tiles``) and points at a picture of the
    tiles found, numbered, when one could be written."""
    from vision.read.detector import ModelError
    from vision.read.set_learning import SheetRefused, learn_sheet
    from vision.read.tileset import SetError

    try:
        return learn_sheet(reader, image, kinds, into=into, name=args.name or stem,
                           source=f"{photo_name} [{digest}]", trust_order=args.trust_order)
    except SheetRefused as exc:
        message = in_user_words(exc, args.tiles_given)
        picture = _found_picture(image, exc.detections, args.photo)
        if picture:
            raise _Refused(f"{message}\n  the tiles found, numbered in reading order: {picture}") from None
        raise _Refused(message) from None
    except SetError as exc:
        raise _Refused(str(exc)) from None
    except ModelError as exc:
        raise _Refused(str(exc)) from None


def in_user_words(refused, tiles_given: bool) -> str:
    """A refused sheet (``vision.read.set_learning.SheetRefused``) as the user gave it: without
    ``--tiles``, the default sheet was assumed, and the message says so instead of naming a
    flag that was never typed."""
    if tiles_given:
        return refused.words()
    sheet = "no --tiles given, so the reference sheet was assumed: every kind once, then one face down"
    hint = "; for a photo of other tiles, name them with --tiles"
    if not refused.misread and refused.found == refused.named - 1 and DEFAULT_SHEET.endswith(" back"):
        # one short of the sheet: most often a sheet laid without the face-down tile
        hint = (f"; a sheet without the face-down tile: --tiles \"{DEFAULT_SHEET.removesuffix(' back')}\""
                "; for a photo of other tiles, name them with --tiles")
    return refused.words(f"the reference sheet has {{n}} ({sheet})",
                         f"the reference sheet names them ({sheet})",
                         "pass --trust-order if the photo is the reference sheet") + hint


def _saved(ts, target: Path) -> Path:
    from vision.read.tileset import SetError

    try:
        return ts.save(target)
    except SetError as exc:
        raise _Refused(str(exc)) from None


def _say_learned(args, learned, n: int, photo_name: str, path: Path) -> None:
    """What was learned: swaps first, on stderr (the one mistake a sheet hides), then the
    set's size, the tiles read otherwise, and how to read with it."""
    ts = learned.tileset
    for d, e in learned.swaps:
        print(f"tilescope set: LOOK: tiles {d.index + 1} and {e.index + 1} may be swapped: "
              f"{d.index + 1} was named {d.given} and reads as {d.read} ({d.confidence:.2f}), "
              f"{e.index + 1} was named {e.given} and reads as {e.read} ({e.confidence:.2f}). "
              "Learned as named; if they were swapped, lay them right and learn into a new file",
              file=sys.stderr)
    print(f"learned {n} tiles from {photo_name}: the set {ts.name!r} now holds "
          f"{len(ts)} references of {len(ts.held())} kinds -> {path}")
    if learned.disagreements:
        print("the reader alone names these tiles otherwise (learned as you named them; if you "
              "misnamed one, learn the sheet again):")
        for d in learned.disagreements:
            print(f"  {d}")
    # what `set show` says of the set's weight, said now: a sheet whose pictures will not be
    # used was otherwise reported "learned" with nothing to tell it from a good one
    for line in ts.calibration.words() if ts.calibration is not None else ():
        print(f"  {line}")
    print(f"read with it: tilescope score PHOTO --set {args.name or path}")


def _found_picture(image, dets, photo: str) -> str | None:
    """Write the photo with the tiles found, numbered, to the temporary folder (never beside
    the photo: a sample's folder is the repository's); its path, said in the message."""
    import cv2

    from vision.photo.annotate import draw

    name = f"{'sheet' if photo == '-' else Path(photo).stem}.tiles-found.jpg"
    out = Path(tempfile.gettempdir()) / name
    canvas = draw(image, dets.tiles, show_confidence=False, numbers=True)
    try:
        return str(out) if cv2.imwrite(str(out), canvas) else None
    except cv2.error:
        return None


def _show(args) -> int:
    from vision.read.tileset import SetError, load

    try:
        ts = load(args.set)
    except SetError as exc:
        return _fail(str(exc))
    print(f"set {ts.name!r}: {len(ts)} references of {len(ts.held())} kinds")
    calibration = ts.calibration or _calibration_now(ts)
    if calibration is not None:
        for line in calibration.words():
            print(f"  {line}")
    for kind in ts.held():
        sources = [s for k, s in zip(ts.kinds, ts.sources or [""] * len(ts)) if k == kind]
        sources = [_DIGEST.sub("", s) for s in sources]      # the photo's name, not its digest
        print(f"  {kind:4s} {_kind_word(kind):9s} {len(sources):3d}  {', '.join(s for s in sources[:4] if s)}"
              + (" ..." if len(sources) > 4 else ""))
    if args.out:
        import cv2

        try:
            ok = cv2.imwrite(args.out, contact_sheet(ts))
        except cv2.error:
            ok = False
        if not ok:
            return _fail(f"cannot write {args.out[:80]!r}: give a writable .png or .jpg name")
        print(f"contact sheet -> {args.out}")
    return 0


def _kind_word(kind: str) -> str:
    """What a player calls a kind whose code says little (``5z`` haku, ``0p`` red 5p)."""
    from vision.read.tileset import _KIND_WORDS

    if kind in _KIND_WORDS:
        return _KIND_WORDS[kind]
    if kind[:1] == "0":
        return f"red 5{kind[1:]}"
    if kind.endswith("f"):
        return f"flower {kind[0]}"
    return "face down" if kind == "back" else ""


def _calibration_now(ts):
    """A version-1 profile's calibration, as the reader will decide it (None without models)."""
    from vision.read.detector import ModelError
    from vision.photo.pipeline import get_reader
    from vision.read.set_learning import calibrated

    try:
        return calibrated(get_reader(None), ts).calibration if len(ts) else None
    except (ModelError, OSError):
        return None


def contact_sheet(ts, cell: int = 64, wrap: int = 10):
    """A picture of a profile as a grid: every reference with its kind over it, kinds in
    ``TILE_CLASSES`` order, ``wrap`` to a row (a suit's nine on one row)."""
    import cv2
    import numpy as np

    order = sorted(range(len(ts)), key=lambda i: (TILE_ORDER.index(ts.kinds[i]), i))
    label = 18
    rows = max(1, -(-len(order) // wrap))
    canvas = np.full((rows * (cell + label + 4) + 4, 4 + wrap * (cell + 4), 3), 255, np.uint8)
    for n, i in enumerate(order):
        y, x = 4 + (n // wrap) * (cell + label + 4), 4 + (n % wrap) * (cell + 4)
        cv2.putText(canvas, ts.kinds[i], (x + 2, y + label - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    (0, 0, 0), 1, cv2.LINE_AA)
        canvas[y + label:y + label + cell, x:x + cell] = cv2.resize(ts.crops[i], (cell, cell),
                                                                  interpolation=cv2.INTER_AREA)
    return canvas


def _list() -> int:
    from vision.read.tileset import SetError, data_dir, listed

    sets = listed()
    if not sets:
        print(f"no sets learned yet (they are kept in {data_dir()}); "
              "learn one with: tilescope set learn PHOTO --name NAME")
        return 0
    for name, ts in sets:
        if isinstance(ts, SetError):
            print(f"{name:20s} unreadable: {ts}")
        else:
            print(f"{name:20s} {len(ts):4d} references, {len(ts.held())} kinds")
    return 0
