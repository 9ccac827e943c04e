"""A fixed-seed slice of the MCR differential test against pymahjonggb 1.4.0 (C++ engine).

The full run (5,000 hands) is ``benchmarks/mcr_differential.py``. Every difference must be
one of the listed rulings of ``scoring/mcr/RULES.md``: rerun with the engine's practice as a
rule option, tilescope must give the engine's total.
"""
from __future__ import annotations

import pytest

pytest.importorskip("MahjongGB", reason="pymahjonggb (dev extra) not installed")

from benchmarks.mcr_differential import compare  # noqa: E402


def test_differential_slice_agrees_apart_from_listed_rulings():
    out = compare(n=300, seed=11, show=3)
    assert out["stats"]["unexplained"] == 0, out["unexplained"]
    assert out["stats"]["agree"] >= 280
