"""The set routes' answers without the web framework (``docs/sets.md``): a set's size, the
sheet's tiles named in a request, a learned sheet and a refused one, as the server's routes
(:mod:`vision.server.routes.sets`) and the offline page (``vision.offline.sets``) answer them."""
from __future__ import annotations

from .api_error import ApiError

MAX_SHEET = 400    # characters of a set's tiles text (the default sheet is 48)


def set_counts(name: str, references: int, kinds: int, **more) -> dict:
    """A set's name and size, as every set route answers it (and ``more``)."""
    return {"name": name, "references": references, "kinds": kinds, **more}


def sheet_kinds(tiles: str | None) -> list:
    """The ``tiles`` field of ``/api/set/learn`` → the sheet's tile kinds in reading order
    (default: the reference sheet). ApiError 422 ``bad_tiles`` naming what is wrong."""
    from vision.read.set_sheet import DEFAULT_SHEET, SetError, parse_sheet

    text = DEFAULT_SHEET if tiles is None or not tiles.strip() else tiles
    if len(text) > MAX_SHEET:
        raise ApiError(422, "bad_tiles", f"tiles is {len(text)} characters; a sheet is named in "
                                         f"at most {MAX_SHEET}")
    try:
        return parse_sheet(text)
    except SetError as exc:
        raise ApiError(422, "bad_tiles", str(exc).replace("--tiles", "tiles")) from None


def learned_answer(name: str, references: int, kinds: int, learned: int, disagreements, swaps) -> dict:
    """``/api/set/learn``'s answer: the set's size, the tiles learned, the tiles read as other
    kinds than named (``vision.read.set_sheet.Disagreement``) and the pairs that look swapped."""
    return set_counts(name, references, kinds, learned=learned, disagreements=[
        {"n": d.index + 1, "given": d.given, "read": d.read,
         "confidence": round(d.confidence, 4), "message": str(d)}
        for d in disagreements], swaps=[
        {"tiles": [d.index + 1, e.index + 1], "message": (
            f"tiles {d.index + 1} and {e.index + 1} may be swapped: {d.index + 1} was named "
            f"{d.given} and reads as {d.read}, {e.index + 1} was named {e.given} and reads "
            f"as {e.read}; learned as named")} for d, e in swaps])


def sheet_refused(exc) -> ApiError:
    """A sheet :func:`vision.read.set_learning.learn_sheet` refused, as the API answers it: a count
    that does not match (``tile_count``) or tiles that mostly read as other kinds
    (``out_of_order``), with the tiles found in ``found``; in the API's own field names."""
    from vision.read.set_sheet import SheetRefused

    if not isinstance(exc, SheetRefused):
        return ApiError(422, "set_error", str(exc))
    words = exc.words("tiles names {n}", "tiles names them", "pass trust_order if the tiles field is right")
    if not exc.misread:
        return ApiError(422, "tile_count", words + " (found: the tiles found, numbered in reading order)",
                        {"found": exc.detections.to_json()})
    return ApiError(422, "out_of_order", words, {"found": exc.detections.to_json()})
