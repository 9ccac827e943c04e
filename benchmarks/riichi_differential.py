"""Differential run of tilescope's riichi scoring against ``mahjong==2.1.0`` (PyPI, MIT).

Draws N random valid wins (scoring/riichi/random_hands.py: open melds, all kan kinds, red
fives, yaku and yakuman themes, dora/ura/aka, honba, sticks, rule options), scores each with
both engines and compares validity, han, fu and every payment. Then it shows, on hands built
for the purpose, the documented rule differences (scoring/riichi/RULES.md): each line says
what tilescope answers, what ``mahjong`` answers and why.

With ``--one-suit`` it instead checks every complete one-suit hand (13,277 of them, the
hardest case for readings: pinfu, iipeikou/ryanpeikou, ittsu, sanankou, nine gates and seven
pairs compete) with every winning tile, by tsumo and by ron (about 170,000 wins).

Run from the repo root (about a minute for 10,000 hands on a laptop core):

    .venv/bin/python -m benchmarks.riichi_differential [N] [SEED]
    .venv/bin/python -m benchmarks.riichi_differential --one-suit
"""
from __future__ import annotations

import random
import sys
from collections import Counter

from scoring.api import score_hand
from scoring.hand import HandRequest, Meld, RiichiRules
from scoring.riichi.random_hands import random_request
from scoring.tiles import Tile, parse_tile, parse_tiles
from tests.riichi_reference import compare, known_difference, one_suit_hands, one_suit_wins, ours, reference_score


def differential(n: int, seed: int) -> int:
    """Compare N random hands; print agreement and every unexplained disagreement.
    Returns the number of unexplained disagreements."""
    rng = random.Random(seed)
    agree = 0
    explained: Counter[str] = Counter()
    unexplained = []
    yaku: Counter[str] = Counter()
    for i in range(n):
        req = random_request(rng)
        res = score_hand(req)
        mine, ref = ours(res), reference_score(req)
        if mine["valid"]:
            yaku.update(y["name"] for y in res.to_json()["yaku"])
        diffs = compare(mine, ref)
        if not diffs:
            agree += 1
            continue
        why = known_difference(req, mine, ref)
        if why:
            explained[why] += 1
        else:
            unexplained.append((i, req, diffs))
    print(f"riichi differential vs mahjong 2.1.0: {n} hands, seed {seed}")
    print(f"  agree on validity, han, fu and payments: {agree}/{n} ({100 * agree / n:.2f}%)")
    for why, count in explained.most_common():
        print(f"  explained by a documented rule difference: {count}  ({why})")
    print(f"  unexplained: {len(unexplained)}")
    for i, req, diffs in unexplained[:20]:
        print(f"    hand {i}: {diffs}\n      {req}")
    print(f"  yaku seen ({len(yaku)}): " + ", ".join(f"{k} {v}" for k, v in sorted(yaku.items())))
    return len(unexplained)


def _req(text: str, win_tile: str, melds=(), **kw) -> HandRequest:
    return HandRequest(concealed=tuple(parse_tiles(text)), win_tile=parse_tile(win_tile),
                       melds=tuple(Meld(t, tuple(parse_tiles(s))) for t, s in melds), **kw)


# Hands that show each documented difference (scoring/riichi/RULES.md).
DIFFERENCES = [
    ("ippatsu on a kan replacement tile: declaring a kan ends the ippatsu turn (tilescope rejects)",
     _req("234m456p789s1z", "1z", [("ankan", "0555m")], win="tsumo", riichi="riichi",
          ippatsu=True, replacement_tile=True)),
    ("chankan while holding another copy of the robbed tile: physically impossible (tilescope rejects)",
     _req("234m456p789s11z44s", "4s", win="ron", robbing_kong=True, riichi="riichi")),
    ("tenhou with riichi: tenhou is the first draw, before any riichi (tilescope rejects)",
     _req("234m456p789s11z44s", "4s", win="tsumo", tenhou=True, riichi="riichi")),
    ("double wind pair worth 2 fu (rule option double_wind_pair_fu=2; mahjong always 4)",
     _req("24m456p11z", "3m", [("chi", "678s"), ("pon", "777z")], win="tsumo", seat_wind="E",
          round_wind="E", rules=RiichiRules(double_wind_pair_fu=2))),
]


def differences() -> None:
    """Print tilescope's and mahjong's answers on each documented difference."""
    print("documented rule differences:")
    for what, req in DIFFERENCES:
        mine, ref = ours(score_hand(req)), reference_score(req)
        show_mine = mine.get("error") or f"{mine.get('han')} han {mine.get('fu')} fu, total {mine.get('total')}"
        show_ref = ref.get("error") or f"{ref.get('han')} han {ref.get('fu')} fu, total {ref.get('total')}"
        print(f"  - {what}\n      tilescope: {show_mine}\n      mahjong:   {show_ref}")


def one_suit() -> int:
    """Check every complete one-suit hand; print agreement; return disagreements."""
    n = bad = 0
    for hand in one_suit_hands():
        for req in one_suit_wins(hand, seat_wind="S", round_wind="E"):
            n += 1
            diffs = compare(ours(score_hand(req)), reference_score(req))
            if diffs:
                bad += 1
                if bad <= 20:
                    print(f"    {hand} win {req.win_tile} {req.win}: {diffs}")
    print(f"every complete one-suit hand, every winning tile, tsumo and ron: {n - bad}/{n} agree")
    return bad


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one-suit"]:
        return 1 if one_suit() else 0
    n = int(argv[0]) if argv else 10_000
    seed = int(argv[1]) if len(argv) > 1 else 1
    bad = differential(n, seed)
    differences()
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
