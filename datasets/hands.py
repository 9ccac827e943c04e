"""Random complete winning hands, as hand requests of ``docs/hand-json.md``.

A source of varied hands for the scene renderer: every meld kind (chi, pon, daiminkan, kakan,
ankan), red fives (riichi), flowers (MCR), dora indicators. The hands are complete shapes
(four sets and a pair, seven pairs, or thirteen orphans) that respect the physical tile set
(at most four of a kind, one red five per suit). Riichi hands always have a yaku (closed hands
declare riichi; open hands hold a dragon pon); MCR hands are not checked against the 8-point
minimum, because the renderer only needs their tiles and layout. Scoring is not done here on
purpose: this module must not depend on ``scoring``'s rule code.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

WINDS = ("E", "S", "W", "N")
FROM = ("left", "across", "right")


@dataclass
class HandSpec:
    """A hand to render.

    ``request``: a hand request (hand-json.md). ``flower_tiles``: the flower/season tiles
    (``1f``..``8f``) lying beside the hand; their count is ``request["flowers"]`` for MCR.
    """

    request: dict
    flower_tiles: list[str] = field(default_factory=list)


def _code(kind: int) -> str:
    return f"{kind % 9 + 1}{'mps'[kind // 9]}" if kind < 27 else f"{kind - 26}z"


def _mpsz(codes: list[str]) -> str:
    """Join tile codes into compact mpsz, keeping the given order inside runs of one suit."""
    out, run_suit, digits = [], None, ""
    for c in codes:
        if c[1] != run_suit and run_suit is not None:
            out.append(digits + run_suit)
            digits = ""
        run_suit = c[1]
        digits += c[0]
    if run_suit is not None:
        out.append(digits + run_suit)
    return "".join(out)


def _sort_key(code: str) -> tuple[int, int]:
    n = 5 if code[0] == "0" else int(code[0])
    return ("mpsz".index(code[1]), n * 2 + (code[0] == "0"))


def random_hand(rng: np.random.Generator, ruleset: str = "riichi") -> HandSpec:
    """A random complete hand for ``ruleset`` (``riichi`` or ``mcr``).

    Meld count 0..4 (about a third closed), each open set independently one of the kinds the
    set allows; the winning tile is taken from the concealed part. Raises ValueError for an
    unknown ruleset.
    """
    if ruleset not in ("riichi", "mcr"):
        raise ValueError(f"ruleset must be 'riichi' or 'mcr', not {ruleset!r}")
    while True:  # rejection sampling: a draw can run out of copies of a tile
        spec = _try_hand(rng, ruleset)
        if spec is not None:
            return spec


def _try_hand(rng: np.random.Generator, ruleset: str) -> HandSpec | None:
    counts = np.zeros(34, int)

    def take(kinds: list[int]) -> bool:
        for k in kinds:
            counts[k] += 1
        return bool((counts <= 4).all())

    form = rng.choice(["standard", "pairs", "orphans"], p=[0.92, 0.06, 0.02])
    groups: list[tuple[str, list[int]]] = []  # (kind of set, tile kinds)
    if form == "pairs":
        for k in rng.choice(34, 7, replace=False):
            groups.append(("pair", [int(k)] * 2))
    elif form == "orphans":
        orphans = [0, 8, 9, 17, 18, 26] + list(range(27, 34))
        dup = orphans[int(rng.integers(13))]
        groups = [("single", [k]) for k in orphans] + [("single", [dup])]
    else:
        n_open = int(rng.choice(5, p=[0.34, 0.26, 0.2, 0.12, 0.08]))
        for i in range(4):
            if rng.random() < 0.55:
                start = int(rng.integers(3)) * 9 + int(rng.integers(7))
                groups.append(("seq", [start, start + 1, start + 2]))
            else:
                groups.append(("trip", [int(rng.integers(34))] * 3))
        groups.append(("pair", [int(rng.integers(34))] * 2))
        if ruleset == "riichi" and n_open > 0:  # an open riichi hand needs a yaku: a dragon pon
            groups[0] = ("trip", [int(rng.integers(31, 34))] * 3)
    for _, kinds in groups:
        if not take(kinds):
            return None

    melds: list[dict] = []
    meld_kinds: list[list[str]] = []
    concealed: list[str] = []
    if form == "standard":
        open_idx = set(rng.choice(4, n_open, replace=False).tolist()) if n_open else set()
        for i, (what, kinds) in enumerate(groups):
            codes = [_code(k) for k in kinds]
            if what == "pair" or (i not in open_idx and not (what == "trip" and rng.random() < 0.08)):
                concealed += codes
                continue
            if what == "seq":
                mtype = "chi"
            elif i not in open_idx:
                mtype = "ankan"  # a concealed triplet promoted to a closed kan
            else:
                mtype = str(rng.choice(["pon", "daiminkan", "kakan", "ankan"], p=[0.6, 0.15, 0.15, 0.1]))
            if mtype in ("daiminkan", "kakan", "ankan"):
                if not take([kinds[0]]):
                    return None
                codes = codes + [codes[0]]
            meld_kinds.append(codes)
            melds.append({"type": mtype})
    else:
        for _, kinds in groups:
            concealed += [_code(k) for k in kinds]

    # Red fives (riichi only; one per suit, on the first five seen in hand order). A set with
    # red fives has one of the four fives of each suit, so a hand holding all four holds it.
    if ruleset == "riichi":
        for suit in "mps":
            all_four = sum(lst.count(f"5{suit}") for lst in [concealed] + meld_kinds) == 4
            if rng.random() < 0.6 or all_four:
                for lst in [concealed] + meld_kinds:
                    if f"5{suit}" in lst:
                        lst[lst.index(f"5{suit}")] = f"0{suit}"
                        break
                else:
                    continue

    # Winning tile: any concealed tile (a tanki when all four sets are melded).
    win_pos = int(rng.integers(len(concealed)))
    win_tile = concealed.pop(win_pos)
    concealed.sort(key=_sort_key)

    req: dict = {"ruleset": ruleset, "concealed": _mpsz(concealed)}
    if melds:
        for m, codes in zip(melds, meld_kinds):
            if m["type"] == "chi":
                called_i = int(rng.integers(3))
                m["called"] = codes[called_i]
                m["from"] = "left"
            elif m["type"] != "ankan":
                m["called"] = codes[int(rng.integers(len(codes)))]
                m["from"] = str(rng.choice(FROM))
            m["tiles"] = _mpsz(sorted(codes, key=_sort_key))
        req["melds"] = [{k: m[k] for k in ("type", "tiles", "called", "from") if k in m} for m in melds]
    closed = all(m["type"] == "ankan" for m in melds)
    req["win_tile"] = win_tile
    req["win"] = str(rng.choice(["tsumo", "ron"]))
    req["seat_wind"] = str(rng.choice(WINDS))
    req["round_wind"] = str(rng.choice(WINDS[:2]))
    flowers: list[str] = []
    if ruleset == "riichi":
        if closed:
            req["riichi"] = "riichi"
        n_dora = int(rng.choice(4, p=[0.15, 0.55, 0.2, 0.1]))
        dora = []
        for _ in range(n_dora):
            k = int(rng.integers(34))
            if take([k]):
                dora.append(_code(k))
            else:
                counts[k] -= 1
        if dora:
            req["dora_indicators"] = _mpsz(dora)
    else:
        n_flowers = int(rng.choice(9, p=[0.3, 0.25, 0.2, 0.1, 0.06, 0.04, 0.02, 0.02, 0.01]))
        flowers = [f"{n}f" for n in sorted(rng.choice(8, n_flowers, replace=False) + 1)]
        req["flowers"] = n_flowers
    return HandSpec(request=req, flower_tiles=flowers)


def split_mpsz(text: str) -> list[str]:
    """``"406m77z"`` -> ``["4m", "0m", "6m", "7z", "7z"]`` (order kept). Raises ValueError."""
    out, digits = [], ""
    for ch in text:
        if ch.isdigit():
            digits += ch
        elif ch in "mpszf":
            if not digits:
                raise ValueError(f"suit letter {ch!r} without digits in {text!r}")
            out += [d + ch for d in digits]
            digits = ""
        else:
            raise ValueError(f"unexpected character {ch!r} in mpsz {text!r}")
    if digits:
        raise ValueError(f"digits without a suit letter at the end of {text!r}")
    return out
