"""Photo → score: the main job, as a few stages over typed values.

``photo → detections → layout → corrections → hand → score / verdict``:

1. **read** (:func:`_read`): ``TileReader.read`` gives :class:`vision.read.detections.Detections`;
2. **layout** (:func:`vision.layout.grouping.group`): :class:`vision.layout.Layout`, the tiles grouped
   as a winning hand lies on the table;
3. **corrections** (:func:`vision.photo.corrections.correct`): the ordered steps of
   :data:`vision.photo.corrections.STEPS`, which also judge the hand (``judge``: the hand request,
   :class:`vision.photo.judging.PhotoRequest`, scored by ``scoring.api.score_hand`` or ruled on by
   ``scoring.verdict.check``);
4. **photo warnings** (:mod:`vision.photo.photo_warnings`), then :class:`PhotoResult`.

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

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from scoring.hand import HandError, Meld

from .corrections import correct, stage_seconds
from vision.read.detections import MAX_BOXES, Detections
from vision.layout.fixspec import fixes_from_python, melds_from_python
from vision.layout.grouping import NOT_IN_RIICHI, group, without_names  # noqa: F401 - without_names, NOT_IN_RIICHI: public here
from .judging import (PHOTO_KEYS, PLACEHOLDERS, Job, Judgement, PhotoError,  # noqa: F401 - PHOTO_KEYS, PLACEHOLDERS, validate_context: public here
                      PhotoRequest, Reading, TableContext, failed, score, validate_context)
from vision.layout import Layout, LayoutWarning
from .photo_warnings import (SMALL_TILE_PX, UNSURE_PHOTO, no_colour_warning,  # noqa: F401 - public here
                             reflections_warning, small_tiles_warning, too_many_boxes,
                             unsure_photo_warning)

_READER = None
_READER_WEIGHTS = None
_READER_LOCK = threading.Lock()


def get_reader(weights: str | None = None):
    """The shared :class:`vision.read.detector.TileReader`, loaded on first use (thread-safe).

    ``weights``: a folder with ``detector.onnx`` (and ``classifier.onnx``); default the bundled
    ``vision/weights``. Asking for other weights than the loaded ones loads those instead.
    Raises ``vision.read.detector.ModelError`` (a RuntimeError) when the model is missing.
    """
    global _READER, _READER_WEIGHTS
    key = str(weights) if weights else None
    with _READER_LOCK:
        if _READER is None or _READER_WEIGHTS != key:
            from vision.read.detector import TileReader

            _READER = TileReader(weights) if weights else TileReader()
            _READER_WEIGHTS = key
        return _READER


@dataclass(slots=True)
class PhotoResult:
    """Everything the pipeline found in one photo.

    ``detections``: the reader's tiles (after fixes). ``layout``: their grouping.
    ``request``: the hand request that was scored (:class:`vision.photo.judging.PhotoRequest`; None
    when no winning hand could be formed). ``result``: the scorer's result object
    (``scoring.riichi.RiichiResult``, ``scoring.mcr.McrResult``; ``scoring.api.ErrorResult``
    when the hand cannot be valued) or, for :func:`check_photo`, the referee's
    ``scoring.verdict.Verdict``; each has ``to_json()`` (``hand-json.md``).
    ``warnings``: every uncertain step, each with a fix to pass.
    ``seconds``: time spent per stage (``read``, ``layout``, ``score``), each correction step's
    counted to the stage :data:`vision.photo.corrections.STAGE_OF` names.
    """

    detections: Detections
    layout: Layout
    request: PhotoRequest | None
    result: Judgement
    warnings: list[LayoutWarning] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """A hand was formed and scored without error."""
        return self.request is not None and not failed(self.result)

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
            "request": None if self.request is None else self.request.to_json(),
            "result": self.result.to_json(),
            "warnings": [w.to_json() for w in self.warnings],
        }


@dataclass(frozen=True, slots=True)
class _Read:
    """The read stage's output: the reader's detections, the seconds taken, the photo as an
    array and the reader that read it (both None when the caller passed detections)."""

    detections: Detections
    seconds: float
    array: Any = None
    reader: Any = None


def _read(image: Any, reader) -> _Read:
    """Load the photo (``vision.read.imageio.load_image``) and read its tiles. A reader with
    its own ``take_photo`` (the offline page's, ``vision.offline.reader``: the browser has
    decoded the photo) takes the photo itself, and the photo is what it gives back."""
    start = time.perf_counter()
    if isinstance(image, Detections):        # already read (stream, tests)
        return _Read(image, 0.0)
    take_photo = getattr(reader, "take_photo", None)
    if take_photo is not None:
        array = take_photo(image)
    else:
        from vision.read.imageio import load_image

        array = load_image(image)
    reader = reader if reader is not None else get_reader()
    return _Read(reader.read(array), time.perf_counter() - start, array, reader)


def _not_crowded(detections: Detections) -> tuple[Detections, LayoutWarning | None]:
    """A photo read as ``MAX_BOXES`` boxes or more (the reader's cap: grain, noise or
    dithering read as tiles, not a hand) gets no tiles and a ``too_many_boxes`` warning."""
    boxes = detections.crowded or len(detections.tiles)
    if boxes < MAX_BOXES:
        return detections, None
    return replace(detections, tiles=[]), too_many_boxes(boxes)


def _int_fixes(fixes) -> dict[int, str]:
    """The user's fixes with whole-number keys; PhotoError naming a key that is not one."""
    try:
        return {int(k): v for k, v in (fixes or {}).items()}
    except ValueError as exc:
        raise PhotoError(str(exc)) from None


def _photo_warnings(reading: Reading, notes: list[LayoutWarning], job: Job) -> list[LayoutWarning]:
    """Every warning of the reading, in the report's order: ``too_many_boxes`` first (it says
    why no tiles were found: no ``tile_count`` then), the judged hand's, the correction steps'
    (``notes``), the renamings of the layout stage, then the photo's own
    (:mod:`vision.photo.photo_warnings`)."""
    warnings = reading.warnings
    if reading.crowded is not None:
        warnings = [reading.crowded] + [w for w in warnings if w.code != "tile_count"]
    photo = (small_tiles_warning(reading.detections),
             no_colour_warning(job.array, job.ctx.written, reading.layout),
             unsure_photo_warning(reading.as_read), reflections_warning(reading.detections))
    return warnings + notes + reading.renamed + [w for w in photo if w is not None]


def _rests_on_re_reading(result: Judgement, warnings: list[LayoutWarning]) -> Judgement:
    """``check``: a ruling for the player may rest on tiles re-read from the reader's next
    guesses: the paragraph a referee reads out says so, not only the warnings below it."""
    guessed = sorted({n for w in warnings if w.code == "corrected" for n in w.tiles})
    if not guessed or result.valid is not True or not getattr(result, "explanation", None):
        return result
    return replace(result, explanation=(
        f"{result.explanation} The value rests on tile{'s' if len(guessed) > 1 else ''} "
        f"{', '.join(map(str, guessed))}, re-read from the reader's next guesses (see the "
        "warnings): look at them before it is paid."))


def _run(image, context, reader, fixes, win_tile, judge, hand_only: bool, melds=None,
         discards: frozenset = frozenset()) -> PhotoResult:
    """The stages: read → layout → corrections (which judge the hand) → photo warnings."""
    ctx = TableContext.of(context)
    read = _read(image, reader)
    t0 = time.perf_counter()
    detections, crowded = _not_crowded(read.detections)
    grouped = group(detections, ctx.ruleset)
    job = Job(ctx, judge, hand_only, _int_fixes(fixes), melds, win_tile, discards, read.array, read.reader)
    first = Reading(grouped.detections, grouped.layout, crowded=crowded, renamed=grouped.warnings())
    t_group = time.perf_counter() - t0
    reading, notes, spent = correct(first, job)
    warnings = _photo_warnings(reading, notes, job)
    result = reading.result if hand_only else _rests_on_re_reading(reading.result, warnings)
    stages = stage_seconds(spent)       # each step's seconds to its stage (corrections.STAGE_OF)
    return PhotoResult(reading.detections, reading.layout, reading.request, result, warnings, {
        "read": read.seconds + stages["read"], "layout": t_group + stages["layout"],
        "score": stages["score"]})


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
    (``--set``): a :class:`vision.read.tileset.TileSet`, a set's name or a profile file
    (``docs/sets.md``); ``vision.read.tileset.SetError`` when it cannot be read.

    Returns a :class:`PhotoResult`; a hand that cannot be scored gives ``result.error`` and
    a warning, not an exception. Raises :class:`PhotoError` (a ValueError) for a bad context,
    fix, declared group or winning tile, ``vision.read.imageio.ImageError`` (a ValueError) for an unreadable image,
    and ``vision.read.detector.ModelError`` when no model can be loaded.
    """
    fixes, melds = fixes_from_python(fixes), melds_from_python(melds)   # named if malformed
    return _run(image, context, _reading_with(reader, tile_set), fixes, win_tile, score,
                hand_only=True, melds=melds)


def _reading_with(reader, tile_set):
    """``reader`` (default the shared one) reading with ``tile_set`` (a TileSet, name or file)."""
    if tile_set is None:
        return reader
    from vision.read.tileset import TileSet, load

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
    ``scoring.verdict.Verdict`` (``ruling``, ``valid``, ``penalty``, ``result``,
    ``explanation``); a hand the verdict cannot rule on (five of a kind…) gives an
    ``scoring.api.ErrorResult``.
    Raises as :func:`score_photo`, and PhotoError for bad ``discards``.
    """
    from scoring.api import ErrorResult
    from scoring.tiles import TileError, parse_tiles
    from scoring.verdict import check

    fixes, melds = fixes_from_python(fixes), melds_from_python(melds)   # named if malformed

    try:
        discard_tiles = tuple(parse_tiles(discards)) if discards else ()
    except TileError as exc:
        raise PhotoError(f"discards: {exc}") from None

    def judge(hand):
        try:
            # a count that is not a hand's is weighed here by the layout, not by the verdict:
            # its tile_count doubt holds back any ruling against the player (held_ruling),
            # naming the way to rule on a count the referee has checked (check --text)
            return check(hand, declared=declared, revealed=revealed, discards=discard_tiles,
                         tournament=tournament, options=options, count_as_typed=True)
        except HandError as exc:
            return ErrorResult(str(exc))

    return _run(image, context, _reading_with(reader, tile_set), fixes, win_tile, judge,
                hand_only=False, melds=melds, discards=frozenset(t.kind for t in discard_tiles))


# warnings about a *winning* hand's layout, which a hand in play (13 tiles, or 14 with the tile
# just drawn, no winning tile) does not owe
WIN_ONLY_WARNINGS = frozenset(("tile_count", "win_tile_not_shown", "hand_invalid"))


@dataclass(frozen=True, slots=True)
class HandInPlay:
    """The tiles of a hand in play read from a photo: ``concealed`` (Tile tuple, a tile set
    apart — the one just drawn — among them), ``melds`` (:class:`scoring.hand.Meld` tuple),
    ``dora_indicators`` (Tile tuple) and the layout's ``warnings`` (those a winning hand owes
    left out: :data:`WIN_ONLY_WARNINGS`). It unpacks as the 4-tuple
    ``(concealed, melds, dora_indicators, warnings)`` its callers took before it was a value
    (``concealed, melds, dora, warnings = read_hand_in_play(...)``)."""

    concealed: tuple
    melds: tuple[Meld, ...]
    dora_indicators: tuple
    warnings: list[LayoutWarning]

    def __iter__(self):
        return iter((self.concealed, self.melds, self.dora_indicators, self.warnings))


def read_hand_in_play(image: Any, ruleset: str = "riichi", *, reader=None, weights: str | None = None,
                      tile_set=None, fixes: dict[int, str] | None = None,
                      melds: dict[tuple[int, int], str] | None = None) -> HandInPlay:
    """The tiles of a hand in play in a photo, for ``tilescope waits``: read and grouped as
    :func:`score_photo` reads and groups a winning hand (the same reader and
    :func:`vision.layout.grouping.group`), then the user's ``fixes`` and ``melds`` laid over the
    layout (:func:`vision.layout.reparse_fixed`, as the ``user_fixes`` step does):
    :func:`layout_in_play` then :func:`hand_in_play`. None of the other correction steps
    (:data:`vision.photo.corrections.STEPS`) runs: they judge a winning hand.
    ``weights``/``tile_set``/``fixes``/``melds``: as ``score_photo``. Raises PhotoError when the
    photo shows no tile, ImageError for an unreadable image, and PhotoError for a meld the
    layout could not make legal."""
    return hand_in_play(layout_in_play(image, ruleset, reader=reader, weights=weights, tile_set=tile_set,
                                       fixes=fixes, melds=melds))


def layout_in_play(image: Any, ruleset: str = "riichi", *, reader=None, weights: str | None = None,
                   tile_set=None, fixes: dict[int, str] | None = None,
                   melds: dict[tuple[int, int], str] | None = None) -> Layout:
    """The layout of a hand in play in a photo, fixes and declared melds applied (its
    numbering is the one ``--fix N=TILE`` uses). Raises as :func:`read_hand_in_play`."""
    if reader is None and weights:
        reader = get_reader(weights)
    grouped = group(_read(image, _reading_with(reader, tile_set)).detections, ruleset)
    layout = grouped.layout
    if fixes or melds:
        from .corrections import declared_melds
        from vision.layout import reparse_fixed

        fixes = {int(k): v for k, v in (fixes or {}).items()}
        try:
            _, layout = reparse_fixed(layout, grouped.detections, fixes, declared=declared_melds(melds))
        except ValueError as exc:
            raise PhotoError(str(exc)) from None
    return layout


def hand_in_play(layout: Layout) -> HandInPlay:
    """The hand in play of a layout (its typed ``Layout.hand``): a tile set apart (the tile
    just drawn) joins the concealed tiles; the warnings a winning hand owes are left out.
    Raises PhotoError when the tiles make no hand."""
    from scoring.tiles import TileError, parse_tile, parse_tiles

    hand = layout.hand
    try:
        concealed = tuple(parse_tiles(hand.concealed))
        if hand.win_tile:
            concealed += (parse_tile(hand.win_tile),)
        hand_melds = tuple(Meld(m.type, tuple(parse_tiles(m.tiles)),
                                parse_tile(m.called) if m.called else None, m.from_)
                           for m in hand.melds)
        dora = tuple(parse_tiles(hand.dora_indicators or ""))
    except TileError as exc:
        raise PhotoError(f"the tiles read do not make a hand: {exc}") from None
    if not concealed and not hand_melds:
        raise PhotoError("no tiles could be read in the photo")
    return HandInPlay(concealed, hand_melds, dora,
                      [w for w in layout.warnings if w.code not in WIN_ONLY_WARNINGS])
