"""benchmarks/pipeline.py's own arithmetic: the interval it prints around a share, and the
hand-by-hand comparison of two runs (``--compare``)."""
from __future__ import annotations

import json

import pytest

from benchmarks.pipeline import compare_runs, main, wilson


def test_wilson_interval_of_the_held_out_benchmark():
    # Wilson (1927) score interval, z = 1.96: 68 right of 300 (p = 0.2267) is centred on
    # (p + z^2/2n) / (1 + z^2/n) = 0.2301, half-width z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n)
    # = 0.0472: 18.3% to 27.7%
    low, high = wilson(68, 300)
    assert low == pytest.approx(0.1829, abs=5e-4) and high == pytest.approx(0.2773, abs=5e-4)
    # none of 10: from 0 to z^2/(n + z^2) = 3.8416 / 13.8416 = 27.8%
    low, high = wilson(0, 10)
    assert low == pytest.approx(0.0, abs=1e-9) and high == pytest.approx(0.2775, abs=5e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_compare_runs_lists_the_hands_won_and_lost():
    old = [{"i": 0, "score_right": True}, {"i": 1, "score_right": False},
           {"i": 3, "score_right": True}, {"i": 4, "score_right": False}]
    new = [{"i": 0, "score_right": True}, {"i": 1, "score_right": True},
           {"i": 3, "score_right": False}, {"i": 5, "score_right": True}]   # 5: not in the old run
    assert compare_runs(old, new) == ([1], [3])


def test_compare_flag_reads_an_earlier_run(tmp_path, capsys):
    pytest.importorskip("cv2")
    from datasets.art import ArtError, list_styles

    try:
        list_styles()
    except ArtError:
        pytest.skip("tile artwork not found (../shared/art or $TILESCOPE_ART)")
    first = tmp_path / "first.jsonl"
    # ground-truth boxes: no model needed; the same seed renders the same hands
    args = ["--n", "3", "--truth", "--style", "riichi-regular", "--seed", "5", "--failures", "0"]
    assert main(args + ["--json", str(first)]) == 0
    rows = [json.loads(line) for line in first.read_text().splitlines()]
    capsys.readouterr()
    assert main(args + ["--compare", str(first)]) == 0
    out = capsys.readouterr().out
    assert f"against {first}: 0 hands won [], 0 lost []" in out
    assert "95% interval" in out and f"({len(rows)} hands)" in out
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    assert main(args + ["--compare", str(bad)]) == 2
