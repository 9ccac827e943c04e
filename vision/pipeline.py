"""Photo → score: the main job, as plain functions over plain values.

``photo → detections (TileReader) → layout (parse_layout) → hand request → score / verdict``.

:func:`score_photo` and :func:`check_photo` take a photo (path, bytes or BGR array), the
context a photo cannot show (the request keys of ``docs/hand-json.md`` other than the
tiles), user corrections (``fixes``: ``{3: "5p"}`` = the third tile in reading order is 5p) and
an optional winning tile, and return a :class:`PhotoResult` whose ``to_json()`` is the
``tilescope score --json`` shape::

    {"image": {"width", "height"}, "tiles": [...], "layout": {...}, "request": {...},
     "result": {...}, "warnings": [...]}

The tile reader is a module-level singleton loaded on first use (:func:`get_reader`), so a
server or a stream shares one model.
"""
from __future__ import annotations

import math
import statistics
import threading
import time
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

from scoring.hand import HandError, check
from scoring.request import parse_request

from .detections import MAX_BOXES, Detection, Detections
from .joint_fix import concealed_row_sorted, is_sorted_row, joint_correction, playing_kind
from .layout import (LOW_CONFIDENCE, Layout, LayoutWarning, closed_kan_shown, declare_groups,
                     parse_layout, reparse_fixed, set_shape, tiles_add_up)
from .rows import BACK, row_direction

# Keys of a request that come from the photo, never from the context. (``win_tile``,
# ``dora_indicators`` and ``flowers`` may come from either; the context wins.)
PHOTO_KEYS = ("concealed", "melds")
# Complete hands, used only to check the context on its own: a closed one without melds, and
# one with a closed kan whose winning tile is its only copy (room for rinshan and chankan).
_PLACEHOLDERS = ({"concealed": "123m456m789m123p4p", "win_tile": "4p"},
                 {"concealed": "123m456m46p11s", "melds": [{"type": "ankan", "tiles": "1111z"}],
                  "win_tile": "5p"})
# The smallest tiles (box long side, image pixels) in the classifier's training crops
# (models/train_classifier.py: 16..34 px for broadcast-size tiles).
SMALL_TILE_PX = 16
# Below this median tile confidence the photo as a whole is called unsure (unsure_photo): on
# 40 rendered hands each, 72% of the held-out jade set's photos, 13% of riichi-regular's
# (mostly taken from low down) and 3% of riichi-black's.
UNSURE_PHOTO = 0.4
# Riichi is played without flowers and seasons (they are taken out of the set), so a tile the
# reader thinks looks most like one is another tile of the hand read poorly.
NOT_IN_RIICHI = frozenset(f"{n}f" for n in range(1, 9))

_READER = None
_READER_WEIGHTS = None
_READER_LOCK = threading.Lock()


class PhotoError(ValueError):
    """Bad input to the photo pipeline: a bad context, fix or winning tile (the message says
    which); unreadable images raise :class:`vision.imageio.ImageError` instead."""


def get_reader(weights: str | None = None):
    """The shared :class:`vision.detector.TileReader`, loaded on first use (thread-safe).

    ``weights``: a folder with ``detector.onnx`` (and ``classifier.onnx``); default the bundled
    ``vision/weights``. Asking for other weights than the loaded ones loads those instead.
    Raises ``vision.detector.ModelError`` (a RuntimeError) when the model is missing.
    """
    global _READER, _READER_WEIGHTS
    key = str(weights) if weights else None
    with _READER_LOCK:
        if _READER is None or _READER_WEIGHTS != key:
            from .detector import TileReader

            _READER = TileReader(weights) if weights else TileReader()
            _READER_WEIGHTS = key
        return _READER


@dataclass(slots=True)
class PhotoResult:
    """Everything the pipeline found in one photo.

    ``detections``: the reader's tiles (after fixes). ``layout``: their grouping.
    ``request``: the hand request that was scored (None when no winning hand could be formed).
    ``result``: the scorer's result dict (``hand-json.md``) or, for :func:`check_photo`, the
    verdict dict. ``warnings``: every uncertain step, each with a fix to pass.
    ``seconds``: time spent per stage (``read``, ``layout``, ``score``).
    """

    detections: Detections
    layout: Layout
    request: dict | None
    result: dict
    warnings: list[LayoutWarning] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """A hand was formed and scored without error."""
        return self.request is not None and not self.result.get("error")

    def to_json(self) -> dict:
        """The ``tilescope score --json`` object; each tile also gets its reading-order number
        ``n`` (for fixes), its ``group`` (``concealed``, ``win``, ``meld0``.., ``dora``,
        ``flower``, ``loose``) and the reader's ``alternatives``; a tile corrected from the
        reader's next guesses (a ``corrected`` warning names it) has ``"corrected": true``, its
        confidence being the correction's (1.0), not the reader's, and ``"read_as": [tile,
        confidence]``, the reader's own reading of it."""
        corrected = {n for w in self.warnings if w.code == "corrected" for n in w.tiles}
        groups = {}
        melds = 0
        for g in self.layout.groups:
            name = g.kind
            if g.kind == "meld":
                name, melds = f"meld{melds}", melds + 1
            for d in g.detections:
                groups[id(d)] = name
        tiles = []
        for n, d in enumerate(self.layout.order, start=1):
            entry = d.to_json()
            entry["n"] = n
            entry["group"] = groups.get(id(d), "loose")
            if n in corrected:
                entry["corrected"] = True
                if d.alternatives:      # apply_fixes put the replaced reading first
                    entry["read_as"] = [d.alternatives[0][0], round(d.alternatives[0][1], 4)]
            if d.alternatives:
                entry["alternatives"] = [[t, round(c, 4)] for t, c in d.alternatives]
            tiles.append(entry)
        return {
            "image": {"width": self.detections.width, "height": self.detections.height},
            "tiles": tiles,
            "layout": self.layout.to_json(),
            "request": self.request,
            "result": self.result,
            "warnings": [w.to_json() for w in self.warnings],
        }


def validate_context(context: dict | None) -> dict:
    """Check the context as ``tilescope hand`` checks a request, without the tiles.

    Returns a copy. Raises :class:`PhotoError` for a non-object, a tile key the photo gives
    (``concealed``, ``melds``), an unknown key, a bad value/type, or flags that no hand could
    carry, such as ippatsu without riichi (the scorer's message).
    """
    if context is None:
        return {}
    if not isinstance(context, dict):
        raise PhotoError(f"the context must be a JSON object, got {type(context).__name__}")
    ctx = dict(context)
    for key in PHOTO_KEYS:
        if key in ctx:
            raise PhotoError(f"context key {key!r}: the tiles come from the photo "
                             "(correct a misread tile with --fix N=TILE)")
    try:
        parse_request({"ruleset": "riichi", "win": "tsumo", **_PLACEHOLDERS[0], **ctx})
    except HandError as exc:
        raise PhotoError(f"context: {exc}") from None
    # Flags that no hand can carry (ippatsu without riichi, tenhou by ron...) are the
    # context's fault: an error on every placeholder hand is one. One that only some hand
    # avoids (rinshan needs a kan) waits for the photo's tiles.
    flags = {k: v for k, v in ctx.items() if k != "win_tile"}
    problems = []
    for hand in _PLACEHOLDERS:
        try:
            check(parse_request({"ruleset": "riichi", "win": "tsumo", **hand, **flags}))
        except HandError as exc:
            problems.append(str(exc))
        else:
            return ctx
    raise PhotoError(f"context: {problems[0]}")


def _read(image: Any, reader) -> tuple[Detections, float, Any]:
    """The detections, the seconds taken, and the photo as an array (``None`` when ``image``
    was already read)."""
    from .imageio import load_image

    start = time.perf_counter()
    if isinstance(image, Detections):        # already read (stream, tests)
        return image, 0.0, None
    array = load_image(image)
    reader = reader if reader is not None else get_reader()
    return reader.read(array), time.perf_counter() - start, array


def _recounted(array, reader, ruleset: str, first: Detections):
    """When the boxes first found do not add up to a winning hand's tiles, a second look
    through a reader that can take one (``look_again``: :meth:`vision.detector.TileReader.
    look_again`, the ways of :data:`vision.detector.SECOND_LOOKS` in turn). Returns
    ``(detections, layout, renamed, faces, warning)`` (as :func:`_grouped`) of the first look
    whose tiles add up, else ``None``; the warning says the count was found on a second look.
    ``first``: the first look's detections (their number goes in the warning)."""
    look = getattr(reader, "look_again", None)
    if look is None:
        return None
    from .detector import SECOND_LOOKS     # here: importing the pipeline must not load cv2

    for how, said in SECOND_LOOKS.items():
        detections, layout, renamed, faces = _grouped(look(array, how), ruleset)
        if tiles_add_up(layout):
            warning = LayoutWarning(
                "recounted",
                f"the {len(first.tiles)} boxes found first do not add up to a winning hand; a "
                f"second look {said} found {len(detections.tiles)} that do, and those were "
                "scored. If a tile is still missing or doubled, take the photo square on to the "
                "row")
            return detections, layout, renamed, faces, warning
    return None


def _declared(melds) -> dict[tuple[int, int], str] | None:
    """``melds`` (``{(first, last): type}``) with whole-number ends; PhotoError for a key that
    is not two tile numbers."""
    if not melds:
        return None
    out = {}
    for span, kind in melds.items():
        try:
            first, last = (int(n) for n in span)
        except (TypeError, ValueError):
            raise PhotoError(f"melds: {span!r} is not (first, last) tile numbers") from None
        out[(first, last)] = kind
    return out


def _grouped(detections: Detections, ruleset: str):
    """The reader's tiles grouped as a winning hand is laid out: names the set in play lacks
    replaced (riichi: no flowers), then :func:`parse_layout`, :func:`_faces_for_backs` and
    :func:`_flowers_in_row`. Returns ``(detections, layout, renamed, faces)``: the tiles
    renamed for the set or the row, and those read face down that were taken as faces."""
    renamed: list[Detection] = []
    if ruleset == "riichi":
        detections, renamed = without_names(detections, NOT_IN_RIICHI)
    layout = parse_layout(detections, ruleset)
    detections, layout, faces = _faces_for_backs(detections, layout)
    detections, layout, in_row = _flowers_in_row(detections, layout)
    return detections, layout, renamed + in_row, faces


def without_names(detections: Detections, absent: frozenset[str],
                  only: list[Detection] | None = None) -> tuple[Detections, list[Detection]]:
    """``detections`` with each tile named in ``absent`` (names the set in play lacks, e.g.
    :data:`NOT_IN_RIICHI`) renamed to its likeliest alternative that is not, with that
    alternative's confidence; names in ``absent`` are also dropped from every tile's
    alternatives. ``only``: look at these tiles (the objects of ``detections.tiles``) alone.
    A tile with no other alternative keeps its name. Returns the new detections and the
    renamed tiles (objects of the new list), in reading order."""
    tiles, renamed = [], []
    for d in detections.tiles:
        if only is not None and not any(d is o for o in only):
            tiles.append(d)
            continue
        alts = tuple((t, c) for t, c in d.alternatives if t not in absent)
        if d.tile in absent and alts:
            d = replace(d, tile=alts[0][0], confidence=alts[0][1], alternatives=alts[1:])
            renamed.append(d)
        elif len(alts) != len(d.alternatives):
            d = replace(d, alternatives=alts)
        tiles.append(d)
    return replace(detections, tiles=tiles), renamed


def _faces_for_backs(detections: Detections, layout: Layout) -> tuple[Detections, Layout, list[Detection]]:
    """A winning hand is laid face up: a tile of the concealed part or the winning tile read
    as face down (``back``) is a face the reader took for a back — a blank white dragon or a
    set with dark faces — so it takes its likeliest face name (:func:`without_names`) and the
    photo is parsed again. A closed kan's backs are a meld, not these, also when the parser
    left the kan (back, face, face, back) in the hand row: they stay, and the parse without
    the other backs can set the kan apart (rendered riichi-black hand no. 115: three white
    dragons read as backs hid the closed kan beside them)."""
    hand = [d for g in layout.groups if g.kind in ("concealed", "win") for d in g.detections]
    kan_ends = {id(hand[i + k]) for i in range(len(hand) - 3) if closed_kan_shown(hand[i:i + 4])
                for k in (0, 3)}
    backs = [d for d in hand if d.tile == BACK and id(d) not in kan_ends]
    if not backs:
        return detections, layout, []
    absent = frozenset({BACK}) | (NOT_IN_RIICHI if layout.ruleset == "riichi" else frozenset())
    detections, renamed = without_names(detections, absent, only=backs)
    if not renamed:
        return detections, layout, []
    return detections, parse_layout(detections, layout.ruleset), renamed


def _flowers_in_row(detections: Detections, layout: Layout) -> tuple[Detections, Layout, list[Detection]]:
    """MCR: flowers are set aside, away from the hand, so a tile read as a flower that lies in
    the concealed row between two of its tiles (across the row within half a tile of the
    line through them; along it, more than a third of a tile inside both ends) is a tile of
    the hand read poorly: it takes its likeliest non-flower name (:func:`without_names`) and
    the photo is parsed again. A flower in line beyond the row's end is left alone."""
    flowers = [d for g in layout.groups if g.kind == "flower" for d in g.detections]
    row = [d for g in layout.groups if g.kind == "concealed" for d in g.detections]
    if layout.ruleset != "mcr" or not flowers or len(row) < 2:
        return detections, layout, []
    cx = [d.center[0] for d in row]
    cy = [d.center[1] for d in row]
    mx, my = sum(cx) / len(cx), sum(cy) / len(cy)
    angle = row_direction(row)
    ux, uy = math.cos(angle), math.sin(angle)
    along = [(x - mx) * ux + (y - my) * uy for x, y in zip(cx, cy)]
    side = sorted(max(d.width, d.height) for d in row)[len(row) // 2]
    inside = []
    for f in flowers:
        fx, fy = f.center[0] - mx, f.center[1] - my
        t, off = fx * ux + fy * uy, abs(-fx * uy + fy * ux)
        if off < side / 2 and min(along) + side / 3 < t < max(along) - side / 3:
            inside.append(f)
    if not inside:
        return detections, layout, []
    detections, renamed = without_names(detections, NOT_IN_RIICHI, only=inside)
    if not renamed:
        return detections, layout, []
    return detections, parse_layout(detections, layout.ruleset), renamed


def _hand_request(layout: Layout, ctx: dict, win_tile: str | None) -> tuple[dict | None, str | None]:
    """The full request (context + photo tiles), or (None, why) when no winning tile is known."""
    win = win_tile or ctx.get("win_tile")
    if win:
        try:
            tiles = layout.request_for_win(win)
        except ValueError as exc:
            raise PhotoError(str(exc)) from None
    else:
        tiles = dict(layout.tile_request)
    if "win_tile" not in tiles:
        if not layout.order:
            return None, "no tiles could be read in the photo (see the warnings)"
        return None, ("no winning hand could be formed from the tiles seen "
                      "(see the warnings; pass --fix N=TILE or --win-tile TILE)")
    ruleset = ctx.get("ruleset", "riichi")
    req: dict = {"ruleset": ruleset, "win": "tsumo"}
    for key, value in tiles.items():
        if key == "dora_indicators" and ruleset != "riichi":
            continue
        if key == "flowers" and ruleset != "mcr":
            continue
        req[key] = value
    for key, value in ctx.items():
        if key == "win_tile":
            continue
        req[key] = value            # the context wins over what the photo shows
    return req, None


def _score(req: dict) -> dict:
    from scoring.api import score_json

    return score_json(req)


def _value(result: dict) -> tuple:
    """Sort key for 'the highest-scoring reading' (riichi: payment; MCR: total points); a
    verdict counts by whether the win stands, then by the hand's value."""
    if "ruling" in result:
        return (1 if result.get("valid") else 0,) + _value(result.get("result") or {})[1:]
    if result.get("error") or not result:
        return (-1, 0)
    pay = (result.get("payment") or {}).get("total", 0)
    return (1 if result.get("valid") else 0, result.get("total", 0) if "total" in result else pay)


def _best_win_tile(layout: Layout, ctx: dict, judge) -> tuple[dict, dict, str]:
    """When the winning tile was not set apart: score each candidate, keep the best."""
    best = None
    for code in layout.win_candidates:
        tiles_req, _ = _hand_request(layout, {**ctx, "win_tile": code}, None)
        if tiles_req is None:
            continue
        if layout.ruleset == "mcr":
            tiles_req["win_tile_shown"] = False
        res = judge(tiles_req)
        if best is None or _value(res) > _value(best[1]):
            best = (tiles_req, res, code)
    return best


@dataclass(frozen=True, slots=True)
class _Correction:
    number: int          # reading order, 1-based
    read_as: str
    confidence: float
    tile: str            # the alternative that makes the hand score


# Single-tile corrections are looked for among this many of the least sure tiles, each with
# its two next guesses: every try is a full re-parse (a changed tile can regroup the photo), and
# on 100 held-out-style photos, 8 tiles instead of 4 took 36 ms a photo against 22 ms and
# found no more winning hands (nor on 113 riichi-regular ones; models/README.md).
SUGGEST_TILES = 4


def _suggest_fixes(detections: Detections, layout: Layout, ctx: dict, judge,
                   limit: int = 3) -> list[_Correction]:
    """Single-tile corrections from the reader's alternatives that make the hand score.

    Tried lowest confidence first (at most ``SUGGEST_TILES`` tiles, 2 alternatives each).
    """
    tried = sorted((d for d in layout.order if d.alternatives),
                   key=lambda d: d.confidence)[:SUGGEST_TILES]
    out = []
    for d in tried:
        n = layout.number(d)
        for alt, _ in d.alternatives[:2]:
            try:
                _, fixed = reparse_fixed(layout, detections, {n: alt})
            except ValueError:
                continue
            req, _ = _hand_request(fixed, ctx, None)
            if req is not None and not judge(req).get("error"):
                out.append(_Correction(n, d.tile, d.confidence, alt))
                break
        if len(out) >= limit:
            break
    return out


def _corrected(detections: Detections, layout: Layout, fixes: dict[int, str], ctx: dict,
               win_tile: str | None, judge, message):
    """Re-read tiles ``fixes`` (``{number: tile}``) and judge the hand again: if it then scores,
    ``(detections, layout, request, result, warnings, corrected warning)``, else None.
    ``message(was, now, undo)`` words the warning: the tiles as read, the fixes, and the
    ``--fix`` options that restore the reading."""
    fixed, new_layout = reparse_fixed(layout, detections, fixes)
    reds = _red_fives(new_layout, ctx, frozenset(fixes))
    if reds:            # the fixes completed four plain fives: one of them is the red five
        fixes = {**fixes, **reds}
        fixed, new_layout = reparse_fixed(layout, detections, fixes)
    req, result, warnings = _judge_layout(new_layout, ctx, win_tile, judge)
    if req is None or result.get("error"):
        return None
    return fixed, new_layout, req, result, warnings, _fix_note(layout, fixes, message)


def _red_fives(layout: Layout, ctx: dict, keep: frozenset[int] = frozenset()) -> dict[int, str]:
    """Fixes ``{number: "0m"}`` that make one five red in each suit whose four fives the hand
    (concealed part, winning tile, melds) shows, all read plain, when riichi is played with red
    fives (``rules.aka``): such a set has one red five per suit, so one of the four is red
    (scoring.hand refuses four plain ones), and which one does not change the score. The five
    the reader thought likeliest red is chosen, else the surest one (the least sure may be no
    five at all); tiles ``keep`` (the user's own --fix) are never changed."""
    if ctx.get("ruleset", "riichi") != "riichi" or not (ctx.get("rules") or {}).get("aka", True):
        return {}
    out = {}
    hand = [d for g in layout.groups if g.kind in ("concealed", "win", "meld") for d in g.detections]
    for suit in "mps":
        fives = [d for d in hand if d.tile in (f"5{suit}", f"0{suit}")]
        if len(fives) != 4 or any(d.tile == f"0{suit}" for d in fives):
            continue
        free = [d for d in fives if layout.number(d) not in keep]
        if not free:
            continue
        red = max(free, key=lambda d: (dict(d.alternatives).get(f"0{suit}", 0.0), d.confidence))
        out[layout.number(red)] = f"0{suit}"
    return out


def _red_note(layout: Layout, reds: dict[int, str]) -> LayoutWarning:
    """The ``corrected`` warning for :func:`_red_fives`; its fix is the rule, not a tile: a
    ``--fix N=5p`` would only move the red five to another of the four."""
    numbers = sorted(reds)
    was = ", ".join(f"{n} as {layout.order[n - 1].tile}" for n in numbers)
    now = ", ".join(f"{n}={reds[n]}" for n in numbers)
    no_aka = """--context '{"rules": {"aka": false}}'"""
    return LayoutWarning(
        "corrected",
        f"the hand shows all four fives of a suit and none was read red, but a set with red "
        f"fives has one in each suit: read tile {was}; scored it as the red five ({now}). If the "
        f"set has no red fives, pass {no_aka}", no_aka, tuple(numbers))


def _fix_note(layout: Layout, fixes: dict[int, str], message) -> LayoutWarning:
    """The ``corrected`` warning for ``fixes`` made to ``layout``'s tiles (see :func:`_corrected`)."""
    numbers = sorted(fixes)
    before = {n: layout.order[n - 1] for n in numbers}
    was = ", ".join(f"{n} as {before[n].tile} ({before[n].confidence:.2f})" for n in numbers)
    now = ", ".join(f"{n}={fixes[n]}" for n in numbers)
    undo = _undo(before, numbers)
    return LayoutWarning("corrected", message(was, now, undo), undo, tuple(numbers))


# The joint re-reading looks first at the tiles under LOW_CONFIDENCE; when no complete hand is
# found among their guesses, at those under this too, with a quarter of the search's visits
# (a 2m read as 3m at 0.60 beside a 3m read as 5m: rendered broadcast hand no. 2; +1 hand
# there and on jade, none lost, and the jade median unchanged at ~23 ms after reading).
SURE_ENOUGH = 0.8


def _joint_fix(detections: Detections, layout: Layout, ctx: dict, win_tile: str | None, judge,
               scored_as_read: bool = False):
    """When the hand as read makes no winning hand (or, ``scored_as_read``, makes one only from
    an unsorted concealed row): re-read its unsure tiles jointly (``vision.joint_fix``) and, if
    the most probable complete hand (a sorted one preferred) scores, return
    ``(detections, layout, request, result, warnings)`` for it with a ``corrected`` warning
    naming every changed tile and the ``--fix`` that restores the reading; else None."""
    fixes = joint_correction(layout)
    if fixes is None:       # no complete hand among the unsure tiles: look at the fairly sure too
        fixes = joint_correction(layout, low_confidence=SURE_ENOUGH, max_visits=500)
    if not fixes:
        return None
    why = ("the tiles as read make a winning hand only from an unsorted row"
           if scored_as_read else "the tiles as read make no winning hand")
    # a kind the reader did not guess came from the tile's neighbours in the sorted row
    guessed = {n: code in {t for t, _ in layout.order[n - 1].alternatives} for n, code in fixes.items()}
    source = ("the reader's next guesses" if all(guessed.values()) else
              "the tiles' neighbours in the sorted row" if not any(guessed.values())
              else "the reader's next guesses and the sorted row")
    found = _corrected(detections, layout, fixes, ctx, win_tile, judge, lambda was, now, undo: (
        f"{why}: read tile {was}; scored the most likely complete hand"
        f"{' laid sorted' if scored_as_read else ''} from {source} ({now}). "
        f"If the reading was right, pass {undo}"))
    if found is None:
        return None
    fixed, new_layout, req, result, warnings, note = found
    warnings.append(note)
    return fixed, new_layout, req, result, warnings


def _value_text(result: dict) -> str:
    """A scored hand's value in a few words: ``2 han 30 fu, 2000``, ``yakuman (kokushi
    musou), 32000`` or ``27 points``."""
    if "han" in result:
        from scoring.riichi.limits import value_words
        return f"{value_words(result)}, {result['payment']['total']}"
    return f"{result['total']} points"


def _winning_re_reading(detections: Detections, layout: Layout, ctx: dict, win_tile: str | None):
    """The winning hand ``score`` would make of an incomplete reading, as
    ``(detections, layout, request, result, warnings)`` with the ``corrected`` note last: the
    joint re-reading (:func:`_joint_fix`), else one unsure tile's next guess; None if neither
    makes a valid win."""
    from scoring.api import score_json

    found = _joint_fix(detections, layout, ctx, win_tile, score_json)
    if found is None:
        first = next(iter(_suggest_fixes(detections, layout, ctx, score_json)), None)
        if first is not None and first.confidence < LOW_CONFIDENCE:
            one = _corrected(detections, layout, {first.number: first.tile}, ctx, win_tile,
                             score_json, lambda was, now, undo: "")
            found = None if one is None else one[:4] + (one[4] + [one[5]],)
    return found if found is not None and found[3].get("valid") else None


def _in_doubt(d) -> bool:
    """A face-up tile read under ``LOW_CONFIDENCE`` whose doubt could change a ruling: not a
    five that is surely a five, red or plain (its confidence and its twin's next-guess share
    together reach ``LOW_CONFIDENCE``) — red or not, a five makes the same sets, the same
    waits and the same yaku; only its dora differ."""
    sure = d.confidence
    if d.tile[0] in "05" and d.tile[1:] in ("m", "p", "s"):
        twin = ("0" if d.tile[0] == "5" else "5") + d.tile[1]
        sure += sum(p for alt, p in d.alternatives if alt == twin)
    return d.tile != "back" and sure < LOW_CONFIDENCE


def _furiten_whatever_the_tiles(layout: Layout, verdict: dict, read: dict, discards: frozenset) -> bool:
    """A furiten ruling on a ron whose winning tile, set apart in the photo and read surely
    (``read``: the reader's own detections by box), is itself in the player's discards."""
    from scoring.tiles import parse_tiles
    from scoring.verdict import RIICHI_FURITEN

    win = next((g.detections[0] for g in layout.groups if g.kind == "win" and g.detections), None)
    if verdict.get("ruling") != RIICHI_FURITEN or win is None:
        return False
    seen = read.get(win.box, win)
    return not _in_doubt(seen) and parse_tiles(seen.tile)[0].kind in discards


def _layout_doubts(layout: Layout, warnings: list, confirmed: bool) -> list[str]:
    """What in the photo's layout, surely read tiles or not, a ruling against the player may
    rest on: a tile count that does not add up (a tile cut off, hidden or doubled), a meld
    taken as called with no turned tile seen, and — unless the referee has confirmed tiles
    (``confirmed``: fixes given) — a concealed row not in the order players lay a winning hand
    in (a tile under glare or a thumb read surely as another)."""
    doubts = [w.message + (": count the hand's tiles at the table and rule with `tilescope check "
                           "--text`" if w.code == "tile_count" else
                           " (or --meld N-M=TYPE with its type if it was called)")
              for w in warnings if w.code in ("tile_count", "meld_without_sideways")]
    if not confirmed and layout.order and not concealed_row_sorted(layout):
        doubts.append("the concealed tiles as read are not in the order a winning hand is laid "
                      "in, so one may be misread however sure the reader was (glare, a thumb): "
                      "look at each, and confirm them with --fix N=TILE")
    return doubts


def _unsure_ruling(layout: Layout, verdict: dict, unsure_photo: LayoutWarning | None,
                   re_read, reader_saw: Detections | None = None,
                   discards: frozenset = frozenset(), doubts: list[str] = ()) -> dict | None:
    """``tilescope check PHOTO``: a misread tile must not cost a player a penalty. A verdict
    that the win does not stand is no ruling when the reader was unsure of most of the photo's
    tiles (``unsure_photo``), or, for a hand that is no win at all (chombo, a false hu:
    ``verdict["result"]`` is None), when ``re_read()`` (:func:`_winning_re_reading`, called only
    then) makes a winning hand of it, or, for any verdict against the player (no yaku, under
    the MCR minimum, furiten too), when a tile of the hand was read under ``LOW_CONFIDENCE``
    and its doubt could change the ruling (:func:`_in_doubt`), as the reader read it
    (``reader_saw``: a tile an automatic correction re-read has confidence 1.0 in ``layout``).
    ``doubts`` (:func:`_layout_doubts`): the layout's own doubts, which hold a ruling back too.
    One ruling stands whatever the other tiles are: a ron on a surely read winning tile that is
    in the player's own discards (``discards``, tile kinds) is chombo — the true hand, if
    complete with that tile, waits on it and is furiten; if not, it is no win.
    Returns the result that replaces it (the verdict's keys, ``ruling``/``penalty``/``result``
    None, ``valid`` false, ``error`` and ``explanation`` naming the tiles to look at and the
    ``--fix`` answers), or None when the verdict stands."""
    if verdict.get("error") or verdict.get("valid") is not False:
        return None
    as_read = f"as read ({verdict['ruling']})"
    why = None
    if unsure_photo is not None:
        why = (f"{as_read}, but {unsure_photo.message.split(':')[0]}; check every tile (--fix) "
               "or take the photo again")
    else:
        no_win = verdict.get("result") is None
        found = re_read() if no_win else None
        read = {d.box: d for d in (reader_saw.tiles if reader_saw is not None else ())}
        low = [(layout.number(d), read.get(d.box, d)) for g in layout.groups
               if g.kind in ("concealed", "win", "meld") for d in g.detections
               if _in_doubt(read.get(d.box, d))]
        if found is not None:
            _, new_layout, _, score, warnings = found
            numbers = warnings[-1].tiles            # the re-reading's `corrected` note
            was = ", ".join(f"{n} as {layout.order[n - 1].tile} ({layout.order[n - 1].confidence:.2f})"
                            for n in numbers)
            undo = " ".join(f"--fix {n}={layout.order[n - 1].tile}" for n in numbers)
            fixes = " ".join(f"--fix {n}={new_layout.order[n - 1].tile}" for n in numbers)
            why = (f"{as_read} the hand is not a winning hand, but the reader was unsure of "
                   f"tile{'s' if len(numbers) > 1 else ''} {was}, and its next guesses make a "
                   f"winning hand ({_value_text(score)}). Look at the tiles: pass {undo} if they "
                   f"are as read, {fixes} if not")
        elif low and _furiten_whatever_the_tiles(layout, verdict, read, discards):
            why = None
        elif low:
            named = ", ".join(f"{n} as {d.tile} ({d.confidence:.2f})" for n, d in sorted(low))
            what = "the hand is not a winning hand" if no_win else "the win does not stand"
            confirm = " ".join(f"--fix {n}={d.tile}" for n, d in sorted(low))
            why = (f"{as_read} {what}, but the reader was unsure of "
                   f"tile{'s' if len(low) > 1 else ''} {named}. Look at "
                   f"{'them' if len(low) > 1 else 'it'}: pass {confirm} if "
                   f"{'they are' if len(low) > 1 else 'it is'} as read, --fix N=TILE for a misread one")
        elif doubts and not _furiten_whatever_the_tiles(layout, verdict, read, discards):
            what = "the hand is not a winning hand" if no_win else "the win does not stand"
            why = f"{as_read} {what}, but " + "; and ".join(doubts)
    if why is None:
        return None
    return {"ruleset": verdict.get("ruleset"), "ruling": None, "valid": False, "penalty": None,
            "result": None, "explanation": f"Cannot rule from this photo: {why}.", "error": why}


def _repair_stopped_by(detections: Detections, layout: Layout, ctx: dict, win_tile: str | None,
                       judge) -> LayoutWarning | None:
    """When the melds made legal by their unsure tiles' next guesses (``Layout.meld_repairs``)
    give a complete hand that is still refused for something else — a flag of the context
    that the tiles contradict (``last_copy`` with another copy held) — a ``repair_refused``
    warning naming that: the report's own error is about the meld as read, which hides it."""
    try:
        _, fixed = reparse_fixed(layout, detections, dict(layout.meld_repairs))
    except ValueError:
        return None
    req, result, _ = _judge_layout(fixed, ctx, win_tile, judge)
    why = result.get("error")
    if req is None or not why:
        return None
    tiles = tuple(sorted(layout.meld_repairs))
    read = ", ".join(f"{n} as {fixed.order[n - 1].tile}" for n in tiles)
    return LayoutWarning(
        "repair_refused",
        f"with tile{'s' if len(tiles) > 1 else ''} {read} (the reader's next guesses) the melds "
        f"are legal, but the hand is still refused: {why}", "", tiles)


def _repaired_melds(detections: Detections, layout: Layout, ctx: dict, win_tile: str | None, judge,
                    joint: bool = True):
    """When the hand as read cannot be scored and the layout found melds that one unsure tile's
    next guess makes legal (``Layout.meld_repairs``): re-read those tiles so, and if the hand
    then scores — as it is, or after the joint re-reading of its concealed part
    (:func:`_joint_fix`: a misread meld tile and a misread hand tile in one photo; not with
    ``joint`` false) — return ``(detections, layout, request, result, warnings, corrected
    warning)``; else None."""
    fixes = dict(layout.meld_repairs)

    def message(was, now, undo):
        return (f"tiles set apart like an exposed meld are no legal set as read: read tile {was}; "
                f"scored with the reader's next guess ({now}), which makes the meld legal. If the "
                f"reading was right, pass {undo}")

    found = _corrected(detections, layout, fixes, ctx, win_tile, judge, message)
    if found is not None or not joint:
        return found
    fixed, new_layout = reparse_fixed(layout, detections, fixes)
    joint = _joint_fix(fixed, new_layout, ctx, win_tile, judge)
    if joint is None:
        return None
    return (*joint, _fix_note(layout, fixes, message))


def _judge_layout(layout: Layout, ctx: dict, win_tile: str | None, judge):
    """(request, result, warnings) for one layout: the winning tile as shown, given, or the
    best-scoring candidate when it was not set apart (with a warning saying so)."""
    warnings = list(layout.warnings)
    win = win_tile or ctx.get("win_tile")
    if win:
        warnings = [w for w in warnings if w.code != "win_tile_not_shown"]
    req, why = _hand_request(layout, ctx, win_tile)
    if req is None:
        return None, {"valid": False, "error": why}, warnings
    if not (layout.win_candidates and not win):
        return req, judge(req), warnings
    req, result, code = _best_win_tile(layout, ctx, judge)
    others = [c for c in layout.win_candidates if c != code]
    warnings = [w for w in warnings if w.code != "win_tile_not_shown"]
    also = f" (could also be {', '.join(others)})" if others else ""
    if layout.ruleset == "mcr":
        text = ("the winning tile is not set apart: scored as not shown (no Edge/Closed/Single "
                f"Wait, Last Tile or Nine Gates; seed rules §1.9) with {code}{also}")
    else:
        text = f"the winning tile is not set apart: scored with {code}, the highest-scoring choice{also}"
    warnings.append(LayoutWarning("win_tile_not_shown", text, f"--win-tile {code}"))
    return req, result, warnings


# A flower guess under this is the classifier's noise, not a flower: a box on a shadow away
# from an MCR hand, read as a back at 0.48 with 7f at 0.0009 among its guesses, was counted
# as a flower point (rendered riichi-regular hand no. 165). On photos composed from real tiles
# (3 Dec) the boxes counted at 0.01 were 5 flowers and 81 others (reflections, discards, the
# table's grain, a doubled box); a flower's guess was at least 0.07 and at least 0.28 of its
# reading's, the others' a median 0.03 and 0.17: at these floors 5 flowers and 13 others.
FLOWER_GUESS = 0.05
FLOWER_SHARE = 0.25     # ... and at least this share of the tile's own reading


def _unsure_flowers(layout: Layout) -> dict[int, str]:
    """MCR: fixes ``{number: flower code}`` for the tiles left out of the hand (the layout's
    loose tiles) that the reader was unsure of (confidence under ``LOW_CONFIDENCE``) and
    thought might be a flower (one among its next guesses, at ``FLOWER_GUESS`` or more and
    ``FLOWER_SHARE`` of its reading): an
    MCR player sets the flowers aside, away from the hand, and the classifier knows the
    flowers of few sets. Each gets a flower code no other tile holds, its own guess first. A
    tile the user fixed has confidence 1, so it is left alone."""
    if layout.ruleset != "mcr":
        return {}
    taken = {d.tile for d in layout.order if d.tile.endswith("f")}
    out: dict[int, str] = {}
    for d in (d for g in layout.groups if g.kind == "loose" for d in g.detections):
        n = layout.number(d)
        guesses = [t for t, p in d.alternatives if t.endswith("f") and p >= FLOWER_GUESS
                   and p >= FLOWER_SHARE * d.confidence]
        if d.confidence >= LOW_CONFIDENCE or not guesses:
            continue
        free = [t for t in guesses + [f"{k}f" for k in range(1, 9)] if t not in taken]
        if free:
            out[n] = free[0]
            taken.add(free[0])
    return out


def _flowers_beside_flowers(layout: Layout) -> dict[int, str]:
    """MCR, when the tiles do not add up to a winning hand: fixes ``{number: flower code}``
    for the unsure tiles (under ``LOW_CONFIDENCE``) outside the concealed row that lie touching
    a flower, or a tile so taken, along the row (centres at most ``BESIDE_FLOWER`` tile widths
    apart). A player sets the flowers apart together, and the classifier knows the flowers of
    few sets: a flower it misreads as a suit tile beside the others was taken for the winning
    tile set apart, or for a meld (tested on photos composed from the real tile crops). Each
    gets a flower code no other tile holds."""
    if layout.ruleset != "mcr" or tiles_add_up(layout):
        return {}
    flowers = [d for d in layout.order if d.tile.endswith("f")]
    if not flowers:
        return {}
    width = statistics.median(min(d.width, d.height) for d in layout.order)
    concealed = {id(d) for g in layout.groups if g.kind == "concealed" for d in g.detections}
    unsure = [d for d in layout.order if id(d) not in concealed and not d.tile.endswith("f")
              and d.confidence < LOW_CONFIDENCE]
    near, grown = list(flowers), True
    while grown:
        grown = False
        for d in unsure:
            if all(d is not f for f in near) and \
                    any(math.dist(d.center, f.center) <= BESIDE_FLOWER * width for f in near):
                near.append(d)
                grown = True
    taken = {d.tile for d in flowers}
    out: dict[int, str] = {}
    for d in near[len(flowers):]:
        free = [f"{k}f" for k in range(1, 9) if f"{k}f" not in taken]
        if free:
            out[layout.number(d)] = free[0]
            taken.add(free[0])
    return out


BESIDE_FLOWER = 1.35    # touching tiles' centres are about one tile width apart


def _undo(before: dict, numbers: list[int]) -> str:
    """The ``--fix`` options that restore tiles ``numbers`` as first read (``before``)."""
    return " ".join(f"--fix {n}={before[n].tile}" for n in numbers)


def _flowers_warning(before: dict, numbers: list[int], beside: bool = False) -> LayoutWarning:
    """The ``corrected`` warning for tiles :func:`_unsure_flowers` (or, ``beside``,
    :func:`_flowers_beside_flowers`) counted as flowers."""
    was = ", ".join(f"{n} ({before[n].tile}, {before[n].confidence:.2f})" for n in numbers)
    undo = _undo(before, numbers)
    why = ("lying with the flowers, read unsure, and the tiles add up to a winning hand only "
           "so" if beside else "set aside from the hand, read unsure with a flower among the "
           "next guesses")
    return LayoutWarning(
        "corrected",
        f"counted as flowers: tile {was} {why} (each flower is a point). If not a flower, "
        f"pass {undo}", undo, tuple(numbers))


def _renamed_warning(layout: Layout, renamed: list[Detection], code: str, why: str) -> LayoutWarning | None:
    """A warning ``code`` listing the tiles that :func:`without_names` renamed (numbered in
    ``layout``; a renamed box the layout dropped as doubled is not listed) and ``why``."""
    kept = [(n, d) for n, d in enumerate(layout.order, start=1) if any(d is r for r in renamed)]
    if not kept:
        return None
    listed = ", ".join(f"{n} as {d.tile}" for n, d in kept)
    return LayoutWarning(code, f"{why}: read tile {listed}, the reader's next guess",
                         " ".join(f"--fix {n}=TILE" for n, _ in kept), tuple(n for n, _ in kept))


def _unsorted_warning(layout: Layout, ctx: dict, win_tile: str | None, judge) -> LayoutWarning:
    """The ``unsorted_row`` warning: the hand was scored from a concealed row that is not in
    order (``vision.joint_fix.is_sorted_row``). Players lay a winning hand down sorted, so
    some of its tiles are misread, or form an exposed meld whose turned tile the photo does
    not show (a chi or pon scored as concealed tiles changes the hand's value). When some
    sets of three side by side in the row, declared exposed melds, leave it sorted and the
    hand still scores (:func:`_melds_in_row`), the warning names them and the ``--meld``
    flags to pass."""
    row = [d for g in layout.groups if g.kind == "concealed" for d in g.detections]
    numbers = tuple(layout.number(d) for d in row)
    text = (f"the concealed tiles {numbers[0]}-{numbers[-1]} ({' '.join(d.tile for d in row)}) "
            "are not laid in order, as a winning hand is: some may be misread, or be an exposed "
            "meld whose turned tile was not seen (scored as concealed). Check them; ")
    found = _melds_in_row(layout, ctx, win_tile, judge)
    if not found:
        return LayoutWarning("unsorted_row", text + "if tiles N to M are an exposed meld, pass "
                             "--meld N-M=chi (or pon, daiminkan, kakan, ankan)", "", numbers)
    flags = " ".join(f"--meld {a}-{b}={kind}" for (a, b), kind in found.items())
    sets = " and ".join(f"{a}-{b} ({''.join(layout.order[n - 1].tile[0] for n in range(a, b + 1))}"
                        f"{layout.order[a - 1].tile[1]})" for a, b in found)
    return LayoutWarning(
        "unsorted_row", text + f"the row is in order without tiles {sets}: if "
        f"{'they are exposed melds' if len(found) > 1 else 'they are an exposed meld'} laid as "
        f"called, pass {flags}", flags, numbers)


# Exposed melds looked for in an unsorted concealed row: at most this many at once.
ROW_MELDS = 2


def _melds_in_row(layout: Layout, ctx: dict, win_tile: str | None, judge) -> dict[tuple[int, int], str]:
    """Sets of three tiles side by side in the concealed row (a chi in any order: a called
    tile is laid first; a pon) that, declared exposed melds, leave the rest of the row sorted
    and the hand still scoring: ``{(first, last): "chi" | "pon"}``, the fewest that do (at
    most :data:`ROW_MELDS`), the leftmost first; ``{}`` when none does."""
    row = [d for g in layout.groups if g.kind == "concealed" for d in g.detections]
    free = 4 - sum(1 for g in layout.groups if g.kind == "meld")
    kinds = [playing_kind(d.tile) for d in row]
    if None in kinds:
        return {}
    sets = [(i, shape) for i in range(len(row) - 2)
            if (shape := set_shape([d.tile for d in row[i:i + 3]])) in ("chi", "pon")]
    for n in range(1, min(free, ROW_MELDS) + 1):
        for chosen in combinations(sets, n):
            starts = [i for i, _ in chosen]
            if any(b - a < 3 for a, b in zip(starts, starts[1:])):
                continue                        # two sets sharing a tile
            taken = {j for i in starts for j in range(i, i + 3)}
            if not is_sorted_row([k for j, k in enumerate(kinds) if j not in taken]):
                continue
            spans = [sorted(layout.number(d) for d in row[i:i + 3]) for i in starts]
            if any(ns != list(range(ns[0], ns[0] + 3)) for ns in spans):
                continue                        # numbered apart (an earlier reading's numbers)
            declared = {(ns[0], ns[2]): shape for ns, (_, shape) in zip(spans, chosen)}
            try:
                regrouped = declare_groups(layout, declared)
            except ValueError:
                continue
            req, result, _ = _judge_layout(regrouped, ctx, win_tile, judge)
            if req is not None and not result.get("error"):
                return declared
    return {}


def _unsure_photo_warning(detections: Detections) -> LayoutWarning | None:
    """The ``unsure_photo`` warning when the reader named most of the photo's tiles unsurely
    (median confidence under ``UNSURE_PHOTO``): a tile set unlike the ones it was trained on,
    a camera low over the table, blur. Each unsure tile has its own ``low_confidence``
    warning; this one says that the photo as a whole should not be trusted."""
    confs = sorted(d.confidence for d in detections.tiles)
    if not confs or confs[len(confs) // 2] >= UNSURE_PHOTO:
        return None
    return LayoutWarning(
        "unsure_photo",
        f"the reader is unsure of most tiles in this photo (median confidence "
        f"{confs[len(confs) // 2]:.2f}): an unfamiliar tile set, a camera low over the table or "
        "blur. Check every tile, or take the photo from above")


# A photo in which fewer than this share of pixels show any colour (channels more than
# COLOUR_STEP apart, 0..255, once its exposure is brought up to full range) has none:
# greyscale, or a black-and-white filter. Rendered hands and the real photos show 1.4% and
# more (a grey photo 0.0%). A dark photo is lifted by at most MAX_COLOUR_GAIN (x8: JPEG
# chroma noise of a grey photo, ~2 levels, stays under COLOUR_STEP).
COLOURED_SHARE = 0.002
COLOUR_STEP = 24
MAX_COLOUR_GAIN = 8.0
# A tinted black-and-white photo (sepia, a "warm" or "cool" mono filter) has colour, but one
# that follows the brightness alone: at each grey level one chroma. Around the hand, brought
# down to TINT_SIZE px (area averaging: JPEG's chroma error is fine detail), a colour photo
# has its ink off the body's chroma at the same grey level: TINT_STEP levels off in 4.2% of
# the pixels and more (120 rendered hands of four styles, 1280x720 broadcast frames among
# them; the real photos 8% and more); sepia copies of them, saved at JPEG quality 60 or
# 90, 2.5% at most (the real photos' 0.0%).
TINT_SIZE = 96
TINT_STEP = 16.0
TINTED_SHARE = 0.033


def _off_tint_share(array, layout: Layout) -> float:
    """The share of pixels around the hand (its tiles' span and a tenth more each way, brought
    down to ``TINT_SIZE`` px) whose chroma is more than ``TINT_STEP`` levels off the mean
    chroma of their grey level: near 0 for a tinted black-and-white photo (see
    ``TINTED_SHARE``)."""
    import cv2
    import numpy as np

    boxes = np.array([d.box for d in layout.order], np.float64)
    (x1, y1), (x2, y2) = boxes[:, :2].min(axis=0), boxes[:, 2:].max(axis=0)
    mx, my = 0.1 * (x2 - x1), 0.1 * (y2 - y1)
    h, w = array.shape[:2]
    area = array[int(max(0, y1 - my)):int(min(h, y2 + my)), int(max(0, x1 - mx)):int(min(w, x2 + mx))]
    if area.size == 0:
        return 1.0
    f = TINT_SIZE / max(area.shape[:2])
    s = (cv2.resize(area, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else area).astype(np.float32)
    b, g, r = s[..., 0], s[..., 1], s[..., 2]
    gain = max(1.0, min(MAX_COLOUR_GAIN, 255.0 / max(float(np.percentile(s.max(axis=2), 99)), 1.0)))
    x, y = (r - g) * gain, ((r + g) / 2 - b) * gain       # red-green and yellow-blue axes
    level = np.clip(((b + g + r) / 3 * gain / 8).astype(np.int64), 0, 31).ravel()
    n = np.maximum(np.bincount(level, minlength=32), 1)
    mean_x = np.bincount(level, x.ravel(), minlength=32) / n
    mean_y = np.bincount(level, y.ravel(), minlength=32) / n
    off = np.hypot(x.ravel() - mean_x[level], y.ravel() - mean_y[level])
    return float((off > TINT_STEP).mean())


def _no_colour_warning(array, ctx: dict, layout: Layout) -> LayoutWarning | None:
    """The ``no_colour`` warning for a riichi hand played with red fives (``rules.aka``) in a
    photo without colour (grey, or tinted: :func:`_off_tint_share`): a red five is told from a
    plain one by its red ink alone, so every five read is a guess between the two (the payment
    may lack its aka dora)."""
    if (array is None or array.ndim != 3 or not layout.order or ctx.get("ruleset", "riichi") != "riichi"
            or not (ctx.get("rules") or {}).get("aka", True)):
        return None
    step = max(1, max(array.shape[:2]) // 256)          # a coarse look is enough
    import numpy as np

    small = array[::step, ::step].astype("float32")
    top = small.max(axis=2)
    # an underexposed photo has its colours at a few levels apart: judge it as if exposed fully
    gain = min(MAX_COLOUR_GAIN, 255.0 / max(float(np.percentile(top, 99)), 1.0))
    if (float(((top - small.min(axis=2)) * max(gain, 1.0) > COLOUR_STEP).mean()) >= COLOURED_SHARE
            and _off_tint_share(array, layout) >= TINTED_SHARE):
        return None
    fives = [n for n, d in enumerate(layout.order, start=1) if d.tile[0] in "05" and d.tile[1:] in ("m", "p", "s")]
    which = (f" (tile{'s' if len(fives) > 1 else ''} {', '.join(map(str, fives))})" if fives else "")
    return LayoutWarning(
        "no_colour",
        "the photo has no colour, so a red five cannot be told from a plain five" + which
        + ": pass --fix N=0m (0p, 0s) for each red five, or take the photo in colour",
        "", tuple(fives))


def _small_tiles_warning(detections: Detections) -> LayoutWarning | None:
    """A warning when the tiles are smaller in the photo than the classifier was trained on
    (``SMALL_TILE_PX``, the median long side of the boxes in image pixels): its names are
    guesses there, whatever confidence it gives."""
    sides = sorted(max(d.width, d.height) for d in detections.tiles)
    if not sides:
        return None
    median = sides[len(sides) // 2]
    if median >= SMALL_TILE_PX:
        return None
    return LayoutWarning(
        "small_tiles",
        f"the tiles are only about {median:.0f} px high in the photo, smaller than the "
        f"{SMALL_TILE_PX} px the reader was trained on: check every tile, or take the photo "
        "closer or at a higher resolution")


def _run(image, context, reader, fixes, win_tile, judge, hand_only: bool, melds=None,
         discards: frozenset = frozenset()) -> PhotoResult:
    ctx = validate_context(context)
    ruleset = ctx.get("ruleset", "riichi")
    detections, t_read, array = _read(image, reader)
    t0 = time.perf_counter()
    crowded = None
    boxes = detections.crowded or len(detections.tiles)
    if boxes >= MAX_BOXES:
        # the reader's cap reached: grain, noise or dithering read as tiles, not a hand
        crowded = LayoutWarning(
            "too_many_boxes",
            f"the reader found {boxes} or more tile-like boxes, more than a whole "
            "table holds: the photo is too grainy, noisy or dithered to read. Take it again in "
            "better light, without a filter or a black-and-white mode")
        detections = replace(detections, tiles=[])
    detections, layout, renamed, faces = _grouped(detections, ruleset)
    recounted = None
    if array is not None and crowded is None and not tiles_add_up(layout) and not _unsure_flowers(layout):
        start = time.perf_counter()
        again = _recounted(array, reader if reader is not None else get_reader(), ruleset, detections)
        if again is not None:
            detections, layout, renamed, faces, recounted = again
        spent = time.perf_counter() - start      # a second reading: the reader's time
        t_read, t0 = t_read + spent, t0 + spent
    not_flowers = _renamed_warning(layout, renamed, "not_flowers", (
        "riichi is played without flowers, but some tiles looked most like one" if ruleset == "riichi"
        else "flowers are set aside, but some tiles inside the hand's row looked most like one"))
    not_backs = _renamed_warning(layout, faces, "not_backs",
                                 "a winning hand is shown face up, but some of its tiles looked face down")
    if fixes or melds:
        try:
            detections, layout = reparse_fixed(layout, detections,
                                               {int(k): v for k, v in (fixes or {}).items()},
                                               declared=_declared(melds))
        except ValueError as exc:
            raise PhotoError(str(exc)) from None
    as_read = detections    # the reader's confidences: automatic corrections below make theirs 1.0
    flowers = _unsure_flowers(layout)
    beside = False
    if flowers:
        before = {n: layout.order[n - 1] for n in flowers}
        detections, layout = reparse_fixed(layout, detections, flowers)
    elif not fixes:
        flowers = _flowers_beside_flowers(layout)
        if flowers:
            before = {n: layout.order[n - 1] for n in flowers}
            fixed = reparse_fixed(layout, detections, flowers)
            if tiles_add_up(fixed[1]):
                detections, layout = fixed
                beside = True
            else:
                flowers = {}
    t_layout = time.perf_counter() - t0

    t0 = time.perf_counter()
    req, result, warnings = _judge_layout(layout, ctx, win_tile, judge)
    red_note = None
    reds = _red_fives(layout, ctx, frozenset(int(k) for k in (fixes or {}))) if result.get("error") else {}
    if reds:
        # four plain fives of a suit: with red fives in play one is red. Taken only when the
        # hand then scores as read; a misread five is left to the corrections below (which
        # give one red again if their hand holds four: _corrected)
        red_dets, red_layout = reparse_fixed(layout, detections, reds)
        red_req, red_result, red_warnings = _judge_layout(red_layout, ctx, win_tile, judge)
        complete = not red_result.get("error") and ("ruling" not in red_result or red_result.get("result"))
        if red_req is not None and complete:         # (a verdict on a complete hand has its score)
            red_note = _red_note(layout, reds)
            detections, layout, req, result, warnings = red_dets, red_layout, red_req, red_result, red_warnings
    repaired = None
    if result.get("error") and layout.meld_repairs:
        # a meld that is no legal set cannot be on the table: its unsure tile was misread, for
        # a verdict too (which then rules on the hand as repaired; it never re-reads the
        # concealed part into a win, which could hide a false hu)
        found = _repaired_melds(detections, layout, ctx, win_tile, judge, joint=hand_only)
        if found is not None:
            detections, layout, req, result, warnings, repaired = found
        else:
            repaired = _repair_stopped_by(detections, layout, ctx, win_tile, judge)
    # re-read jointly when the hand as read makes no winning hand, or makes one from a row
    # that is not sorted (players lay a winning hand down sorted: vision.joint_fix)
    unsorted = not result.get("error") and not concealed_row_sorted(layout)
    joint = (_joint_fix(detections, layout, ctx, win_tile, judge, scored_as_read=unsorted)
             if (result.get("error") or unsorted) and hand_only else None)
    if joint is not None:
        detections, layout, req, result, warnings = joint
    elif result.get("error") and req is not None and hand_only:
        found = _suggest_fixes(detections, layout, ctx, judge)
        first = found[0] if found else None
        if first is not None and first.confidence < LOW_CONFIDENCE:
            # the reader was unsure of this tile and its next guess makes a winning hand:
            # score that, and say so (never silently)
            detections, layout = reparse_fixed(layout, detections, {first.number: first.tile})
            req, result, warnings = _judge_layout(layout, ctx, win_tile, judge)
            warnings.append(LayoutWarning(
                "corrected",
                f"tile {first.number} was read as {first.read_as} (confidence "
                f"{first.confidence:.2f}), which makes no winning hand; scored with the reader's "
                f"next guess {first.tile}. If {first.read_as} was right, pass the fix",
                f"--fix {first.number}={first.read_as}", (first.number,)))
        else:
            fixes_text = [f"--fix {c.number}={c.tile}" for c in found]
            hint = (" — these corrections would make it a winning hand: " + ", ".join(fixes_text)
                    if fixes_text else "")
            warnings.append(LayoutWarning(
                "hand_invalid", f"the hand as read cannot be scored: {result['error']}{hint}",
                fixes_text[0] if fixes_text else ""))
    unsure_photo = _unsure_photo_warning(as_read)
    if not hand_only:
        held = _unsure_ruling(layout, result, unsure_photo,
                              lambda: _winning_re_reading(detections, layout, ctx, win_tile), as_read,
                              discards, _layout_doubts(layout, warnings, bool(fixes)))
        result = result if held is None else held
    if hand_only and not result.get("error") and not concealed_row_sorted(layout):
        warnings.append(_unsorted_warning(layout, ctx, win_tile, judge))
    t_score = time.perf_counter() - t0
    if crowded is not None:     # it says why no tiles were found
        warnings = [crowded] + [w for w in warnings if w.code != "tile_count"]
    if repaired is not None:
        warnings.append(repaired)
        if repaired.code == "repair_refused" and hand_only and result.get("error"):
            # the meld as read hides the real cause (a flag the repaired hand contradicts):
            # the report's first line says it
            result = {**result, "error": f"{repaired.message}; as read, {result['error']}"}
    if recounted is not None:
        warnings.append(recounted)
    if red_note is not None:
        warnings.append(red_note)
    if flowers:
        warnings.append(_flowers_warning(before, sorted(flowers), beside))
    warnings.extend(w for w in (not_flowers, not_backs) if w is not None)
    small = _small_tiles_warning(detections)
    if small is not None:
        warnings.append(small)
    grey = _no_colour_warning(array, ctx, layout)
    if grey is not None:
        warnings.append(grey)
    if unsure_photo is not None:
        warnings.append(unsure_photo)
    if detections.reflections:
        n = len(detections.reflections)
        warnings.append(LayoutWarning(
            "reflections",
            f"{n} box{'es' if n > 1 else ''} just beyond the tiles' feet looked like their mirror "
            f"image{'s' if n > 1 else ''} in the table top (glass) and {'were' if n > 1 else 'was'} "
            "not counted; if a tile is missing, take the photo on a table that does not reflect"))
    guessed = sorted({n for w in warnings if w.code == "corrected" for n in w.tiles})
    if not hand_only and guessed and result.get("valid") is True and result.get("explanation"):
        # a ruling for the player may rest on tiles re-read from the reader's next guesses:
        # the paragraph a referee reads out says so, not only the warnings below it
        result = {**result, "explanation": (
            f"{result['explanation']} The value rests on tile{'s' if len(guessed) > 1 else ''} "
            f"{', '.join(map(str, guessed))}, re-read from the reader's next guesses (see the "
            "warnings): look at them before it is paid.")}
    return PhotoResult(detections, layout, req, result, warnings,
                       {"read": t_read, "layout": t_layout, "score": t_score})


def score_photo(image: Any, context: dict | None = None, *, reader=None,
                fixes: dict[int, str] | None = None, win_tile: str | None = None,
                melds: dict[tuple[int, int], str] | None = None, tile_set=None) -> PhotoResult:
    """Read, group and score the winning hand in a photo.

    ``image``: a file path, the file's bytes, a binary file object, an ``(H, W, 3) uint8``
    BGR array (OpenCV's order: a PIL or RGB array reads red fives as plain), or already-made
    :class:`Detections`. ``context``: request keys of ``hand-json.md`` other than
    the tiles (``ruleset`` default ``riichi``, ``win`` default ``tsumo``, ``seat_wind``,
    ``round_wind``, ``riichi``, ``dora_indicators`` (else the photo's dora row), ``flowers``
    (else the flower tiles seen), win events…); ``win_tile`` there acts as the argument.
    ``reader``: anything with ``read(image_bgr) -> Detections`` (default the shared
    :func:`get_reader`). ``fixes``: ``{reading-order number: tile code}``. ``win_tile``: the
    winning tile when the photo does not set it apart (or to overrule the one it does).
    ``melds``: groups the photo cannot show, ``{(first, last): type}`` in reading-order numbers
    (``--meld 9-11=chi``: tiles 9 to 11 are an exposed chi; types ``chi pon daiminkan kakan
    ankan``, or ``concealed`` for tiles of the concealed part; see
    :func:`vision.layout.declare_groups`), numbered as the report without them numbers the
    tiles; they hold through every correction. ``tile_set``: the set profile to read with
    (``--set``): a :class:`vision.tileset.TileSet`, a set's name or a profile file
    (``docs/sets.md``); ``vision.tileset.SetError`` when it cannot be read.

    Returns a :class:`PhotoResult`; a hand that cannot be scored gives ``result["error"]`` and
    a warning, not an exception. Raises :class:`PhotoError` (a ValueError) for a bad context,
    fix, declared group or winning tile, ``vision.imageio.ImageError`` (a ValueError) for an unreadable image,
    and ``vision.detector.ModelError`` when no model can be loaded.
    """
    return _run(image, context, _reading_with(reader, tile_set), fixes, win_tile, _score,
                hand_only=True, melds=melds)


def _reading_with(reader, tile_set):
    """``reader`` (default the shared one) reading with ``tile_set`` (a TileSet, name or file)."""
    if tile_set is None:
        return reader
    from .tileset import TileSet, load

    base = reader if reader is not None else get_reader()
    return base.with_set(tile_set if isinstance(tile_set, TileSet) else load(str(tile_set)))


def check_photo(image: Any, context: dict | None = None, *, reader=None,
                fixes: dict[int, str] | None = None, win_tile: str | None = None,
                melds: dict[tuple[int, int], str] | None = None, declared: str = "hu", revealed: bool = True, discards: str = "",
                tournament: bool = False, options=None, tile_set=None) -> PhotoResult:
    """The referee's verdict on a declared win, from a photo of the hand (``tilescope check``).

    Same inputs as :func:`score_photo`, plus what happened at the table, passed on to
    :func:`scoring.verdict.check`: ``declared`` (``hu``), ``revealed`` (the hand was laid
    open), ``discards`` (the player's own discards, mpsz, for riichi furiten), ``tournament``
    and ``options`` (``scoring.verdict.PenaltyOptions``). ``PhotoResult.result`` is the
    verdict's JSON (``ruling``, ``valid``, ``penalty``, ``result``, ``explanation``); a hand
    the verdict cannot rule on (five of a kind…) gives ``{"valid": false, "error": ...}``.
    Raises as :func:`score_photo`, and PhotoError for bad ``discards``.
    """
    from scoring.tiles import TileError, parse_tiles
    from scoring.verdict import check

    try:
        discard_tiles = tuple(parse_tiles(discards)) if discards else ()
    except TileError as exc:
        raise PhotoError(f"discards: {exc}") from None

    def judge(req: dict) -> dict:
        try:
            hand = parse_request(req)
            # a count that is not a hand's is weighed here by the layout, not by the verdict:
            # its tile_count doubt holds back any ruling against the player (_layout_doubts),
            # naming the way to rule on a count the referee has checked (check --text)
            return check(hand, declared=declared, revealed=revealed, discards=discard_tiles,
                         tournament=tournament, options=options, count_as_typed=True).to_json()
        except HandError as exc:
            return {"valid": False, "error": str(exc)}

    return _run(image, context, _reading_with(reader, tile_set), fixes, win_tile, judge,
                hand_only=False, melds=melds, discards=frozenset(t.kind for t in discard_tiles))


# warnings about a *winning* hand's layout, which a hand in play (13 tiles, or 14 with the tile
# just drawn, no winning tile) does not owe
_WIN_ONLY_WARNINGS = frozenset(("tile_count", "win_tile_not_shown", "hand_invalid"))


def read_hand_in_play(image: Any, ruleset: str = "riichi", *, reader=None, weights: str | None = None,
                      tile_set=None, fixes: dict[int, str] | None = None,
                      melds: dict[tuple[int, int], str] | None = None) -> tuple[tuple, tuple, tuple, list[LayoutWarning]]:
    """The tiles of a hand in play in a photo, read and grouped as :func:`score_photo` reads
    and groups a winning hand (the same reader, :func:`parse_layout` and its corrections), for
    ``tilescope waits``: ``(concealed, melds, dora indicators, warnings)`` as Tile and
    :class:`scoring.hand.Meld` tuples. A tile set apart (the tile just drawn) joins the
    concealed tiles. ``weights``/``tile_set``/``fixes``/``melds``: as ``score_photo``. Raises PhotoError when the
    photo shows no tile, ImageError for an unreadable image, and PhotoError for a meld the
    layout could not make legal."""
    from scoring.hand import Meld
    from scoring.tiles import TileError, parse_tile, parse_tiles

    if reader is None and weights:
        reader = get_reader(weights)
    detections, _, _ = _read(image, _reading_with(reader, tile_set))
    detections, layout, _, _ = _grouped(detections, ruleset)
    if fixes or melds:
        try:
            detections, layout = reparse_fixed(layout, detections, {int(k): v for k, v in (fixes or {}).items()},
                                               declared=_declared(melds))
        except ValueError as exc:
            raise PhotoError(str(exc)) from None
    req = layout.tile_request
    try:
        concealed = tuple(parse_tiles(req.get("concealed", "")))
        if req.get("win_tile"):
            concealed += (parse_tile(req["win_tile"]),)
        melds = tuple(Meld(m["type"], tuple(parse_tiles(m["tiles"])),
                           parse_tile(m["called"]) if m.get("called") else None, m.get("from"))
                      for m in req.get("melds", ()))
        dora = tuple(parse_tiles(req.get("dora_indicators", "")))
    except (TileError, KeyError) as exc:
        raise PhotoError(f"the tiles read do not make a hand: {exc}") from None
    if not concealed and not melds:
        raise PhotoError("no tiles could be read in the photo")
    warnings = [w for w in layout.warnings if w.code not in _WIN_ONLY_WARNINGS]
    return concealed, melds, dora, warnings
