"""Random valid riichi wins, for differential tests, benchmarks and synthetic layouts.

:func:`random_request` draws a complete hand from one physical set (136 tiles, one red five
per suit), then its melds (chi, pon, all three kan kinds), the winning tile, the win events,
riichi, winds, dora/ura indicators (drawn from the tiles left), honba, sticks and rule
options. A *theme* biases the tiles toward a yaku family (flushes, terminals, honours, green,
nine gates, identical runs, triplets ...) so that rare yaku and yakuman show up in a few
thousand hands. Every request passes :func:`scoring.hand.validate`.
"""
from __future__ import annotations

import random

from ..hand import HandRequest, Meld, RiichiRules, validate
from ..tiles import Tile, tile

THEMES = ("any", "any", "any", "simples", "half_flush", "full_flush", "outside", "pure_outside",
          "triplets", "honours", "dragons", "winds", "green", "nine_gates", "peikou",
          "straight", "three_colour", "seven_pairs", "orphans", "terminals")
_TERMINALS = (0, 8, 9, 17, 18, 26)
_HONOURS = tuple(range(27, 34))
_GREEN = (19, 20, 21, 23, 25, 32)


class _Wall:
    """Tiles still available: counts per kind and which red fives are unused."""

    def __init__(self) -> None:
        self.left = [4] * 34
        self.red = {4: True, 13: True, 22: True}

    def can(self, kinds: list[int]) -> bool:
        need: dict[int, int] = {}
        for k in kinds:
            need[k] = need.get(k, 0) + 1
        return all(self.left[k] >= n for k, n in need.items())

    def take(self, kinds: list[int], rng: random.Random, red_rate: float) -> list[Tile]:
        out = []
        for k in kinds:
            self.left[k] -= 1
            red = False
            if k in self.red and self.red[k] and rng.random() < red_rate:
                red = True
                self.red[k] = False
            elif k in self.red and self.red[k] and self.left[k] == 0:
                red = True          # the last five of a suit is the red one
                self.red[k] = False
            out.append(tile(k, red))
        return out

    def shown(self, kinds: list[int]) -> tuple[Tile, ...]:
        """Tiles turned face up from the wall (indicators), no random draw: a five is the red
        one when it is the last of its kind left and the red is still unused."""
        out = []
        for k in kinds:
            self.left[k] -= 1
            red = k in self.red and self.red[k] and self.left[k] == 0
            if red:
                self.red[k] = False
            out.append(tile(k, red))
        return tuple(out)


def _suit_kinds(suit: int) -> list[int]:
    return list(range(9 * suit, 9 * suit + 9))


def _pick_set(rng: random.Random, theme: str, suit: int, force_triplet: bool) -> list[int]:
    """Kinds of one set for ``theme`` (may be unavailable; the caller retries)."""
    if theme == "simples":
        s = rng.randrange(3)
        if not force_triplet and rng.random() < 0.7:
            k = 9 * s + rng.randrange(1, 6)
            return [k, k + 1, k + 2]
        k = 9 * s + rng.randrange(1, 8)
        return [k] * 3
    if theme in ("half_flush", "full_flush", "nine_gates", "peikou", "straight"):
        if theme == "half_flush" and rng.random() < 0.3:
            return [rng.choice(_HONOURS)] * 3
        if not force_triplet and rng.random() < 0.65:
            k = 9 * suit + rng.randrange(7)
            return [k, k + 1, k + 2]
        return [9 * suit + rng.randrange(9)] * 3
    if theme in ("outside", "pure_outside"):
        if theme == "outside" and rng.random() < 0.3:
            return [rng.choice(_HONOURS)] * 3
        s = rng.randrange(3)
        if not force_triplet and rng.random() < 0.6:
            k = 9 * s + rng.choice((0, 6))
            return [k, k + 1, k + 2]
        return [9 * s + rng.choice((0, 8))] * 3
    if theme in ("triplets", "terminals"):
        pool = list(_TERMINALS) + list(_HONOURS) if theme == "terminals" else list(range(34))
        return [rng.choice(pool)] * 3
    if theme == "honours":
        return [rng.choice(_HONOURS)] * 3
    if theme == "dragons":
        return [rng.choice((31, 32, 33) if rng.random() < 0.6 else range(34))] * 3
    if theme == "winds":
        if rng.random() < 0.7:
            return [rng.choice((27, 28, 29, 30))] * 3
    if theme == "green":
        if not force_triplet and rng.random() < 0.4:
            return [19, 20, 21]
        return [rng.choice(_GREEN)] * 3
    if theme == "three_colour":
        if not force_triplet and rng.random() < 0.8:
            k = 9 * rng.randrange(3) + suit  # suit doubles as the shared number here
            return [k, k + 1, k + 2]
        if rng.random() < 0.5:
            return [9 * rng.randrange(3) + suit] * 3
    # any
    if not force_triplet and rng.random() < 0.6:
        k = 9 * rng.randrange(3) + rng.randrange(7)
        return [k, k + 1, k + 2]
    return [rng.randrange(34)] * 3


def _pick_pair(rng: random.Random, theme: str, suit: int) -> int:
    if theme == "simples":
        return 9 * rng.randrange(3) + rng.randrange(1, 8)
    if theme in ("full_flush", "nine_gates", "peikou", "straight"):
        return 9 * suit + rng.randrange(9)
    if theme == "half_flush":
        return rng.choice([9 * suit + rng.randrange(9), rng.choice(_HONOURS)])
    if theme == "pure_outside":
        return rng.choice(_TERMINALS)
    if theme in ("outside", "terminals"):
        return rng.choice(_TERMINALS + _HONOURS)
    if theme in ("honours", "dragons", "winds"):
        return rng.choice(_HONOURS)
    if theme == "green":
        return rng.choice(_GREEN)
    return rng.randrange(34)


def _standard_hand(rng: random.Random, theme: str, wall: _Wall, red_rate: float):
    """Four sets (kinds) and a pair from ``wall``, or None after too many tries."""
    suit = rng.randrange(3) if theme != "three_colour" else rng.randrange(7)
    triplets_only = theme in ("triplets", "terminals", "honours") or rng.random() < 0.08
    if theme == "nine_gates":
        base = 9 * suit
        kinds = [base] * 3 + [base + i for i in range(1, 8)] + [base + 8] * 3
        kinds.append(base + rng.randrange(9))
        if not wall.can(kinds):
            return None
        return "nine_gates", wall.take(kinds, rng, red_rate)
    sets: list[list[int]] = []
    if theme == "peikou":
        k = 9 * suit + rng.randrange(7)
        sets += [[k, k + 1, k + 2], [k, k + 1, k + 2]]
        if rng.random() < 0.4:
            k2 = 9 * rng.randrange(3) + rng.randrange(7)
            sets += [[k2, k2 + 1, k2 + 2], [k2, k2 + 1, k2 + 2]]
    elif theme == "straight":
        sets += [[9 * suit + i, 9 * suit + i + 1, 9 * suit + i + 2] for i in (0, 3, 6)]
    flat = [k for s in sets for k in s]
    if not wall.can(flat):
        return None
    for _ in range(40):
        if len(sets) == 4:
            break
        s = _pick_set(rng, theme, suit, triplets_only)
        if wall.can(flat + s):
            sets.append(s)
            flat += s
    if len(sets) < 4:
        return None
    for _ in range(40):
        p = _pick_pair(rng, theme, suit % 3)
        if wall.can(flat + [p, p]):
            break
    else:
        return None
    rng.shuffle(sets)
    tiles_sets = [wall.take(s, rng, red_rate) for s in sets]
    pair = wall.take([p, p], rng, red_rate)
    return "standard", (tiles_sets, pair)


def random_request(rng: random.Random, *, double_wind_pair_fu: int = 4, red_rate: float = 0.5,
                   theme: str | None = None) -> HandRequest:
    """One random valid riichi win (always passes :func:`scoring.hand.validate`).

    ``rng``: the random source (seed it for a fixed slice). ``double_wind_pair_fu``: the rule
    option to draw (the ``mahjong`` package knows only 4). ``red_rate``: chance that a five
    drawn is the suit's red five. ``theme``: force one of :data:`THEMES`.
    """
    while True:
        req = _attempt(rng, double_wind_pair_fu, red_rate, theme or rng.choice(THEMES))
        if req is not None:
            validate(req)
            return req


def _attempt(rng, double_wind_pair_fu, red_rate, theme):
    """One random win of ``theme``, or None when the wall cannot give the tiles drawn. Drawn
    in the order of a hand's story: the tiles and calls, the winning tile, the win's events,
    the dora indicators, the table's rules (the order of the draws fixes a seed's hands)."""
    wall = _Wall()
    dealt = _deal(rng, theme, wall, red_rate)
    if dealt is None:
        return None
    concealed, melds = dealt
    rng.shuffle(concealed)
    win_index = rng.randrange(len(concealed))
    win_tile = concealed.pop(win_index)
    kans = sum(1 for m in melds if m.type in ("ankan", "daiminkan", "kakan"))
    events = _win_events(rng, concealed, melds, win_tile, kans)
    dora, ura = _indicators(rng, wall, kans, events, win_tile)
    rules = _table_rules(rng, double_wind_pair_fu)
    return HandRequest(
        ruleset="riichi", concealed=tuple(concealed), melds=tuple(melds), win_tile=win_tile,
        round_wind=rng.choice("EESSWN"), dora_indicators=dora, ura_dora_indicators=ura,
        honba=rng.choice((0, 0, 0, 1, 2, 5)), riichi_sticks=rng.choice((0, 0, 1, 2)), rules=rules,
        **events)


def _deal(rng, theme, wall, red_rate) -> tuple[list[Tile], list[Meld]] | None:
    """The tiles of a win of ``theme``: (concealed tiles, the winning one among them; melds),
    or None when the wall cannot give them."""
    concealed: list[Tile] = []
    if theme == "seven_pairs":
        kinds = rng.sample(range(34), 7) if rng.random() < 0.7 else rng.sample(
            [9 * rng.randrange(3) + i for i in range(9)] + list(_HONOURS), 7)
        for k in kinds:
            concealed += wall.take([k, k], rng, red_rate)
        return concealed, []
    if theme == "orphans":
        kinds = list(_TERMINALS + _HONOURS) + [rng.choice(_TERMINALS + _HONOURS)]
        return wall.take(kinds, rng, red_rate), []
    got = _standard_hand(rng, theme, wall, red_rate)
    if got is None:
        return None
    shape, body = got
    if shape == "nine_gates":
        return body, []
    sets, pair = body
    concealed += pair
    return _call_sets(rng, sets, concealed, wall, red_rate)


def _call_sets(rng, sets, concealed, wall, red_rate) -> tuple[list[Tile], list[Meld]]:
    """Each set of a four-sets hand kept concealed (added to ``concealed``) or called: a run
    as chi, a triplet as pon, or with its fourth tile from the wall as a kan."""
    melds: list[Meld] = []
    open_rate = rng.choice((0.0, 0.0, 0.25, 0.5, 0.8))
    for s in sets:
        is_run = s[0].kind != s[1].kind
        roll = rng.random()
        if is_run:
            if roll < open_rate:
                called = rng.choice(s)
                melds.append(Meld("chi", tuple(s), called, "left"))
            else:
                concealed += s
            continue
        kan_roll = rng.random()
        if kan_roll < 0.18 and wall.can([s[0].kind]):
            four = tuple(s) + tuple(wall.take([s[0].kind], rng, red_rate))
            kind = rng.choice(("ankan", "ankan", "daiminkan", "kakan"))
            if kind == "ankan":
                melds.append(Meld("ankan", four))
            else:
                if roll >= open_rate and kind == "daiminkan" and rng.random() < 0.5:
                    kind = "ankan"
                if kind == "ankan":
                    melds.append(Meld("ankan", four))
                else:
                    melds.append(Meld(kind, four, rng.choice(four), rng.choice(("left", "across", "right"))))
        elif roll < open_rate:
            melds.append(Meld("pon", tuple(s), rng.choice(s), rng.choice(("left", "across", "right"))))
        else:
            concealed += s
    return concealed, melds


def _win_events(rng, concealed, melds, win_tile, kans) -> dict:
    """The win and its events as HandRequest fields (tsumo or ron, riichi and ippatsu,
    rinshan, chankan, haitei/houtei, the seat, tenhou/chiihou), drawn so that they can go
    together (scoring.hand.check)."""
    closed = all(m.type == "ankan" for m in melds)
    win = rng.choice(("tsumo", "ron"))
    riichi = "none"
    ippatsu = False
    if closed and rng.random() < 0.55:
        riichi = "double" if rng.random() < 0.15 else "riichi"
        ippatsu = rng.random() < 0.2
    replacement = kans > 0 and win == "tsumo" and rng.random() < 0.3
    if replacement:
        ippatsu = False
    same_kind = sum(1 for t in concealed if t.kind == win_tile.kind) + sum(
        1 for m in melds for t in m.tiles if t.kind == win_tile.kind)
    robbing = win == "ron" and same_kind == 0 and rng.random() < 0.1
    last = not replacement and not robbing and rng.random() < 0.08
    if last and (win == "ron" or riichi == "double"):
        ippatsu = False         # impossible together (scoring.hand: riichi needs 4 tiles left)
    seat = rng.choice("ESWN")
    tenhou = chiihou = False
    if closed and not melds and win == "tsumo" and not last and rng.random() < 0.03:
        riichi, ippatsu = "none", False
        if seat == "E":
            tenhou = True
        else:
            chiihou = True
    return {"win": win, "seat_wind": seat, "last_wall_tile": last, "replacement_tile": replacement,
            "robbing_kong": robbing, "riichi": riichi, "ippatsu": ippatsu, "tenhou": tenhou,
            "chiihou": chiihou}


def _indicators(rng, wall, kans, events, win_tile) -> tuple[tuple[Tile, ...], tuple[Tile, ...]]:
    """Dora indicators (one, and one more per kan) and, after riichi, as many ura indicators,
    from the tiles the wall has left."""
    n_ind = 1 + kans
    left = [k for k in range(34) for _ in range(wall.left[k])]
    rng.shuffle(left)
    if events["robbing_kong"]:  # the robbed kan holds the other three: none is an indicator
        left = [k for k in left if k != win_tile.kind]
    dora = wall.shown(left[:n_ind])
    ura = wall.shown(left[n_ind:2 * n_ind]) if events["riichi"] != "none" else ()
    return dora, ura


def _table_rules(rng, double_wind_pair_fu) -> RiichiRules:
    """The table's rule options (red fives, open tanyao, kiriage mangan, double yakuman,
    kazoe yakuman)."""
    return RiichiRules(
        aka=rng.random() < 0.8,
        open_tanyao=rng.random() < 0.7,
        kiriage=rng.random() < 0.25,
        double_yakuman=rng.random() < 0.4,
        kazoe=rng.choice(("yakuman", "yakuman", "sanbaiman", "none")),
        double_wind_pair_fu=double_wind_pair_fu,
    )
