"""``tilescope score PHOTO``: the value of the winning hand in a photo (the main job).

The photo gives the tiles, the melds, the winning tile (set a little apart) and, for riichi,
the dora indicators (a separate short row); everything else comes from flags or
``--context`` (the request keys of ``docs/hand-json.md`` other than the tiles, as a JSON
object or a file holding one; the flags win over it).

Exit codes: 0 the hand was scored (a hand without yaku is still a result); 1 the photo was
read but no winning hand could be scored from it (the report says why and what to pass);
2 bad usage: an unreadable photo, a bad flag/context/fix, or no model.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from .setflag import add_set_argument, learn_fixes, with_set
from .context import UsageError, load_context  # noqa: F401  (UsageError: the verbs catch it from here)
from vision.layout.fixspec import FixSpecError, parse_fixes, parse_melds

HELP = "photo of a winning hand -> its value (riichi or MCR)"

EPILOG = """\
Fixes: every tile gets a number in reading order (shown in the report, left to right as the
player sees the hand: concealed, winning tile, melds, dora row, flowers). If one was misread,
pass --fix N=TILE (repeatable), e.g. --fix 3=5p; 0m 0p 0s are red fives, 1z..7z = E S W N
White Green Red, 1f..8f flowers, 'back' a face-down tile, 'none' a box that is no tile
(e.g. a second box on one tile: --fix 15=none).

Groups: if tiles N to M are an exposed meld the photo does not show as one (its turned tile
hidden or laid straight), pass --meld N-M=TYPE (repeatable), TYPE chi, pon, daiminkan (= kan), kakan
or ankan, e.g. --meld 9-11=chi; tiles the photo set apart that belong to the concealed part:
--meld 12-14=concealed. The numbers are the report's, before any --fix.

Table rule options: --no-aka, --no-open-tanyao, --kiriage, --double-yakuman, --kazoe,
--double-wind-fu (or --context '{"rules": {...}}', docs/hand-json.md).
Exit codes: 0 scored (a hand without yaku is still a result); 1 the photo was read but no
winning hand could be scored (the report says why and what to pass); 2 bad photo or usage.

Examples:
  tilescope score vision/samples/riichi_open_red.jpg --win ron --seat S --dora 1p
  tilescope score hand.jpg --ruleset mcr --win tsumo --seat W --round S
  tilescope score hand.jpg --context '{"win": "ron", "riichi": "riichi", "honba": 1}' --json
"""


def add_correction_arguments(parser) -> None:
    """``--fix`` and ``--meld``: what the reader got wrong, by the report's tile numbers
    (``tilescope score``, ``check PHOTO``, ``waits PHOTO``)."""
    parser.add_argument("--fix", action="append", default=[], metavar="N=TILE",
                        help="tile N (reading order, see the report) is really TILE; repeatable")
    parser.add_argument("--meld", action="append", default=[], metavar="N-M=TYPE",
                        help="tiles N to M are an exposed meld of TYPE (chi, pon, daiminkan = kan, kakan, "
                             "ankan) or part of the concealed hand (concealed); repeatable")


def add_photo_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags shared by ``tilescope score`` and the photo form of ``tilescope check``."""
    parser.add_argument("photo", metavar="PHOTO", help="photo of the hand: JPEG, PNG, WebP, BMP or TIFF (- : standard input)")
    parser.add_argument("--json", action="store_true",
                        help="print the recognised tiles, layout, request and result as JSON")
    parser.add_argument("--annotate", metavar="OUT.jpg", help="also write the photo with boxes, labels and groups")
    parser.add_argument("--weights", metavar="DIR", help="model folder (default: the bundled vision/weights)")
    add_correction_arguments(parser)
    parser.add_argument("--win-tile", metavar="TILE",
                        help="the winning tile, when the photo does not set it apart")
    add_set_argument(parser, learn=True)
    add_context_arguments(parser)


def add_context_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags for what a photo cannot show (``tilescope score`` and ``stream``); read back by
    :func:`context_from_args`."""
    from .hand import add_table_arguments

    add_table_arguments(parser, "what the photo cannot show", win_default="tsumo",
                        dora_help=" (default: the photo's dora row, if any; a video: its frame's)",
                        flowers_help=": the flowers the photo or frame shows")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    add_photo_arguments(parser)


# context keys the flags set: an error about one names the flag the user typed
_FLAG_OF_KEY = {"dora_indicators": ("dora", "--dora"), "ura_dora_indicators": ("ura", "--ura"),
                "honba": ("honba", "--honba"), "riichi_sticks": ("sticks", "--sticks"),
                "flowers": ("flowers", "--flowers"), "seat_wind": ("seat", "--seat"),
                "round_wind": ("round", "--round")}


def in_flag_words(message: str, args) -> str:
    """``context: dora_indicators: …`` as ``--dora: …`` when the value came from that flag."""
    for key, (dest, flag) in _FLAG_OF_KEY.items():
        if message.startswith(f"context: {key}") and getattr(args, dest, None) not in (None, [], ""):
            return flag + message[len(f"context: {key}"):]
    return message


def context_from_args(args) -> tuple[dict, list[str]]:
    """The request context: ``--context`` overlaid with the flags given. Also returns the
    defaults the pipeline will assume, to print them. Raises UsageError for a ``--context``
    that cannot be read or is not a JSON object."""
    ctx = load_context(args.context)
    flags = {
        "ruleset": args.ruleset, "win": args.win, "seat_wind": args.seat, "round_wind": args.round,
        "honba": args.honba, "riichi_sticks": args.sticks, "flowers": args.flowers,
    }
    for key, value in flags.items():
        if value is not None:
            ctx[key] = value
    for flag, key in (("last_tile", "last_wall_tile"), ("replacement", "replacement_tile"),
                      ("robbing_kong", "robbing_kong"), ("ippatsu", "ippatsu"), ("tenhou", "tenhou"),
                      ("chiihou", "chiihou"), ("last_copy", "last_copy")):
        if getattr(args, flag):
            ctx[key] = True
    _riichi_into(ctx, args)
    if args.dora:
        ctx["dora_indicators"] = "".join(args.dora)
    if args.ura:
        ctx["ura_dora_indicators"] = "".join(args.ura)
    rules_from_flags(args, ctx)
    notes = []
    if "ruleset" not in ctx:
        notes.append("riichi rules (--ruleset mcr for Chinese Official)")
    if "win" not in ctx:
        notes.append("self-drawn (--win ron if won on a discard)")
    if "seat_wind" not in ctx:
        notes.append("seat East" + (", the dealer" if ctx.get("ruleset", "riichi") == "riichi" else "") + " (--seat)")
    if "round_wind" not in ctx:
        notes.append("round East (--round)")
    return ctx, notes


def _riichi_into(ctx: dict, args) -> None:
    """``--riichi [double]`` / ``--double-riichi`` into the context's ``riichi`` key."""
    from scoring.hand import HandError
    from .hand import riichi_from_flags
    try:
        riichi = riichi_from_flags(args)
    except HandError as exc:
        raise UsageError(str(exc)) from None
    if riichi != "none":
        ctx["riichi"] = riichi


def run(args) -> int:
    from vision.read.imageio import ImageError, load_image
    from vision.photo.pipeline import PhotoError, get_reader, score_photo, validate_context
    from vision.read.tileset import SetError

    def fail(msg: str) -> int:
        print(f"tilescope score: {msg}", file=sys.stderr)
        return 2

    try:
        ctx, notes = context_from_args(args)
        fixes = parse_fixes(args.fix)
        melds = parse_melds(args.meld)
    except (UsageError, FixSpecError) as exc:
        return fail(str(exc))
    try:
        image = load_image(args.photo)
    except ImageError as exc:
        return fail(str(exc))
    try:
        validate_context(ctx)
        reader = with_set(get_reader(args.weights), args.set)
    except PhotoError as exc:
        return fail(in_flag_words(str(exc), args))
    except SetError as exc:
        return fail(str(exc))
    except (RuntimeError, OSError, ImportError) as exc:
        return fail(f"the tile detector is not available: {exc}")
    if args.learn and not fixes:
        return fail("--learn keeps the tiles you correct: give them with --fix N=TILE")
    try:
        photo = score_photo(image, ctx, reader=reader, fixes=fixes or None, win_tile=args.win_tile,
                            melds=melds or None)
    except ValueError as exc:            # PhotoError: a fix, meld or winning tile that does not fit
        return fail(str(exc))
    if not emit(args, image, photo, "standard input" if args.photo == "-" else args.photo, fail, notes):
        return 2
    if args.learn and not _learned(reader, image, photo, fixes, args.learn, fail):
        return 2
    return 0 if photo.ok else 1


def _learned(reader, image, photo, fixes: dict, name: str, fail) -> bool:
    """``--learn``: add the fixed tiles' crops to the set; the line saying so goes to stderr
    (stdout may be --json). False (after ``fail``) when it cannot be done."""
    from vision.read.tileset import SetError

    try:
        print(learn_fixes(reader, image, photo, fixes, name), file=sys.stderr)
    except SetError as exc:
        fail(str(exc))
        return False
    return True


def emit(args, image, photo, path: str, fail, notes: list[str] | None = None) -> bool:
    """Write ``--annotate``, then print ``--json`` or the report. False (after ``fail``) when
    the annotated image cannot be written."""
    from vision.photo.report import photo_report

    if getattr(args, "annotate", None) == "":
        fail("--annotate needs a file name, e.g. --annotate out.jpg")
        return False
    if getattr(args, "annotate", None):
        problem = overwrite_problem("--annotate", args.annotate, path)
        if problem:
            fail(problem)
            return False
        try:
            write_annotation(args.annotate, image, photo)
        except (OSError, ValueError) as exc:
            fail(f"--annotate {args.annotate}: {exc}")
            return False
    if args.json:
        print(json.dumps(photo.to_json(), ensure_ascii=False))
    else:
        print(photo_report(photo, os.path.basename(path) + _read_smaller(path, image), notes))
    return True


def _read_smaller(path: str, image) -> str:
    """`` (9600x7200 px, read at 1/2)`` when the photo file is larger than the image read from
    it (a JPEG over the pixel limit: ``vision.read.imageio.decode_image``), so the report's size and
    the boxes of ``--json`` are not taken for the photo's own; else ``""``."""
    from vision.read.imageio import image_size

    if path == "-" or not os.path.isfile(path) or getattr(image, "shape", None) is None:
        return ""
    try:
        with open(path, "rb") as fh:
            size = image_size(fh.read())
    except OSError:
        return ""
    h, w = image.shape[:2]
    if size is None or max(size) <= max(w, h):
        return ""
    return f" ({size[0]}x{size[1]} px, read at 1/{round(max(size) / max(w, h))})"


def overwrite_problem(flag: str, out: str, source: str, what: str = "photo") -> str | None:
    """The error when output ``out`` of ``flag`` names the input file ``source`` (a link or
    another spelling included), which writing there would destroy; None when it does not."""
    try:
        same = os.path.exists(out) and os.path.exists(source) and os.path.samefile(out, source)
    except OSError:
        same = False
    return f"{flag} {out}: that is the {what} itself; write to another file" if same else None


def write_annotation(path: str, image, photo) -> None:
    """Draw boxes, labels, meld groups and the winning tile (``vision.photo.annotate.draw``), plus each
    tile's reading-order number (the N of ``--fix N=TILE``); write the image.
    ``image``: the photo as read ``(H, W, 3) uint8`` BGR. Raises ValueError for a file name
    OpenCV cannot write (its extension), OSError when the file cannot be written."""
    import cv2

    from vision.photo.annotate import draw
    from vision.layout import LOW_CONFIDENCE

    lay = photo.layout
    win = next((g.detections[0] for g in lay.groups if g.kind == "win"), None)
    # the numbers below the tiles, the codes above: in a row of tiles smaller than their
    # labels (a broadcast frame) they stack outward with leader lines, never overlapping
    canvas = draw(image, lay.order, groups=lay.groups, winning=win, low_confidence=LOW_CONFIDENCE,
                  numbers=True)
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".jpg", ".jpeg", ".png", ".webp", ".bmp"):
        raise ValueError("use a .jpg, .png, .webp or .bmp file name")
    if not cv2.imwrite(path, canvas):
        raise OSError("cannot write the image there")


# ---------------------------------------------------------------- tilescope check PHOTO

from vision.common.filekind import PHOTO_SUFFIXES  # noqa: E402  (tilescope check's name for them)


def is_photo(path: str | None) -> bool:
    """``tilescope check FILE``: a photo (by its extension, or by its first bytes: a HEIC, a GIF,
    a JPEG without an extension) rather than JSON Lines."""
    from vision.common.filekind import image_format

    if not path or path == "-":
        return False
    if os.path.splitext(path)[1].lower() in PHOTO_SUFFIXES:
        return True
    if not os.path.isfile(path):      # a pipe or FIFO: a look would eat what JSON Lines need
        return False
    try:
        with open(path, "rb") as fh:
            return image_format(fh.read(16)) is not None
    except OSError:             # a missing file: the JSON Lines reader says so
        return False


def add_check_photo_arguments(parser: argparse.ArgumentParser) -> None:
    """The photo-only flags ``tilescope check PHOTO`` adds to its typed-hand flags."""
    g = parser.add_argument_group("with a PHOTO instead of FILE")
    g.add_argument("--fix", action="append", default=[], metavar="N=TILE",
                   help="tile N (reading order, see the report) is really TILE; repeatable")
    g.add_argument("--meld", action="append", default=[], metavar="N-M=TYPE",
                   help="tiles N to M are an exposed meld of TYPE (chi, pon, daiminkan = kan, kakan, "
                        "ankan) or part of the concealed hand (concealed); repeatable")
    g.add_argument("--annotate", metavar="OUT.jpg", help="also write the photo with boxes and groups")
    g.add_argument("--weights", metavar="DIR", help="model folder (default: the bundled vision/weights)")
    add_set_argument(g, learn=True)


# what `tilescope check PHOTO` assumes, as `tilescope hand` does, when neither a flag nor
# --context says: (key, value, how the report words it)
CHECK_DEFAULTS = (("ruleset", "riichi", "riichi rules (--ruleset mcr for Chinese Official)"),
                  ("win", "ron", "won on a discard (--win tsumo if self-drawn)"),
                  ("seat_wind", "E", "seat East (--seat)"),
                  ("round_wind", "E", "round East (--round)"))


def _context_from_hand_args(args, notes: list[str] | None = None) -> dict:
    """The context of ``tilescope check PHOTO`` from the ``tilescope hand`` flags it shares,
    over ``--context`` (a flag given wins); what neither says takes :data:`CHECK_DEFAULTS`,
    each appended to ``notes``."""
    ctx = load_context(getattr(args, "context", None))
    for key, flag in (("ruleset", "ruleset"), ("win", "win"), ("seat_wind", "seat"), ("round_wind", "round")):
        if getattr(args, flag, None) is not None:
            ctx[key] = getattr(args, flag)
    for key, value, note in CHECK_DEFAULTS:
        if key not in ctx:
            ctx[key] = value
            if notes is not None:
                notes.append(note)
    for flag, key in (("last_tile", "last_wall_tile"), ("replacement", "replacement_tile"),
                      ("robbing_kong", "robbing_kong"), ("ippatsu", "ippatsu"), ("tenhou", "tenhou"),
                      ("chiihou", "chiihou"), ("last_copy", "last_copy")):
        if getattr(args, flag, False):
            ctx[key] = True
    _riichi_into(ctx, args)
    for flag, key in (("dora", "dora_indicators"), ("ura", "ura_dora_indicators")):
        if getattr(args, flag, None):
            ctx[key] = "".join(getattr(args, flag))
    for flag, key in (("honba", "honba"), ("sticks", "riichi_sticks"), ("flowers", "flowers")):
        if getattr(args, flag, None) is not None:        # --flowers 0 overrules the photo
            ctx[key] = getattr(args, flag)
    if getattr(args, "hidden_win_tile", False):
        ctx["win_tile_shown"] = False
    rules_from_flags(args, ctx)
    return ctx


def rules_from_flags(args, ctx: dict) -> None:
    """Set ``ctx["rules"]`` from the table-rule flags (``add_rule_arguments``): each flag given
    changes its own option; the others keep ``--context``'s."""
    given = {"aka": False if getattr(args, "no_aka", False) else None,
             "open_tanyao": False if getattr(args, "no_open_tanyao", False) else None,
             "kiriage": True if getattr(args, "kiriage", False) else None,
             "double_yakuman": True if getattr(args, "double_yakuman", False) else None,
             "kazoe": None if getattr(args, "kazoe", "yakuman") == "yakuman" else args.kazoe,
             "double_wind_pair_fu": None if getattr(args, "double_wind_fu", 4) == 4 else args.double_wind_fu}
    given = {k: v for k, v in given.items() if v is not None}
    if given:
        rules = ctx.get("rules")
        ctx["rules"] = {**(rules if isinstance(rules, dict) else {}), **given}


def run_check_photo(args, options=None) -> int:
    """``tilescope check PHOTO``: the verdict on the hand in a photo. ``args``: the parsed
    ``tilescope check`` arguments (``file`` is the photo); ``options``: its penalty amounts."""
    from vision.read.imageio import ImageError, load_image
    from vision.photo.pipeline import PhotoError, check_photo, get_reader
    from vision.read.tileset import SetError

    def fail(msg: str) -> int:
        print(f"tilescope check: {msg}", file=sys.stderr)
        return 2

    if options is None and hasattr(args, "mcr_under_minimum"):
        from scoring.verdict import PenaltyOptions

        options = PenaltyOptions(args.mcr_under_minimum, args.mcr_invalid_hand, args.chombo_dealer,
                                 args.chombo_non_dealer, args.tournament_chombo)
    notes: list[str] = []
    try:
        ctx = _context_from_hand_args(args, notes)
        fixes = parse_fixes(getattr(args, "fix", []) or [])
        melds = parse_melds(getattr(args, "meld", []) or [])
        image = load_image(args.file)
        reader = with_set(get_reader(getattr(args, "weights", None)), getattr(args, "set", None))
        if getattr(args, "learn", None) and not fixes:
            raise UsageError("--learn keeps the tiles you correct: give them with --fix N=TILE")
        photo = check_photo(image, ctx, reader=reader, fixes=fixes or None,
                            win_tile=getattr(args, "win_tile", None), melds=melds or None,
                            declared=getattr(args, "declared", "hu"),
                            revealed=not getattr(args, "not_revealed", False),
                            discards=getattr(args, "discards", ""),
                            tournament=getattr(args, "tournament", False), options=options)
    except (UsageError, FixSpecError, ImageError, PhotoError, SetError) as exc:
        return fail(str(exc))
    except (RuntimeError, OSError, ImportError) as exc:
        return fail(f"the tile detector is not available: {exc}")
    if not emit(args, image, photo, args.file, fail, notes):
        return 2
    if getattr(args, "learn", None) and not _learned(reader, image, photo, fixes, args.learn, fail):
        return 2
    return 0 if getattr(photo.result, "ruling", None) else 1
