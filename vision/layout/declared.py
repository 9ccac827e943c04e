"""What the user says of the photo: ``--fix N=TILE`` and ``--meld N-M=TYPE``, laid over a layout.

:func:`apply_fixes` renames (or drops) boxes by their numbers in a report;
:func:`declare_groups` regroups tiles as the user declares; :func:`renumbered` keeps a report's
numbers naming the same tiles when the fixed boxes are parsed again
(:func:`vision.layout.reparse_fixed`).
"""
from __future__ import annotations

from dataclasses import replace

from scoring.request import MELD_WORDS

from vision.read.detections import Detection, Detections
from vision.read.rows import BACK
from .finish import finish
from .groups import LOW_CONFIDENCE, Group, count_warning
from .melds import declared_meld
from .result import Layout

# `--fix N=none`: the box is no tile at all.
NO_TILE = "none"

# `--meld N-M=TYPE`: the user says what tiles N..M are, where the photo cannot (a meld whose
# turned tile is hidden or was laid straight, a set of the hand laid a little apart). The
# number of tiles each type holds; "concealed" puts the tiles in the concealed part.
DECLARED_TYPES: dict[str, int | None] = {"chi": 3, "pon": 3, "daiminkan": 4, "kakan": 4,
                                         "ankan": 4, "concealed": None}


def meld_type(kind: str) -> str:
    """A declared group's type in the layout's one word: ``kan`` (and ``minkan``) is
    ``daiminkan``, ``shouminkan`` is ``kakan``, as in a typed hand or a JSON request
    (:data:`scoring.request.MELD_WORDS`); other words as given."""
    return MELD_WORDS.get(kind, kind)


def check_declared(declared: dict[tuple[int, int], str], n_tiles: int) -> None:
    """Raise ValueError naming the first declared group that cannot be: an unknown type,
    numbers outside ``1..n_tiles`` or in the wrong order, a meld of the wrong size (a chi or
    pon is 3 tiles, a kan 4: the face-down tiles of a closed kan and both tiles of an added
    kan's stacked pair count), or groups that share a tile."""
    seen: dict[int, tuple[int, int]] = {}
    for (first, last), kind in sorted(declared.items()):
        name = f"--meld {first}-{last}={kind}"          # as the user wrote it (kan, not daiminkan)
        if meld_type(kind) not in DECLARED_TYPES:
            raise ValueError(f"{name}: unknown group type {kind!r} (use "
                             f"{', '.join(DECLARED_TYPES)}; kan = daiminkan)")
        if not 1 <= first <= last <= n_tiles:
            raise ValueError(f"{name}: the photo has tiles 1..{n_tiles}, first to last")
        size = DECLARED_TYPES[meld_type(kind)]
        if size is not None and last - first + 1 != size:
            article = "an" if kind[0] in "aeiou" else "a"
            raise ValueError(f"{name}: {article} {kind} is {size} tiles, not {last - first + 1}")
        for n in range(first, last + 1):
            if n in seen:
                a, b = seen[n]
                raise ValueError(f"{name}: tile {n} is also in --meld {a}-{b}")
            seen[n] = (first, last)


def declare_groups(layout: Layout, declared: dict[tuple[int, int], str],
                   low_confidence: float = LOW_CONFIDENCE) -> Layout:
    """``layout`` with the groups the user declares laid over it (``--meld 9-11=chi``).

    ``declared``: ``{(first, last): type}``, reading-order numbers of ``layout`` (both ends
    included) and a type of :data:`DECLARED_TYPES`. Each declared meld becomes an exposed meld
    of that type: who it was called from is taken from its turned tile when one was seen (a
    chi always from the left); its tiles leave the groups they were in, and the rest of a meld
    it breaks up goes into the concealed part. ``concealed`` moves the tiles into the concealed
    part. The numbering and the reading stay as they were; the warnings about the grouping
    (``ambiguous_grouping``, ``tile_count``, ``meld_without_sideways``) are made again for the
    declared grouping. Whether a declared meld is a legal set is the scorer's check (the
    request names it). Raises ValueError as :func:`check_declared`, and for a face-down tile in
    a declared chi, pon or open kan (its face must be passed with ``--fix``).
    """
    check_declared(declared, len(layout.order))
    declared = {span: meld_type(kind) for span, kind in declared.items()}
    number = {id(d): n for n, d in enumerate(layout.order, start=1)}
    span_of = {n: span for span in declared for n in range(span[0], span[1] + 1)}
    groups, melds, said = _regrouped(layout, declared, number, span_of)
    warnings = [w for w in layout.warnings if w.code not in _REGROUPED_CODES]
    out = finish(groups, layout.ruleset, warnings, low_confidence, lambda d: number[id(d)])
    # a declared meld is what the user says it is, turned tile seen or not
    out.warnings = [w for w in out.warnings if not (
        w.code == "meld_without_sideways" and all(id(out.order[n - 1]) in said for n in w.tiles))]
    hand_tiles = sum(len(g.detections) for g in groups if g.kind in ("concealed", "win"))
    if hand_tiles + 3 * len(melds) != 14:
        out.warnings.append(count_warning(
            hand_tiles + sum(len(g.detections) for g in melds), melds,
            "with the groups as declared the hand shows", "check the --meld numbers against the report"))
    out.source, out.upside_down, out.direction = layout.source, layout.upside_down, layout.direction
    out.rows, out.row_numbers = layout.rows, layout.row_numbers
    out.meld_repairs = {n: code for n, code in layout.meld_repairs.items() if n not in span_of}
    out.declared = dict(declared)
    return out


def _regrouped(layout: Layout, declared: dict[tuple[int, int], str], number: dict[int, int],
               span_of: dict[int, tuple[int, int]]) -> tuple[list[Group], list[Group], set[int]]:
    """The groups with the declared ones laid over them, the melds among them, and the ids of
    the declared melds' tiles (see :func:`declare_groups`)."""
    kept: list[Group] = []
    hand: list[Detection] = []          # concealed tiles: kept, declared, or left by a broken meld
    for g in layout.groups:
        rest = [d for d in g.detections if number[id(d)] not in span_of]
        if g.kind == "concealed" or (g.kind == "meld" and len(rest) < len(g.detections)):
            hand.extend(rest)
        elif rest:
            kept.append(g if len(rest) == len(g.detections) else replace(g, detections=rest))
    melds = [g for g in kept if g.kind == "meld"]
    said: set[int] = set()              # the tiles of declared melds
    for (first, last), kind in sorted(declared.items()):
        dets = layout.order[first - 1:last]
        if kind == "concealed":
            hand.extend(dets)
            continue
        if kind != "ankan":
            back = next((n for n, d in enumerate(dets, start=first) if d.tile == BACK), None)
            if back is not None:
                raise ValueError(f"--meld {first}-{last}={kind}: tile {back} was read face down; "
                                 f"pass its face with --fix {back}=TILE")
        melds.append(declared_meld(dets, kind))
        said.update(id(d) for d in dets)
    melds.sort(key=lambda g: number[id(g.detections[0])])
    groups = ([Group("concealed", sorted(hand, key=lambda d: number[id(d)]))] if hand else [])
    groups += [g for g in kept if g.kind == "win"] + melds
    groups += [g for g in kept if g.kind not in ("win", "meld")]
    return groups, melds, said


# the warnings made again when the groups change: finish's, and the count's
_REGROUPED_CODES = frozenset({"meld_without_sideways", "back_tile", "loose_tiles", "beside_flowers",
                              "flowers_in_riichi", "low_confidence", "win_tile_not_shown",
                              "ambiguous_grouping", "tile_count"})


def apply_fixes(layout: Layout, detections: Detections, fixes: dict[int, str]) -> Detections:
    """A copy of ``detections`` with the tiles numbered in ``layout``'s reading order replaced.

    ``fixes``: ``{number: tile code}`` (1-based, as ``--fix 3=5p``). A fixed tile gets
    confidence 1 (the user said so), the reading it replaces first among its alternatives.
    The code ``none`` removes a box that is no tile (a duplicate box on one tile, a shadow). Raises ValueError naming a number out of range or an
    unknown tile code.
    """
    from vision.read.classes import CLASS_INDEX

    index = {src: i for i, src in enumerate(layout.source)}
    new = {}
    for n, code in fixes.items():
        if not 1 <= n <= len(layout.order):
            raise ValueError(f"--fix {n}={code}: the photo has tiles 1..{len(layout.order)}")
        if code not in CLASS_INDEX and code != NO_TILE:
            raise ValueError(f"--fix {n}={code}: unknown tile code {code!r} "
                             f"(mpsz such as 5p, 0m, 7z, 3f, back, or {NO_TILE} to drop the box)")
        new[n - 1] = code
    tiles = []
    for k, d in enumerate(detections.tiles):
        i = index.get(k)
        if i is not None and i in new:
            if new[i] == NO_TILE:
                continue
            # the reading it replaces stays first among the alternatives: what to undo
            was = ((d.tile, d.confidence),) if d.tile != new[i] else ()
            d = replace(d, tile=new[i], confidence=1.0,
                        alternatives=(was + tuple(a for a in d.alternatives if a[0] != new[i]))[:3])
        tiles.append(d)
    return replace(detections, tiles=tiles)      # what else was seen (windows, reflections) stays


def renumbered(layout: Layout, fixes: dict[int, str], declared: dict[tuple[int, int], str]
               ) -> tuple[list[int], dict[tuple[int, int], str]]:
    """The numbering (``layout.source`` order) and the declared groups for parsing the boxes
    again after ``fixes``: a box dropped with ``none`` frees its number and the tiles after it
    move up by one. Raises ValueError as :func:`check_declared`, and for a declared group
    holding a box dropped with ``none``."""
    gone = sorted(n for n, code in fixes.items() if code == NO_TILE)
    dropped = sorted(layout.source[n - 1] for n in gone)
    numbering = [src - sum(1 for k in dropped if k < src) for src in layout.source if src not in dropped]
    if declared and gone:
        check_declared(declared, len(layout.order))
        for (first, last), kind in declared.items():
            inside = [n for n in gone if first <= n <= last]
            if inside:
                raise ValueError(f"--meld {first}-{last}={kind}: tile {inside[0]} was dropped "
                                 f"with --fix {inside[0]}={NO_TILE}")
        declared = {(a - sum(1 for n in gone if n < a), b - sum(1 for n in gone if n < b)): kind
                    for (a, b), kind in declared.items()}
    return numbering, declared
