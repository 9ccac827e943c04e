"""The set routes of the offline page (``/api/sets``, ``/api/set/learn``, ``/api/set/add``,
``/api/set/undo``): the rules of a set's sheet and the answers, in Python as the server has
them; the pictures (crops, features, the set's weight against the classifier) and the sets
themselves are the browser reader's and the browser's storage (``web/src/reader``).

The page's worker calls these with plain values (JSON-like) and gets plain values back: an
answer to send (``{"status", "body"}``) or what to do next. Learning a sheet, as
:func:`vision.read.set_learning.learn_sheet` does it:

1. :func:`sheet_request` — the set's name and the kinds the ``tiles`` field names;
2. the page reads the photo without a set, at the reader's threshold, then while the count is
   not the sheet's at each of :data:`vision.read.set_sheet.SHEET_THRESHOLDS`
   (:func:`count_matches` says when to stop);
3. :func:`order_sheet` — the tiles found in the sheet's reading order, or the refusal of a
   count that is not the sheet's;
4. the page names the boxes with the classifier; :func:`judge_sheet` — the tiles read as other
   kinds than named, or the refusal of a sheet mostly so;
5. the page adds one reference per tile to the set, weighs it against the classifier and keeps
   it; :func:`learned_answer` — the answer.

Step 2's thresholds are :func:`sheet_thresholds`; a request's ``set`` (or an undo's ``name``)
the page does not hold is :func:`unknown_set`; :func:`fixed_numbers` reads the ``fixes`` field
as :func:`tile_to_add` takes it. The page's side is ``web/src/site/sets.js``.
"""
from __future__ import annotations

from typing import Any

from vision.read.set_sheet import (MOSTLY_OTHER, SetError, SheetRefused, disagreements, is_name,
                                   sheet_order, swapped)
from vision.server.api_error import ApiError
from vision.server.set_answers import learned_answer as _learned_answer
from vision.server.set_answers import set_counts, sheet_kinds, sheet_refused

from .reader import detections_of

MAX_REFERENCES = 400        # as the server keeps (vision.server.routes.setstore.SetStore)


def _error(exc: ApiError) -> dict:
    return {"status": exc.status, "body": {"error": exc.message, "code": exc.code, **exc.extra}}


def check_name(name: Any) -> dict | None:
    """None for a set's name; else the server's 422 ``bad_set_name`` answer."""
    from scoring.tiles import quoted

    if isinstance(name, str) and is_name(name):
        return None
    return _error(ApiError(422, "bad_set_name", f"set {quoted(str(name)[:40])} is no set's name: "
                                                "letters, digits, '_', '-' or '.', at most 40"))


def sheet_request(form: dict) -> dict:
    """Step 1: ``{"kinds": [...]}`` for the form's ``name`` and ``tiles``, or the refusal."""
    refused = check_name(form.get("name"))
    if refused:
        return refused
    try:
        return {"kinds": sheet_kinds(form.get("tiles"))}
    except ApiError as exc:
        return _error(exc)


def count_matches(reading: dict, kinds: list) -> bool:
    """Step 2: the reading found as many tiles as the sheet names."""
    return len(reading.get("tiles") or ()) == len(kinds)


def order_sheet(reading: dict, kinds: list) -> dict:
    """Step 3: ``{"reading": …}`` with its tiles in the sheet's reading order, or the 422
    ``tile_count`` answer with the tiles found."""
    from dataclasses import replace

    dets = detections_of(reading)
    dets = replace(dets, tiles=sheet_order(dets.tiles))
    if len(dets.tiles) != len(kinds):
        return _error(sheet_refused(SheetRefused(dets, len(kinds))))
    return {"reading": {**reading, "tiles": [
        {"tile": d.tile, "box": list(d.box), "confidence": d.confidence, "sideways": d.sideways,
         "alternatives": [list(a) for a in d.alternatives]} for d in dets.tiles]}}


def judge_sheet(reading: dict, kinds: list, probs: list, trust_order: bool = False) -> dict:
    """Step 4: ``{"disagreements": [...], "swaps": [...]}`` (indices 0-based, as
    :class:`vision.read.set_sheet.Disagreement`), or the 422 ``out_of_order`` answer."""
    found = disagreements(probs, kinds)
    if len(found) > MOSTLY_OTHER * len(kinds) and not trust_order:
        return _error(sheet_refused(SheetRefused(detections_of(reading), len(kinds), tuple(found))))
    return {"disagreements": [_plain(d) for d in found],
            "swaps": [[_plain(d), _plain(e)] for d, e in swapped(found)]}


def room(name: str, references: int, more: int) -> dict | None:
    """None when ``more`` references fit in the set; else the server's 422 ``set_full``."""
    from scoring.tiles import quoted

    if references + more <= MAX_REFERENCES:
        return None
    return _error(ApiError(422, "set_full", f"set {quoted(name)} holds {references} references; "
                                            f"this page keeps at most {MAX_REFERENCES} in a set: "
                                            "learn into a new one"))


def learned_answer(name: str, references: int, kinds: int, learned: int, judged: dict) -> dict:
    """Step 5: the answer, the set's size after learning (``judged``: step 4's)."""
    from vision.read.set_sheet import Disagreement

    found = [Disagreement(**d) for d in judged["disagreements"]]
    swaps = [(Disagreement(**d), Disagreement(**e)) for d, e in judged["swaps"]]
    return {"status": 200, "body": _learned_answer(name, references, kinds, learned, found, swaps)}


def sets_answer(sets: list[dict]) -> dict:
    """``/api/sets``: ``sets`` as the page keeps them (``name``, ``references``, ``kinds``)."""
    return {"status": 200, "body": {"sets": [set_counts(s["name"], s["references"], s["kinds"])
                                             for s in sets], "server_set": None}}


def tile_to_add(score: dict, n: Any, code: Any, fixes: dict) -> dict:
    """``/api/set/add``: the tile to learn from ``/api/score``'s answer for the same fields
    (``score``): ``{"tile": its entry}`` (its ``box``), or the server's refusal. Tile ``n``, or,
    when the user's fix for ``n`` names another tile (the numbers moved), the one tile fixed to
    ``code`` (as ``vision.server.routes.sets`` picks it)."""
    from scoring.tiles import quoted
    from vision.layout.fixspec import MAX_CODE
    from vision.read.classes import CLASS_INDEX

    code = str(code).strip()
    if code not in CLASS_INDEX:
        return _error(ApiError(422, "bad_tile", f"tile {quoted(code[:MAX_CODE])} is not a tile code "
                                                "such as '5p', '7z', '0p', '1f' or 'back'"))
    try:
        n = int(n)
    except (TypeError, ValueError):
        return _error(ApiError(422, "invalid_request", "n: the tile's number, as /api/score numbers it"))
    order = score.get("tiles") or []
    d = order[n - 1] if 0 < n <= len(order) else None
    if d is None or (n in {int(k) for k in (fixes or {})} and d["tile"] != code):
        same = [t for t in order if t["tile"] == code and t["confidence"] == 1.0]
        d = same[0] if len(same) == 1 else None
    if d is None:
        return _error(ApiError(422, "no_such_tile", f"the photo has no tile {n} (it has "
                                                    f"{len(order)}): nothing was added"))
    return {"tile": d, "code": code, "n": n}


def change_answer(name: str, references: int, kinds: int, **more) -> dict:
    """``/api/set/add``'s and ``/api/set/undo``'s answer: the set's size after (and ``more``:
    the ``tile``, and ``n`` for an addition)."""
    return {"status": 200, "body": set_counts(name, references, kinds, **more)}


def undo_refused(name: str, references: int, expect: Any) -> dict | None:
    """``/api/set/undo``: None when the last reference may be dropped; else the server's
    refusal (an empty set, or one changed since the size ``expect`` the page was told)."""
    from scoring.tiles import quoted

    if not references:
        return _error(ApiError(422, "empty_set", f"set {quoted(name)} holds no reference to drop"))
    if expect not in (None, "") and str(expect) != str(references):
        return _error(ApiError(409, "set_changed", f"set {quoted(name)} holds {references} "
                                                   f"references, not {expect}: it changed "
                                                   "since, and nothing was dropped"))
    return None


def sheet_thresholds() -> list:
    """Step 2's detector thresholds, in the order learn_sheet tries them."""
    from vision.read.set_sheet import SHEET_THRESHOLDS

    return list(SHEET_THRESHOLDS)


def unknown_set(name: str, known: list | None = None) -> dict:
    """The server's 422 ``unknown_set``: for a request's ``set`` (``known``: the sets' names,
    listed as ``SetStore.reader_for`` lists them), or for an undo (``known`` None: as
    ``SetStore.load`` says it)."""
    from scoring.tiles import quoted

    if known is None:
        return _error(ApiError(422, "unknown_set", f"no set named {quoted(name)} on this server"))
    names = ", ".join(sorted(known)[:20]) or "none yet"
    return _error(ApiError(422, "unknown_set", f"no set named {quoted(name)} on this server "
                                               f"(sets learned: {names})"))


def fixed_numbers(fixes: Any) -> dict:
    """The ``fixes`` form field (already accepted by ``/api/score``) as :func:`tile_to_add`
    takes it: ``{"n": tile}``."""
    from vision.server.fields import photo_inputs

    return {str(k): v for k, v in photo_inputs(None, fixes, None, None).fixes.items()}


def _plain(d) -> dict:
    return {"index": d.index, "given": d.given, "read": d.read, "confidence": d.confidence}


__all__ = ["SetError", "change_answer", "check_name", "count_matches", "fixed_numbers",
           "judge_sheet", "learned_answer", "order_sheet", "room", "sets_answer", "sheet_request",
           "sheet_thresholds", "tile_to_add", "undo_refused", "unknown_set"]
