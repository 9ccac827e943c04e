"""The per-suit tables of scoring/riichi/suits.py: each set's share as a plain pass over the sets
would give it, and entries built lazily (as hands need them) equal to the complete tables."""
import subprocess
import sys

from scoring.decompose import KANCHAN, PENCHAN, RUN, RYANMEN, SHANPON, TRIPLET, split_table
from scoring.riichi import suits


def _reference_wins(sets, q):
    """The sets a winning tile at position q can have completed, set by set (the rule spelled
    out, as suits.py once computed it)."""
    out, seen, triplet = [], [], -1
    for i, (shape, pos) in enumerate(sets):
        if shape == TRIPLET:
            triplet += 1
            if pos != q:
                continue
            wait = SHANPON
        else:
            d = q - pos
            if d == 1:
                wait = KANCHAN
            elif d == 0:
                wait = PENCHAN if pos == 6 else RYANMEN
            elif d == 2:
                wait = PENCHAN if pos == 0 else RYANMEN
            else:
                continue
        if (shape, pos) in seen:
            continue
        seen.append((shape, pos))
        out.append((i, wait, triplet if shape == TRIPLET else -1))
    return tuple(out)


def test_every_share_equals_a_pass_over_its_sets():
    n = 0
    for honours in (False, True):
        every_sets = {sets for splits in split_table(honours).values() for _, sets in splits}
        for sets in every_sets:
            counts, runs, triplets, lines, groups, wins, same = suits._sets_share(sets, honours)
            assert same == sets
            assert wins == tuple(_reference_wins(sets, q) for q in range(7 if honours else 9))
            run_pos = [p for s, p in sets if s == RUN]
            trip_pos = [p for s, p in sets if s == TRIPLET]
            assert runs == sum(1 << p for p in set(run_pos))
            assert triplets == sum(1 << p for p in trip_pos)
            field = lambda shift: counts >> shift & suits.FIELD_MASK
            assert field(suits.RUNS_SHIFT) == len(run_pos)
            assert field(suits.TRIPLETS_SHIFT) == field(suits.CONCEALED_SHIFT) == len(trip_pos)
            assert field(suits.PEIKOU_SHIFT) == sum(run_pos.count(p) // 2 for p in set(run_pos))
            inner = sum(1 for s, p in sets
                        if not honours and (p not in (0, 6) if s == RUN else p not in (0, 8)))
            assert field(suits.INNER_SHIFT) == inner
            assert counts >> suits.FU_SHIFT == sum(line.fu for line in lines)
            assert len(lines) == len(trip_pos)
            for suit in range(4):
                if (suit == 3) == honours:
                    assert [(g.shape, g.kind - 9 * suit) for g in groups[suit]] == list(sets)
                else:
                    assert groups[suit] is None
            n += 1
    assert n == 3066


_LAZY = """
import random
from scoring.api import score_hand
from scoring.riichi import suits
from scoring.riichi.random_hands import random_request
rng = random.Random(11)
for _ in range(20):
    score_hand(random_request(rng))
numbered_empty = suits._NUMBERED[bytes(9)]
built = {**suits._NUMBERED}, {**suits._HONOURS}
assert not suits._complete and 0 < len(built[0]) + len(built[1]) < suits.FILL_AFTER, built
m, p, s, z = suits.hand_suits(bytes([1, 1] + [0] * 32))     # 12m does not split: no entry
assert m == () and bytes([1, 1] + [0] * 7) not in suits._NUMBERED and p == s == numbered_empty
numbered, honours = suits.suit_tables()
assert suits._complete and len(numbered) == 21743 and len(honours) == 498
for lazy, table in zip(built, (numbered, honours)):
    for key, entry in lazy.items():
        assert table[key] is entry
suits._NUMBERED.clear(); suits._HONOURS.clear(); suits._SHARES[0].clear(); suits._SHARES[1].clear()
fresh = suits.suit_tables()
for lazy, table in zip(built, fresh):
    for key, entry in lazy.items():
        assert table[key] == entry
print("ok")
"""


def test_lazy_entries_equal_the_complete_tables():
    # a fresh interpreter: this one's tables may be complete already
    out = subprocess.run([sys.executable, "-c", _LAZY], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_a_stream_completes_the_tables():
    out = subprocess.run([sys.executable, "-c", """
import random
from scoring.api import score_hand
from scoring.riichi import suits
from scoring.riichi.random_hands import random_request
rng = random.Random(12)
while not suits._complete:
    score_hand(random_request(rng))
print(len(suits._NUMBERED), len(suits._HONOURS))
"""], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.split() == ["21743", "498"], out.stderr
