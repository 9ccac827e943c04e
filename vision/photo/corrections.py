"""The corrections after a first reading, as one ordered list of named steps (:data:`STEPS`).

Each step takes the reading as it stands (:class:`vision.photo.judging.Reading`: detections, layout
and, once judged, the hand's request, judgement and warnings) and what the caller asked for
(:class:`vision.photo.judging.Job`), and returns the reading, corrected or not, with the warnings
that say what it changed: nothing is corrected silently, and each warning names the ``--fix``
(or other flag) that restores the reading. A step that does not apply returns the reading as
it came. A new correction is a new function and one entry in :data:`STEPS`.

Where the warnings go: a step that re-judges the hand from its changed tiles (the joint
re-reading, one tile's next guess, the unsorted row) puts its warning among the judged hand's
own (``Reading.warnings``, which the next re-judging replaces); the others return theirs, and
the report lists those after the hand's in :data:`NOTE_ORDER`.

The tile readers' own second looks live elsewhere: the contrast views and the counts inside
``TileReader.read`` (``vision/read/detector.py``, ``vision/read/tile_counts.py``), the meld repairs and
doubled boxes inside ``vision.layout`` (``Layout.meld_repairs``, ``doubled`` warnings), the
renamings a laid-out hand rules out in ``vision.layout.grouping``. ``docs/pipeline.md`` walks through
all of them.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import combinations

from scoring.verdict import Verdict

from vision.read.detections import SECOND_LOOKS, Detections
from vision.layout.grouping import group
from .held_ruling import layout_doubts, unsure_ruling
from .joint_fix import concealed_row_sorted, is_sorted_row, joint_correction, playing_kind
from .judging import Job, PhotoError, Reading, TableContext, failed, first_guess, judge_layout, score
from vision.layout import (LOW_CONFIDENCE, Layout, LayoutWarning, declare_groups, reparse_fixed,
                           set_shape, tiles_add_up)
from .photo_warnings import unsure_photo_warning

Step = Callable[[Reading, Job], tuple[Reading, list[LayoutWarning]]]


# ---- the steps, in the order they run ------------------------------------------------------

def second_look(reading: Reading, job: Job) -> tuple[Reading, list[LayoutWarning]]:
    """When the boxes first found do not add up to a winning hand's tiles (and no unsure tile
    set aside may be a flower): a second look through a reader that can take one
    (:meth:`vision.read.detector.TileReader.look_again`, the ways of
    :data:`vision.read.detections.SECOND_LOOKS` in turn); the first look whose tiles add up replaces
    the reading (``recounted``)."""
    look = getattr(job.reader, "look_again", None)
    if (job.array is None or reading.crowded is not None or tiles_add_up(reading.layout)
            or _unsure_flowers(reading.layout) or look is None):
        return reading, []
    for how, said in SECOND_LOOKS.items():
        grouped = group(look(job.array, how), job.ruleset)
        if tiles_add_up(grouped.layout):
            warning = LayoutWarning(
                "recounted",
                f"the {len(reading.detections.tiles)} boxes found first do not add up to a winning "
                f"hand; a second look {said} found {len(grouped.detections.tiles)} that do, and "
                "those were scored. If a tile is still missing or doubled, take the photo square "
                "on to the row")
            return replace(reading, detections=grouped.detections, layout=grouped.layout,
                           renamed=grouped.warnings()), [warning]
    return reading, []


def user_fixes(reading: Reading, job: Job) -> tuple[Reading, list[LayoutWarning]]:
    """The user's own corrections, ``--fix N=TILE`` and ``--meld 9-11=chi``
    (:func:`vision.layout.reparse_fixed`, :func:`vision.layout.declare_groups`); they hold
    through every step after. The reading they give is the reader's own as far as the steps
    after are concerned (``Reading.as_read``)."""
    detections, layout = reading.detections, reading.layout
    if job.fixes or job.melds:
        try:
            detections, layout = reparse_fixed(layout, detections, job.fixes,
                                               declared=declared_melds(job.melds))
        except ValueError as exc:
            raise PhotoError(str(exc)) from None
    return replace(reading, detections=detections, layout=layout, as_read=detections), []


def mcr_flowers(reading: Reading, job: Job) -> tuple[Reading, list[LayoutWarning]]:
    """MCR: an unsure tile set aside from the hand whose next guesses hold a flower is counted
    as one (:func:`_unsure_flowers`); else, without user fixes, the unsure tiles lying with
    the flowers are, if the tiles then add up (:func:`_flowers_beside_flowers`)."""
    layout = reading.layout
    flowers, beside = _unsure_flowers(layout), False
    if not flowers and not job.fixes:
        flowers, beside = _flowers_beside_flowers(layout), True
    if not flowers:
        return reading, []
    before = {n: layout.order[n - 1] for n in flowers}
    detections, fixed = reparse_fixed(layout, reading.detections, flowers)
    if beside and not tiles_add_up(fixed):
        return reading, []
    return (replace(reading, detections=detections, layout=fixed),
            [_flowers_warning(before, sorted(flowers), beside)])


def judge(reading: Reading, job: Job) -> tuple[Reading, list[LayoutWarning]]:
    """The hand request built from the layout and the context (the context wins over the
    photo), scored or ruled on (:func:`vision.photo.judging.judge_layout`)."""
    return reading.judged(judge_layout(reading.detections, reading.layout, job)), []


def red_fives(reading: Reading, job: Job) -> tuple[Reading, list[LayoutWarning]]:
    """Four plain fives of a suit with red fives in play, a hand refused so: one of them is
    red (:func:`_red_fives`). Taken only when the hand then makes a complete hand; a misread
    five is left to the steps below (which give one red again if their hand holds four:
    :func:`_corrected`)."""
    if not failed(reading.result):
        return reading, []
    reds = _red_fives(reading.layout, job.ctx, frozenset(job.fixes))
    if not reds:
        return reading, []
    detections, layout = reparse_fixed(reading.layout, reading.detections, reds)
    red = judge_layout(detections, layout, job)
    # a verdict on a complete hand has its score
    complete = not failed(red.result) and (not isinstance(red.result, Verdict) or red.result.result)
    if red.request is None or not complete:
        return reading, []
    return reading.judged(red), [_red_note(reading.layout, reds)]


def meld_repairs(reading: Reading, job: Job) -> tuple[Reading, list[LayoutWarning]]:
    """A hand that cannot be scored, with melds that one unsure tile's next guess makes legal
    (``Layout.meld_repairs``): a meld that is no legal set cannot be on the table, so its
    unsure tile was misread, for a verdict too (which then rules on the hand as repaired; it
    never re-reads the concealed part into a win, which could hide a false hu). When the
    repaired hand is refused for another reason, ``repair_refused`` says why
    (:func:`_repair_stopped_by`)."""
    if not failed(reading.result) or not reading.layout.meld_repairs:
        return reading, []
    found = _repaired_melds(reading, job, joint=job.hand_only)
    if found is not None:
        repaired, note = found
        return reading.judged(repaired), [note]
    refused = _repair_stopped_by(reading, job)
    if refused is None:
        return reading, []
    return replace(reading, refused=refused), [refused]


def joint_re_reading(reading: Reading, job: Job) -> tuple[Reading, list[LayoutWarning]]:
    """``score``: when the hand as read makes no winning hand, or makes one from a concealed
    row that is not sorted (players lay a winning hand down sorted), its unsure tiles are
    re-read together (:func:`_joint_fix`, ``vision.photo.joint_fix``)."""
    unsorted = not failed(reading.result) and not concealed_row_sorted(reading.layout)
    if not job.hand_only or not (failed(reading.result) or unsorted):
        return reading, []
    joint = _joint_fix(reading, job, scored_as_read=unsorted)
    return (reading, []) if joint is None else (reading.judged(joint), [])


def one_tile(reading: Reading, job: Job) -> tuple[Reading, list[LayoutWarning]]:
    """``score``, a hand still refused: the least sure tiles' next guesses, one tile at a time
    (:func:`_suggest_fixes`); the first that makes the hand score is taken if the reader was
    unsure of that tile (``corrected``), else ``hand_invalid`` lists the fixes that would."""
    if not (failed(reading.result) and reading.request is not None and job.hand_only):
        return reading, []
    found = _suggest_fixes(reading.detections, reading.layout, job)
    first = found[0] if found else None
    if first is not None and first.confidence < LOW_CONFIDENCE:
        # the reader was unsure of this tile and its next guess makes a winning hand:
        # score that, and say so (never silently)
        detections, layout = reparse_fixed(reading.layout, reading.detections, {first.number: first.tile})
        fixed = judge_layout(detections, layout, job)
        return reading.judged(replace(fixed, warnings=fixed.warnings + [LayoutWarning(
            "corrected",
            f"tile {first.number} was read as {first.read_as} (confidence "
            f"{first.confidence:.2f}), which makes no winning hand; scored with the reader's "
            f"next guess {first.tile}. If {first.read_as} was right, pass the fix",
            f"--fix {first.number}={first.read_as}", (first.number,))])), []
    fixes_text = [f"--fix {c.number}={c.tile}" for c in found]
    hint = (" — these corrections would make it a winning hand: " + ", ".join(fixes_text)
            if fixes_text else "")
    invalid = LayoutWarning("hand_invalid", f"the hand as read cannot be scored: "
                            f"{failed(reading.result)}{hint}", fixes_text[0] if fixes_text else "")
    return replace(reading, warnings=reading.warnings + [invalid]), []


def hold_ruling(reading: Reading, job: Job) -> tuple[Reading, list[LayoutWarning]]:
    """``check``: a ruling against the player is replaced by "Cannot rule from this photo"
    when the reading is in doubt (``vision.photo.held_ruling``)."""
    if job.hand_only:
        return reading, []
    held = unsure_ruling(reading.layout, reading.result, unsure_photo_warning(reading.as_read),
                         lambda: winning_re_reading(reading, job), reading.as_read, job.discards,
                         layout_doubts(reading.layout, reading.warnings, bool(job.fixes)))
    return (reading, []) if held is None else (replace(reading, result=held), [])


def unsorted_row(reading: Reading, job: Job) -> tuple[Reading, list[LayoutWarning]]:
    """``score``: a hand scored from a concealed row out of order gets ``unsorted_row``,
    naming ``--meld`` flags when some of its tiles would make exposed melds
    (:func:`_unsorted_warning`)."""
    if not job.hand_only or failed(reading.result) or concealed_row_sorted(reading.layout):
        return reading, []
    return replace(reading, warnings=reading.warnings + [_unsorted_warning(reading, job)]), []


def refused_repair(reading: Reading, job: Job) -> tuple[Reading, list[LayoutWarning]]:
    """``score``, a hand still refused after a ``repair_refused`` meld repair: the meld as
    read hides the real cause (a flag the repaired hand contradicts), so the error's first
    words say it."""
    why = failed(reading.result)
    if reading.refused is None or not job.hand_only or not why:
        return reading, []
    return replace(reading, result=replace(reading.result, error=f"{reading.refused.message}; as read, {why}")), []


# The order the corrections run in: the layout's (before the hand is judged), the judging,
# then the hand's.
STEPS: list[Step] = [second_look, user_fixes, mcr_flowers, judge, red_fives, meld_repairs,
                     joint_re_reading, one_tile, hold_ruling, unsorted_row, refused_repair]

# The pipeline stage each step's seconds count to (``PhotoResult.seconds``): a second look
# reads the photo again, the user's fixes and the flowers regroup the tiles; a step not named
# here (the judging and every correction that re-judges the hand) counts to ``score``.
STAGE_OF: dict[Step, str] = {second_look: "read", user_fixes: "layout", mcr_flowers: "layout"}


def stage_seconds(seconds: dict[str, float]) -> dict[str, float]:
    """The steps' seconds (by step name, as :func:`correct` returns them) summed by the stage
    :data:`STAGE_OF` gives each step: ``{"read": ..., "layout": ..., "score": ...}``."""
    stage = {step.__name__: STAGE_OF.get(step, "score") for step in STEPS}
    out = {"read": 0.0, "layout": 0.0, "score": 0.0}
    for name, spent in seconds.items():
        out[stage.get(name, "score")] += spent
    return out


# The order the steps' returned warnings are listed in, after the judged hand's own (the
# report's order since these warnings were written; JSON readers may rely on it). A step not
# named here has its warnings listed after these, in the order of STEPS.
NOTE_ORDER = (meld_repairs, second_look, red_fives, mcr_flowers)


def correct(reading: Reading, job: Job, clock: Callable[[], float] | None = None,
            ) -> tuple[Reading, list[LayoutWarning], dict[str, float]]:
    """Run :data:`STEPS` in turn. Returns the corrected reading, the steps' warnings in
    :data:`NOTE_ORDER`, and the seconds each step took (by name; ``clock``, default
    ``time.perf_counter``)."""
    import time

    clock = clock or time.perf_counter
    notes: dict[Step, list[LayoutWarning]] = {}
    seconds: dict[str, float] = {}
    for step in STEPS:
        start = clock()
        reading, notes[step] = step(reading, job)
        seconds[step.__name__] = clock() - start
    order = list(NOTE_ORDER) + [step for step in STEPS if step not in NOTE_ORDER]
    return reading, [w for step in order for w in notes.get(step, ())], seconds


# ---- what the steps use ------------------------------------------------------------------

def declared_melds(melds) -> dict[tuple[int, int], str] | None:
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


def _corrected(reading: Reading, fixes: dict[int, str], job: Job, message,
               ) -> tuple[Reading, LayoutWarning] | None:
    """Re-read tiles ``fixes`` (``{number: tile}``) and judge the hand again: if it then scores,
    the judged reading and its ``corrected`` warning, else None. ``message(was, now, undo)``
    words the warning: the tiles as read, the fixes, and the ``--fix`` options that restore
    the reading."""
    layout = reading.layout
    fixed, new_layout = reparse_fixed(layout, reading.detections, fixes)
    reds = _red_fives(new_layout, job.ctx, frozenset(fixes))
    if reds:            # the fixes completed four plain fives: one of them is the red five
        fixes = {**fixes, **reds}
        fixed, new_layout = reparse_fixed(layout, reading.detections, fixes)
    judged = judge_layout(fixed, new_layout, job)
    if judged.request is None or failed(judged.result):
        return None
    return judged, _fix_note(layout, fixes, message)


def _joint_fix(reading: Reading, job: Job, scored_as_read: bool = False) -> Reading | None:
    """When the hand as read makes no winning hand (or, ``scored_as_read``, makes one only from
    an unsorted concealed row): re-read its unsure tiles jointly (``vision.photo.joint_fix``) and, if
    the most probable complete hand (a sorted one preferred) scores, its judged reading with
    a ``corrected`` warning last naming every changed tile and the ``--fix`` that restores the
    reading; else None."""
    layout = reading.layout
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
    found = _corrected(reading, fixes, job, lambda was, now, undo: (
        f"{why}: read tile {was}; scored the most likely complete hand"
        f"{' laid sorted' if scored_as_read else ''} from {source} ({now}). "
        f"If the reading was right, pass {undo}"))
    if found is None:
        return None
    judged, note = found
    return replace(judged, warnings=judged.warnings + [note])


def winning_re_reading(reading: Reading, job: Job) -> Reading | None:
    """The winning hand ``score`` would make of an incomplete reading, with the ``corrected``
    note last: the joint re-reading (:func:`_joint_fix`), else one unsure tile's next guess;
    None if neither makes a valid win (``vision.photo.held_ruling`` asks)."""
    scoring = replace(job, judge=score)
    found = _joint_fix(reading, scoring)
    if found is None:
        first = next(iter(_suggest_fixes(reading.detections, reading.layout, scoring)), None)
        if first is not None and first.confidence < LOW_CONFIDENCE:
            one = _corrected(reading, {first.number: first.tile}, scoring, lambda was, now, undo: "")
            found = None if one is None else replace(one[0], warnings=one[0].warnings + [one[1]])
    return found if found is not None and found.result.valid else None


def _repair_stopped_by(reading: Reading, job: Job) -> LayoutWarning | None:
    """When the melds made legal by their unsure tiles' next guesses (``Layout.meld_repairs``)
    give a complete hand that is still refused for something else — a flag of the context
    that the tiles contradict (``last_copy`` with another copy held) — a ``repair_refused``
    warning naming that: the report's own error is about the meld as read, which hides it."""
    layout = reading.layout
    try:
        detections, fixed = reparse_fixed(layout, reading.detections, dict(layout.meld_repairs))
    except ValueError:
        return None
    judged = judge_layout(detections, fixed, job)
    why = failed(judged.result)
    if judged.request is None or not why:
        return None
    tiles = tuple(sorted(layout.meld_repairs))
    read = ", ".join(f"{n} as {fixed.order[n - 1].tile}" for n in tiles)
    return LayoutWarning(
        "repair_refused",
        f"with tile{'s' if len(tiles) > 1 else ''} {read} (the reader's next guesses) the melds "
        f"are legal, but the hand is still refused: {why}", "", tiles)


def _repaired_melds(reading: Reading, job: Job, joint: bool = True) -> tuple[Reading, LayoutWarning] | None:
    """When the hand as read cannot be scored and the layout found melds that one unsure tile's
    next guess makes legal (``Layout.meld_repairs``): re-read those tiles so, and if the hand
    then scores — as it is, or after the joint re-reading of its concealed part
    (:func:`_joint_fix`: a misread meld tile and a misread hand tile in one photo; not with
    ``joint`` false) — the judged reading and the ``corrected`` warning; else None."""
    layout = reading.layout
    fixes = dict(layout.meld_repairs)

    def message(was, now, undo):
        return (f"tiles set apart like an exposed meld are no legal set as read: read tile {was}; "
                f"scored with the reader's next guess ({now}), which makes the meld legal. If the "
                f"reading was right, pass {undo}")

    found = _corrected(reading, fixes, job, message)
    if found is not None or not joint:
        return found
    fixed, new_layout = reparse_fixed(layout, reading.detections, fixes)
    both = _joint_fix(Reading(fixed, new_layout), job)
    if both is None:
        return None
    return both, _fix_note(layout, fixes, message)


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


def _suggest_fixes(detections: Detections, layout: Layout, job: Job, limit: int = 3) -> list[_Correction]:
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
            judged = first_guess(fixed, job.ctx, job.judge)
            if judged is not None and not failed(judged[1]):
                out.append(_Correction(n, d.tile, d.confidence, alt))
                break
        if len(out) >= limit:
            break
    return out


def _red_fives(layout: Layout, ctx: TableContext, keep: frozenset[int] = frozenset()) -> dict[int, str]:
    """Fixes ``{number: "0m"}`` that make one five red in each suit whose four fives the hand
    (concealed part, winning tile, melds) shows, all read plain, when riichi is played with red
    fives (``rules.aka``): such a set has one red five per suit, so one of the four is red
    (scoring.hand refuses four plain ones), and which one does not change the score. The five
    the reader thought likeliest red is chosen, else the surest one (the least sure may be no
    five at all); tiles ``keep`` (the user's own --fix) are never changed."""
    if ctx.ruleset != "riichi" or not ctx.aka:
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


def _unsorted_warning(reading: Reading, job: Job) -> LayoutWarning:
    """The ``unsorted_row`` warning: the hand was scored from a concealed row that is not in
    order (``vision.photo.joint_fix.is_sorted_row``). Players lay a winning hand down sorted, so
    some of its tiles are misread, or form an exposed meld whose turned tile the photo does
    not show (a chi or pon scored as concealed tiles changes the hand's value). When some
    sets of three side by side in the row, declared exposed melds, leave it sorted and the
    hand still scores (:func:`_melds_in_row`), the warning names them and the ``--meld``
    flags to pass."""
    layout = reading.layout
    row = [d for g in layout.groups if g.kind == "concealed" for d in g.detections]
    numbers = tuple(layout.number(d) for d in row)
    text = (f"the concealed tiles {numbers[0]}-{numbers[-1]} ({' '.join(d.tile for d in row)}) "
            "are not laid in order, as a winning hand is: some may be misread, or be an exposed "
            "meld whose turned tile was not seen (scored as concealed). Check them; ")
    found = _melds_in_row(reading, job)
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


def _melds_in_row(reading: Reading, job: Job) -> dict[tuple[int, int], str]:
    """Sets of three tiles side by side in the concealed row (a chi in any order: a called
    tile is laid first; a pon) that, declared exposed melds, leave the rest of the row sorted
    and the hand still scoring: ``{(first, last): "chi" | "pon"}``, the fewest that do (at
    most :data:`ROW_MELDS`), the leftmost first; ``{}`` when none does."""
    layout = reading.layout
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
            judged = judge_layout(reading.detections, regrouped, job)
            if judged.request is not None and not failed(judged.result):
                return declared
    return {}
