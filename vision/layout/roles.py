"""Roles of the rows by counting: which row is the hand, and what each other row is.

A row is the hand, the rest of the hand, a row of melds whose turned tiles were not seen, the
riichi dora indicators or loose tiles; every choice is scored by whether the tiles make a winning
hand's 14 plus one per kan (:func:`assign_roles`). The hand row is then cut into concealed part |
winning tile | melds laid straight, by the count and the gaps seen (:func:`split_plain`).
"""
from __future__ import annotations

import itertools

from vision.read.detections import Detection
from vision.read.rows import BACK, Row, Slot
from .groups import Group, LayoutWarning, count_warning
from .melds import row_parts, tail_sets, unmarked_sets

KANS = ("daiminkan", "kakan", "ankan")
HAND_ROWS = 4           # the hand row is among the four largest rows ...
ROLE_ROWS = 3           # ... and only the three rows nearest it can be more than loose tiles
LOOSE = ("loose", 2.0, None)    # a role: (name, cost, the row's sets when it is melds)


def assign_roles(rows: list[Row], ruleset: str, warnings: list[LayoutWarning]) -> tuple[list[Group], float]:
    """Turn rows of segments into concealed / win / meld / dora / loose groups by counting.

    Marked melds (a sideways or face-down tile) come from every row: players and the renderer
    put them beside the hand or in a row of their own. Then every choice of hand row, and of a
    role for each other row (unmarked melds, the dora indicators — riichi, at most 5 faces,
    beyond the hand —, the rest of the hand, or loose tiles), is scored by whether the count
    works: 14 + kans tiles in all, the hand row holding the rest (sets in it after the winning
    tile are carved out later by :func:`split_plain`; only kans among them change the count).
    Returns the groups and the reading's cost (lower is likelier).
    """
    if not rows:
        return [], 0.0
    memo: dict = {}
    melds, meld_cost, parts = _marked_melds(rows, memo)
    best = _best_roles(parts, melds, ruleset, memo)
    plain: list[list[Slot]] = []
    dora: list[Detection] = []
    loose: list[Detection] = []
    if best is not None:
        _, h, others, roles = best
        plain = list(h[1])
        for o, (role, _, sets) in zip(others, roles):
            dets = [d for seg in o[1] for s in seg for d in s.dets]
            if role == "meld":
                melds.extend(sets)
            elif role == "dora":
                dora.extend(dets)
            elif role == "hand":
                plain.extend(o[1])
            else:
                loose.extend(dets)

    concealed, win, extra_melds, cut_cost = split_plain(plain, melds, ruleset, warnings)
    groups: list[Group] = []
    if concealed:
        groups.append(Group("concealed", concealed))
    if win is not None:
        groups.append(Group("win", [win]))
    groups.extend(extra_melds + melds)
    if dora:
        groups.append(Group("dora", dora))
    if loose:
        groups.append(Group("loose", loose))
    role_cost = best[0][0] if best is not None else 0.0
    return groups, meld_cost + role_cost + cut_cost


def _marked_melds(rows: list[Row], memo: dict) -> tuple[list[Group], float, list[tuple]]:
    """Every row's marked melds, their cost, and each row's other tiles as a part
    ``(row, segments, number of tiles)`` (rows with none left out)."""
    melds: list[Group] = []
    parts = []
    meld_cost = 0.0
    for r in rows:
        ms, pen, plain_segs = row_parts(r, memo)
        melds.extend(ms)
        meld_cost += pen
        n = sum(len(s.tiles) for seg in plain_segs for s in seg)
        if n:
            parts.append((r, plain_segs, n))
    return melds, meld_cost, parts


def _best_roles(parts: list[tuple], melds: list[Group], ruleset: str, memo: dict):
    """The cheapest choice of hand row and roles of the others: ``((cost, -size), hand part,
    other parts nearest first, their roles)``, or None when there is no part."""
    unmarked: dict[int, list[Group] | None] = {}      # a row's sets, whatever the hand row

    def options(o, h):
        opts = [LOOSE]
        if id(o) not in unmarked:
            unmarked[id(o)] = unmarked_sets(o[1], memo)
        sets = unmarked[id(o)]
        if sets is not None:
            opts.append(("meld", 0.3 * len(sets), sets))
        faces = sum(1 for seg in o[1] for s in seg for d in s.dets if d.tile != BACK)
        if ruleset == "riichi" and faces <= 5 and o[0].v < h[0].v:
            opts.append(("dora", 0.0, None))
        opts.append(("hand", 1.5, None))
        return opts

    best = None
    # other rows beyond the nearest ones can only be loose tiles (keeps a photo of a whole
    # set, dozens of rows, fast)
    for h in sorted(parts, key=lambda p: -p[2])[:HAND_ROWS]:
        others = sorted((o for o in parts if o is not h), key=lambda o: abs(o[0].v - h[0].v))
        choices = [options(o, h) if k < ROLE_ROWS else [LOOSE] for k, o in enumerate(others)]
        for roles in itertools.product(*choices):
            if sum(1 for r in roles if r[0] == "dora") > 1:
                continue
            key = (_roles_cost(h, others, roles, melds), -h[2])
            if best is None or key < best[0]:
                best = (key, h, others, roles)
    return best


def _roles_cost(h: tuple, others: list[tuple], roles: tuple, melds: list[Group]) -> float:
    """The cost of one choice of roles: the roles' own costs, and how far the count is off."""
    all_melds = melds + [g for r in roles if r[0] == "meld" for g in r[2]]
    need = 14 + sum(1 for m in all_melds if m.meld_type in KANS) - sum(len(m.detections) for m in all_melds)
    have = h[2] + sum(o[2] for o, r in zip(others, roles) if r[0] == "hand")
    # sets carved out of the hand row later keep the balance (3 tiles, 3 fewer
    # concealed); only a kan among them adds one: the excess is the unmarked kans
    excess = have - need
    pen = sum(r[1] for r in roles)
    pen += 0.5 * excess if 0 <= excess <= 4 - len(all_melds) else 100 + abs(excess)
    return pen


def split_plain(plain: list[list[Slot]], melds: list[Group], ruleset: str,
                warnings: list[LayoutWarning]) -> tuple[list[Detection], Detection | None, list[Group], float]:
    """Cut the hand's unmarked tiles into the concealed part, the winning tile and melds.

    The hand lies as [concealed][winning tile][melds…] in reading order; melds whose turned
    tile was not seen are legal sets of 3 or 4 at the end. Every cut is tried and scored
    (:func:`_cuts`); a near tie is an ``ambiguous_grouping`` warning, a count that works in no
    cut a ``tile_count`` one. Returns the concealed tiles, the winning tile (None when not set
    apart), the unmarked melds and the cut's cost.
    """
    if not plain:
        return [], None, [], 0.0
    slots = [sl for seg in plain for sl in seg]
    gaps = [False] * len(slots)         # gaps[i]: a gap was seen before slots[i]
    k = 0
    for seg in plain:
        gaps[k] = k > 0
        k += len(seg)
    options = sorted(_cuts(slots, gaps, len(melds), ruleset), key=lambda o: o[0])
    cost, c, has_win, extra = options[0]
    rivals = [o for o in options[1:] if o[0] - cost < 0.25 and o[0] < 100]
    if rivals:
        warnings.append(LayoutWarning(
            "ambiguous_grouping",
            "the gaps in the hand row can be read in more than one way; used the reading with "
            "the winning tile at the right end. If tiles N to M are an exposed meld, pass "
            "--meld N-M=TYPE (chi, pon, daiminkan, kakan, ankan), or --meld N-M=concealed"))
    concealed = [d for sl in slots[:c] for d in sl.dets]
    win = slots[c].dets[0] if has_win else None
    if cost >= 100:
        got = sum(len(sl.tiles) for sl in slots) + sum(len(m.detections) for m in melds)
        warnings.append(count_warning(got, melds, "the hand shows",
                                      "a tile may be missing, hidden or doubled"))
    return concealed, win, extra, cost


def _cuts(slots: list[Slot], gaps: list[bool], marked: int, ruleset: str
          ) -> list[tuple[float, int, bool, list[Group]]]:
    """Every cut of the hand row ``(cost, c, has_win, melds)``: concealed = ``slots[:c]``, the
    winning tile ``slots[c]`` when ``has_win``, the rest legal sets (:func:`tail_sets`). The
    tile count must work (13 - 3 x melds concealed tiles besides the winning tile, ``marked``
    melds seen elsewhere), cuts should fall on the gaps that were seen and gaps should not fall
    inside a group; a winning tile not set apart costs most (it must then be guessed)."""
    n = len(slots)
    options = []
    tails: dict[int, tuple[float, list[Group]] | None] = {}     # by the tail's first slot
    sets: dict = {}
    for c in range(1, n + 1):                         # concealed = slots[:c]
        inner = 0.9 * sum(gaps[1:c])          # a concealed part is rarely split by a gap
        for has_win in (True, False):
            w_end = c + 1 if has_win else c
            if w_end > n or (has_win and any(d.tile == BACK for d in slots[c].dets)):
                continue
            cost = inner
            if has_win:
                # the winning tile set apart; without a gap it is a guess, worse than
                # saying it was not shown (then the best candidate is scored, with a warning)
                cost += 0 if gaps[c] else 2.5
            else:
                cost += 2.0
            tail = slots[w_end:]
            if tail:
                if w_end not in tails:
                    tails[w_end] = tail_sets(tail, gaps[w_end:], sets, repair=ruleset == "mcr")
                cut = tails[w_end]
                if cut is None:
                    continue
                cost += cut[0] + (0 if gaps[w_end] else 0.7)
                extra = cut[1]
            else:
                extra = []
            concealed = sum(len(sl.tiles) for sl in slots[:c])
            want = (13 if has_win else 14) - 3 * (marked + len(extra))
            if concealed != want or marked + len(extra) > 4:
                cost += 100 + abs(concealed - want)
            options.append((cost, c, has_win, extra))
    return options
