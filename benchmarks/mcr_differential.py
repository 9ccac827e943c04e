"""Differential test of tilescope's MCR scoring against pymahjonggb 1.4.0 (C++ engine, MIT).

Generates random valid MCR wins with its own generator (every shape: four sets + pair with
chows/pungs/kongs melded or concealed, seven pairs, seven shifted pairs, thirteen orphans,
honors and knitted tiles, knitted straight + set + pair, nine gates; flowers; every win
event), scores each with both engines and compares the totals (flowers included).

A difference is *explained* when tilescope, rerun with the reference engine's ruling as a
rule option, gives the engine's total (listed rulings, see scoring/mcr/RULES.md). Anything
else is printed as unexplained. Run from the repo root (takes ~1 min for 5,000 hands):

    .venv/bin/python -m benchmarks.mcr_differential [N] [SEED]
    .venv/bin/python -m benchmarks.mcr_differential --speed [N]   # hands/s vs pymahjonggb
"""
from __future__ import annotations

import random
import sys
from collections import Counter

from scoring.hand import HandError, validate
from scoring.mcr import McrRules, score_mcr
from scoring.mcr.shapes import KNITTED_PATTERNS, TERMINALS_HONORS
from scoring.request import parse_request
from scoring.tiles import Tile, parse_tiles, to_mpsz

# --- generator -----------------------------------------------------------------------------


def _mpsz(kinds) -> str:
    return to_mpsz([Tile(k) for k in kinds])


def _palette(rng: random.Random) -> list[int]:
    """Tile kinds a hand may use: one, two or three suits, with or without honours."""
    suits = rng.choice([[0], [1], [2], [0, 1], [1, 2], [0, 2], [0, 1, 2], [0, 1, 2]])
    kinds = [s * 9 + r for s in suits for r in range(9)]
    if rng.random() < 0.5:
        kinds += list(range(27, 34))
    if rng.random() < 0.15:
        kinds = [k for k in kinds if k >= 27 or k % 9 in (0, 8)] or kinds
    return kinds


def _standard(rng: random.Random, n_sets: int = 4, counts=None):
    """n_sets random sets and a pair as (sets, pair); sets are (type, kind)."""
    pal = _palette(rng)
    for _ in range(200):
        c = list(counts) if counts else [0] * 34
        sets = []
        ok = True
        for _ in range(n_sets):
            r = rng.random()
            if r < 0.5:
                chow_starts = [k for k in pal if k < 27 and k % 9 <= 6]
                if not chow_starts:
                    r = 0.6
                else:
                    k = rng.choice(chow_starts)
                    sets.append(("chow", k))
                    for t in (k, k + 1, k + 2):
                        c[t] += 1
                    continue
            k = rng.choice(pal)
            kind = "kong" if r > 0.88 else "pung"
            sets.append((kind, k))
            c[k] += 4 if kind == "kong" else 3
        pair = rng.choice(pal)
        c[pair] += 2
        if max(c) <= 4:
            return sets, pair
    return None


def random_request(rng: random.Random) -> dict | None:
    """One random MCR request dict (spec JSON), or None if the draw failed."""
    shape = rng.choices(["std", "7p", "7sp", "13o", "hk", "ks", "9g"],
                        weights=[75, 8, 3, 3, 4, 5, 2])[0]
    melds: list[dict] = []
    if shape == "std":
        got = _standard(rng)
        if got is None:
            return None
        sets, pair = got
        hand = [pair, pair]
        n_melds = rng.choice([0, 0, 1, 2, 3, 4])
        order = list(range(4))
        rng.shuffle(order)
        meld_idx = set(order[:n_melds])
        for i, (kind, k) in enumerate(sets):
            if kind == "kong":
                mt = rng.choice(["daiminkan", "kakan", "ankan"])
                melds.append({"type": mt, "tiles": _mpsz([k] * 4)})
            elif i in meld_idx:
                if kind == "chow":
                    melds.append({"type": "chi", "tiles": _mpsz([k, k + 1, k + 2])})
                else:
                    melds.append({"type": "pon", "tiles": _mpsz([k] * 3)})
            else:
                hand += [k, k + 1, k + 2] if kind == "chow" else [k] * 3
    elif shape in ("7p", "7sp"):
        if shape == "7sp":
            s, start = rng.randrange(3), rng.randrange(3)
            kinds = [s * 9 + start + i for i in range(7)]
        else:
            pal = _palette(rng)
            kinds = rng.sample(pal, min(7, len(pal)))
            if len(kinds) < 7 or rng.random() < 0.1:
                kinds = kinds[:6] + [kinds[0]]
        hand = [k for k in kinds for _ in range(2)]
    elif shape == "13o":
        hand = list(TERMINALS_HONORS) + [rng.choice(TERMINALS_HONORS)]
    elif shape == "hk":
        pat = rng.choice(KNITTED_PATTERNS)
        n_suited = rng.choice([7, 8, 9])
        hand = rng.sample(list(pat), n_suited) + rng.sample(range(27, 34), 14 - n_suited)
    elif shape == "ks":
        pat = list(rng.choice(KNITTED_PATTERNS))
        counts = [0] * 34
        for k in pat:
            counts[k] += 1
        got = _standard(rng, 1, counts)
        if got is None:
            return None
        (kind, k), pair = got[0][0], got[1]
        hand = pat + [pair, pair]
        if kind == "kong":
            melds.append({"type": rng.choice(["daiminkan", "ankan"]), "tiles": _mpsz([k] * 4)})
        elif rng.random() < 0.3:
            melds.append({"type": "chi" if kind == "chow" else "pon",
                          "tiles": _mpsz([k, k + 1, k + 2] if kind == "chow" else [k] * 3)})
        else:
            hand += [k, k + 1, k + 2] if kind == "chow" else [k] * 3
    else:  # nine gates
        s = rng.randrange(3) * 9
        hand = [s] * 3 + [s + r for r in range(1, 8)] + [s + 8] * 3 + [s + rng.randrange(9)]
    win = rng.choice(hand)
    hand.remove(win)
    all_kinds = Counter(hand + [win])
    for m in melds:
        for t in parse_tiles(m["tiles"]):
            all_kinds[t.kind] += 1
    if max(all_kinds.values()) > 4:
        return None
    has_kong = any(m["type"] in ("daiminkan", "kakan", "ankan") for m in melds)
    tsumo = rng.random() < 0.4
    req = {
        "ruleset": "mcr", "concealed": _mpsz(hand), "melds": melds, "win_tile": str(Tile(win)),
        "win": "tsumo" if tsumo else "ron",
        "seat_wind": rng.choice("ESWN"), "round_wind": rng.choice("ESWN"),
        "flowers": rng.choice([0, 0, 0, 1, 2, 3, 8]),
    }
    if tsumo and has_kong and rng.random() < 0.25:
        req["replacement_tile"] = True
    elif rng.random() < 0.08:
        req["last_wall_tile"] = True
    elif not tsumo and all_kinds[win] == 1 and rng.random() < 0.1:
        req["robbing_kong"] = True
    if not req.get("robbing_kong") and hand.count(win) == 0 and rng.random() < 0.12:
        req["last_copy"] = True
    return req


# --- the reference engine ------------------------------------------------------------------

_HONOR_CODES = ("F1", "F2", "F3", "F4", "J3", "J2", "J1")  # E S W N, White Green Red


def gb_code(kind: int) -> str:
    """pymahjonggb tile code of a kind (W characters, B dots, T bamboo; J1 Red J2 Green J3 White)."""
    if kind >= 27:
        return _HONOR_CODES[kind - 27]
    return "WBT"[kind // 9] + str(kind % 9 + 1)


def gb_args(req: dict) -> tuple:
    """MahjongFanCalculator positional arguments for a request dict."""
    packs = []
    for m in req["melds"]:
        ks = sorted(t.kind for t in parse_tiles(m["tiles"]))
        if m["type"] == "chi":
            packs.append(("CHI", gb_code(ks[1]), 1))
        elif m["type"] == "pon":
            packs.append(("PENG", gb_code(ks[0]), 1))
        else:
            packs.append(("GANG", gb_code(ks[0]), 0 if m["type"] == "ankan" else 1))
    hand = tuple(gb_code(t.kind) for t in parse_tiles(req["concealed"]))
    win = gb_code(parse_tiles(req["win_tile"])[0].kind)
    winds = "ESWN"
    return (tuple(packs), hand, win, req.get("flowers", 0), req["win"] == "tsumo",
            bool(req.get("last_copy")), bool(req.get("replacement_tile") or req.get("robbing_kong")),
            bool(req.get("last_wall_tile")), winds.index(req["seat_wind"]), winds.index(req["round_wind"]))


def gb_score(args: tuple) -> tuple[int, list[str]]:
    """Total (flowers included) and fan names from pymahjonggb; (-1, [error]) if it refuses."""
    from MahjongGB import MahjongFanCalculator
    try:
        fans = MahjongFanCalculator(*args, verbose=True)
    except TypeError as exc:
        return -1, [str(exc)]
    return sum(p * c for p, c, _, _ in fans), [f"{en}x{c}" if c > 1 else en for _, c, _, en in fans]


# --- rulings -------------------------------------------------------------------------------

RULINGS: dict[str, McrRules] = {
    "concealed + melded kong scored as one 5-point fan (not among the 81)": McrRules(kong_pair_5=True),
    "a tile of which the winner holds all four counted as a wait": McrRules(fifth_copy_wait=True),
    "both of the above": McrRules(kong_pair_5=True, fifth_copy_wait=True),
}


def compare(n: int = 5000, seed: int = 2006, show: int = 15) -> dict:
    """Score ``n`` random hands with both engines; return counts and unexplained examples."""
    rng = random.Random(seed)
    stats: Counter = Counter()
    unexplained = []
    done = 0
    while done < n:
        obj = random_request(rng)
        if obj is None:
            continue
        try:
            req = parse_request(obj)
            validate(req)
        except HandError:
            stats["generator drew an impossible hand (skipped)"] += 1
            continue
        done += 1
        ours = score_mcr(req)
        theirs, their_fans = gb_score(gb_args(obj))
        if theirs == ours.total:
            stats["agree"] += 1
            continue
        for name, rules in RULINGS.items():
            if score_mcr(req, rules).total == theirs:
                stats[name] += 1
                break
        else:
            stats["unexplained"] += 1
            if len(unexplained) < show:
                unexplained.append((obj, ours.total, [f"{f.name}x{f.count}" if f.count > 1 else f.name
                                                      for f in ours.fans], theirs, their_fans))
    return {"n": n, "stats": stats, "unexplained": unexplained}


def print_speed(n: int = 2000) -> None:
    """Print MCR hands/second, tilescope vs pymahjonggb (``benchmarks.scoring.mcr``)."""
    from benchmarks.scoring import mcr
    r = mcr(n)
    print(f"MCR, {r['hands']} random valid hands (CPU time, median of interleaved chunks):")
    print(f"  tilescope score_hand (validated)  {r['tilescope_per_s']:9.0f} hands/s   "
          f"{r['slowdown']:.1f}x the time of pymahjonggb")
    print(f"  tilescope score_mcr (core)        {r['tilescope_core_per_s']:9.0f} hands/s   "
          f"{r['slowdown_core']:.1f}x the time of pymahjonggb")
    print(f"  pymahjonggb 1.4.0 (C++)           {r['pymahjonggb_per_s']:9.0f} hands/s")


def main(argv: list[str]) -> int:
    if len(argv) > 1 and argv[1] == "--speed":
        print_speed(int(argv[2]) if len(argv) > 2 else 2000)
        return 0
    n = int(argv[1]) if len(argv) > 1 else 5000
    seed = int(argv[2]) if len(argv) > 2 else 2006
    out = compare(n, seed)
    st = out["stats"]
    agree = st["agree"]
    listed = sum(v for k, v in st.items() if k in RULINGS)
    print(f"MCR differential vs pymahjonggb 1.4.0: {n} hands, seed {seed}")
    print(f"  same total:                {agree} ({100 * agree / n:.2f}%)")
    print(f"  differ by a listed ruling: {listed}")
    for k in RULINGS:
        if st[k]:
            print(f"    {st[k]:5d}  {k}")
    print(f"  unexplained:               {st['unexplained']}")
    print(f"  agreement apart from listed rulings: {100 * (agree + listed) / n:.2f}%")
    for obj, ot, of, tt, tf in out["unexplained"]:
        print("  --", obj)
        print(f"     tilescope {ot}: {of}")
        print(f"     pymahjonggb {tt}: {tf}")
    return 0 if st["unexplained"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
