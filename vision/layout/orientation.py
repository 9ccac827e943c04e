"""Which way the photo reads: upright, or taken from across the table (rows right to left).

Both readings are tried (:func:`best_reading`): the orientation cues (melds right of the
concealed part, the lone winning tile, the dora row beyond the hand) are a prior, and the
counting of :func:`vision.layout.roles.assign_roles` decides.
"""
from __future__ import annotations

from vision.read.rows import Row, Slot
from .groups import Group, LayoutWarning
from .melds import is_meld_row, segment_is_marked
from .roles import assign_roles

ORIENTATION_WEIGHT = 0.4    # cost per vote against a reading, beside the counting's costs


def best_reading(rows: list[Row], ruleset: str) -> tuple[bool, list[Group], list[LayoutWarning], list[Row]]:
    """The cheaper of the two readings: ``(flipped, groups, warnings, rows)``, the rows
    ordered from the one nearest the player outwards (flipped: as seen from across the table,
    :func:`flip`)."""
    votes = orientation_votes(rows)
    trials = []
    for flipped, candidate in ((False, rows), (True, flip(rows))):
        candidate = sorted(candidate, key=lambda r: -r.v)
        warnings: list[LayoutWarning] = []
        groups, cost = assign_roles(candidate, ruleset, warnings)
        cost += ORIENTATION_WEIGHT * max(0.0, votes if flipped else -votes)
        trials.append((cost, flipped, groups, warnings, candidate))
    _, flipped, groups, warnings, rows = min(trials, key=lambda t: t[0])
    return flipped, groups, warnings, rows


def orientation_votes(rows: list[Row]) -> float:
    """Evidence that the photo was taken from across the table (negative: it was; 0: none).

    Melds lie right of the concealed part (2); the lone winning tile just right of it (1); a
    row that is not melds (dora indicators) lies beyond the hand, away from the player (0.5
    each). Positive votes favour reading the rows left to right in the image.
    """
    if not rows:
        return 0.0
    main = max(rows, key=lambda r: r.count)
    votes = 0.0
    segs = main.segments
    plain = [i for i, s in enumerate(segs) if not segment_is_marked(s)]
    marked = [i for i, s in enumerate(segs) if segment_is_marked(s)]
    if plain:
        big = max(plain, key=lambda i: sum(len(s.tiles) for s in segs[i]))
        if marked:
            side = sum(1 if i > big else -1 for i in marked)
            votes += 2 if side > 0 else -2 if side < 0 else 0

        def lone(i: int) -> bool:
            return 0 <= i < len(segs) and i in plain and sum(len(s.tiles) for s in segs[i]) == 1

        if lone(big + 1) and not lone(big - 1):
            votes += 1
        elif lone(big - 1) and not lone(big + 1):
            votes -= 1
    for r in rows:
        if r is not main and not is_meld_row(r):
            votes += 0.5 if r.v < main.v else -0.5
    return votes


def flip(rows: list[Row]) -> list[Row]:
    """The rows as seen from across the table: every row reversed, near and far swapped."""
    out = []
    for r in rows:
        new = {id(s): Slot(list(reversed(s.tiles))) for s in r.slots}
        row = Row([new[id(s)] for s in reversed(r.slots)],
                  [[new[id(s)] for s in reversed(seg)] for seg in reversed(r.segments)])
        row.v = -r.v
        out.append(row)
    return out
