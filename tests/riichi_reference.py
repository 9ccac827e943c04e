"""Adapter to the reference engine ``mahjong==2.1.0`` (PyPI, MIT) for differential tests.

:func:`reference_score` values a :class:`HandRequest` with ``mahjong``'s HandCalculator and
returns the fields tilescope reports (validity, han, fu, payment); :func:`compare` lists the
differences. Known, documented rule differences (``scoring/riichi/RULES.md``) are recognised by
:func:`known_difference` so that a run can report them apart from disagreements.
"""
from __future__ import annotations

from scoring.hand import HandRequest, RiichiRules
from scoring.tiles import Tile

try:
    from mahjong.constants import EAST
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
    from mahjong.meld import Meld as MjMeld
except ImportError:  # the dev extra is not installed
    HandCalculator = None

_KAZOE = {"yakuman": 0, "sanbaiman": 1, "none": 2}
_MELD = {"chi": "chi", "pon": "pon", "daiminkan": "kan", "kakan": "shouminkan", "ankan": "kan"}


class _Ids:
    """Hands out distinct 136-format ids: copy 0 of a five is the red five (as in mahjong)."""

    def __init__(self) -> None:
        self.used: set[int] = set()

    def take(self, tile) -> int:
        base = tile.kind * 4
        order = (0,) if tile.red else ((1, 2, 3, 0) if tile.kind in (4, 13, 22) else (0, 1, 2, 3))
        for c in order:
            if base + c not in self.used:
                self.used.add(base + c)
                return base + c
        raise ValueError(f"no free 136 id for {tile}")


def reference_inputs(req: HandRequest):
    """``(args, kwargs)`` for ``HandCalculator.estimate_hand_value`` describing ``req``."""
    ids = _Ids()
    concealed = [ids.take(t) for t in req.concealed]
    win = ids.take(req.win_tile)
    melds = []
    tiles = concealed + [win]
    for m in req.melds:
        mt = [ids.take(t) for t in m.tiles]
        tiles += mt
        melds.append(MjMeld(meld_type=_MELD[m.type], tiles=mt, opened=m.is_open))
    ind = _Ids()
    dora = [ind.take(t) for t in req.dora_indicators]
    ura = [ind.take(t) for t in req.ura_dora_indicators]
    r = req.rules
    options = OptionalRules(
        has_open_tanyao=r.open_tanyao, has_aka_dora=r.aka, has_double_yakuman=r.double_yakuman,
        kazoe_limit=_KAZOE[r.kazoe], kiriage=r.kiriage, fu_for_open_pinfu=True,
        fu_for_pinfu_tsumo=False)
    tsumo = req.win == "tsumo"
    config = HandConfig(
        is_tsumo=tsumo, is_riichi=req.riichi == "riichi", is_daburu_riichi=req.riichi == "double",
        is_ippatsu=req.ippatsu, is_rinshan=req.replacement_tile, is_chankan=req.robbing_kong,
        is_haitei=req.last_wall_tile and tsumo, is_houtei=req.last_wall_tile and not tsumo,
        is_tenhou=req.tenhou, is_chiihou=req.chiihou,
        player_wind=EAST + "ESWN".index(req.seat_wind), round_wind=EAST + "ESWN".index(req.round_wind),
        tsumi_number=req.honba, kyoutaku_number=req.riichi_sticks, options=options)
    return (tiles, win), dict(melds=melds, dora_indicators=dora, config=config, ura_dora_indicators=ura)


def reference_score(req: HandRequest) -> dict:
    """``{"valid", "han", "fu", "total", "payers", "yaku", "error"}`` from ``mahjong``.

    ``error``: the package's error code (``no_yaku`` becomes ``valid: False`` with no error).
    ``payers``: (main, additional) per payer incl. honba, as tilescope's payment fields.
    """
    args, kwargs = reference_inputs(req)
    return reference_result(HandCalculator.estimate_hand_value(*args, **kwargs))


def reference_result(res) -> dict:
    """Our comparison shape for a ``mahjong`` HandResponse."""
    if res.error == HandCalculator.ERR_NO_YAKU:
        return {"valid": False, "error": None}
    if res.error:
        return {"valid": False, "error": res.error}
    c = res.cost
    return {
        "valid": True, "han": res.han, "fu": res.fu, "total": c["total"],
        "payers": (c["main"] + c["main_bonus"], c["additional"] + c["additional_bonus"]),
        "yaku": sorted(str(y) for y in res.yaku), "error": None,
    }


def ours(result) -> dict:
    """tilescope's result in the shape of :func:`reference_score`."""
    if getattr(result, "error", None):
        return {"valid": False, "error": result.error}
    if not result.valid:
        return {"valid": False, "error": None}
    p = result.payment
    if p.from_discarder is not None:
        payers = (p.from_discarder, 0)
    elif p.from_each is not None:
        payers = (p.from_each, p.from_each)
    else:
        payers = (p.from_dealer, p.from_non_dealer)
    return {"valid": True, "han": result.han, "fu": result.fu, "total": p.total, "payers": payers,
            "yaku": sorted(y.name for y in result.yaku), "error": None}


def compare(mine: dict, ref: dict) -> list[str]:
    """Fields that differ between two results of the shape above (yaku names excluded)."""
    diffs = []
    for key in ("valid", "han", "fu", "total", "payers"):
        if key in ("han", "fu", "total", "payers") and not (mine["valid"] and ref["valid"]):
            continue
        if mine.get(key) != ref.get(key):
            diffs.append(f"{key}: tilescope {mine.get(key)!r} vs mahjong {ref.get(key)!r}")
    if bool(mine.get("error")) != bool(ref.get("error")):
        diffs.append(f"error: tilescope {mine.get('error')!r} vs mahjong {ref.get('error')!r}")
    return diffs


def known_difference(req: HandRequest, mine: dict, ref: dict) -> str | None:
    """Name of the documented rule difference (scoring/riichi/RULES.md) that explains a
    disagreement, or None for a real disagreement."""
    if mine.get("error") and not ref.get("error"):
        return "validation: tilescope rejects an impossible hand that mahjong scores"
    if req.rules.double_wind_pair_fu == 2 and req.seat_wind == req.round_wind:
        return "double wind pair 2 fu (rule option; mahjong always counts 4)"
    return None


def one_suit_hands() -> list[tuple[int, ...]]:
    """Counts (9 numbers) of every complete 14-tile hand of one suit."""
    from scoring.decompose import is_complete

    out: list[tuple[int, ...]] = []

    def gen(i: int, left: int, cur: list[int]) -> None:
        if i == 9:
            if left == 0 and is_complete(cur + [0] * 25):
                out.append(tuple(cur))
            return
        for n in range(min(4, left) + 1):
            cur.append(n)
            gen(i + 1, left - n, cur)
            cur.pop()

    gen(0, 14, [])
    return out


def one_suit_wins(hand: tuple[int, ...], suit: int = 1, **kw):
    """Every win of a one-suit hand: (winning kind, tsumo/ron) -> HandRequest. Red fives are
    off: four plain fives cannot be written in mahjong's 136 ids otherwise."""
    tiles = [Tile(9 * suit + k) for k in range(9) for _ in range(hand[k])]
    for k in range(9):
        if not hand[k]:
            continue
        rest = list(tiles)
        rest.remove(Tile(9 * suit + k))
        for win in ("tsumo", "ron"):
            yield HandRequest(concealed=tuple(rest), win_tile=Tile(9 * suit + k), win=win,
                              rules=RiichiRules(aka=False), **kw)


def random_one_suit_hands(rng, n: int) -> list[tuple[int, ...]]:
    """``n`` random complete one-suit hands (counts of 9 numbers): four runs/triplets and a
    pair drawn at random, at most four of a number."""
    out: list[tuple[int, ...]] = []
    while len(out) < n:
        c = [0] * 9
        for _ in range(4):
            if rng.random() < 0.6:
                k = rng.randrange(7)
                for i in (k, k + 1, k + 2):
                    c[i] += 1
            else:
                c[rng.randrange(9)] += 3
        c[rng.randrange(9)] += 2
        if max(c) <= 4:
            out.append(tuple(c))
    return out
