"""A photo request's fields other than the photo, read and checked: the context, fixes,
declared melds, winning tile and (for a verdict) the table's facts. Every check raises
:class:`vision.server.api_error.ApiError` with one line naming the field at fault (quoted
short). No web framework here: the server's routes and the offline page
(``vision.offline``, in Pyodide) read a request's fields alike."""
from __future__ import annotations

from dataclasses import dataclass

from scoring.tiles import quoted
from vision.layout.fixspec import MAX_CODE, FixSpecError, fixes_from_json, melds_from_json

from .api_error import ApiError


@dataclass(frozen=True)
class PhotoInputs:
    """The form fields of a photo request other than the photo, decoded and checked."""

    context: dict                           # hand-request keys other than the tiles
    fixes: dict[int, str]                   # tile number (1-based) -> corrected tile
    melds: dict[tuple[int, int], str]       # (first, last) tile numbers -> declared type
    win_tile: str | None


def photo_inputs(context: str | None, fixes: str | None, melds: str | None,
                 win_tile: str | None) -> PhotoInputs:
    """The form fields of a photo request, decoded and checked. Raises ApiError 422 naming
    the field at fault (400 for one that is not JSON)."""
    ctx = parse_json_field("context", context, {})
    if not isinstance(ctx, dict):
        raise ApiError(422, "bad_context", "context must be a JSON object of hand-request keys")
    win = (win_tile or "").strip() or None
    if win is not None and len(win) > MAX_CODE:         # an error must not echo a megabyte back
        raise ApiError(422, "bad_win_tile", f"win_tile is one tile code such as '4m', not "
                                            f"{len(win)} characters")
    try:
        fix_map = fixes_from_json(parse_json_field("fixes", fixes, None))
        meld_map = melds_from_json(parse_json_field("melds", melds, None))
    except FixSpecError as exc:
        raise ApiError(422, exc.code, str(exc)) from None
    return PhotoInputs(ctx, fix_map, meld_map, win)


def parse_json_field(name: str, text: str | None, default):
    """A JSON form field → its value; ApiError 400 when it is not JSON."""
    if text is None or text.strip() == "":
        return default
    from vision.common.jsontext import load_json

    try:
        return load_json(text.lstrip("\ufeff"))     # a byte-order mark, as the CLI reads it
    except ValueError as exc:
        raise ApiError(400, "bad_json", f"form field {name!r} is not valid JSON: {exc}") from None


def table_facts(table: str | None) -> dict:
    """The ``table`` field of ``/api/check-photo`` → the keyword arguments of
    ``vision.photo.pipeline.check_photo`` (declared, revealed, discards, tournament, penalties).
    Raises ApiError 422 ``bad_table`` naming what is wrong (400 when it is not JSON)."""
    from scoring.hand import HandError
    from scoring.verdict import DECLARED_WINS, split_table_keys

    facts = parse_json_field("table", table, {})
    if not isinstance(facts, dict):
        raise ApiError(422, "bad_table", "table must be a JSON object")
    try:
        rest, kw = split_table_keys(facts)
    except HandError as exc:
        raise ApiError(422, "bad_table", f"table: {exc}") from None
    if kw.get("declared", "hu") not in DECLARED_WINS:
        raise ApiError(422, "bad_table", f"table: declared {quoted(kw['declared'])}: only a declared "
                                         "win ('hu', or 'ron'/'tsumo' as the context's win) is "
                                         "ruled on")
    if kw.pop("count_as_typed", False):
        # a photo's count is no typing: one that does not add up holds the ruling back
        raise ApiError(422, "bad_table", "table: count_as_typed is for typed hands "
                                         "(/api/check): a photo whose tiles do not add up "
                                         "is not ruled on; count the tiles at the table and "
                                         "send the hand to /api/check")
    if rest:
        raise ApiError(422, "bad_table", f"table: unknown key {quoted(sorted(rest)[0])} (declared, "
                                         "revealed, discards, tournament, penalties; the "
                                         "hand's own keys go in context)")
    kw["discards"] = facts.get("discards", "")
    return kw
