"""The corrections as an ordered list of named steps (vision/photo/corrections.py) and the typed
values after the layout (vision/photo/judging.py).

The photos are the bundled rendered samples read through their ground-truth boxes (as in
tests/test_pipeline.py), so the values are the true hand's, worked out there from the rules.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from scoring.api import score_json
from scoring.hand import HandRequest
from scoring.riichi import RiichiResult
from scoring.verdict import Verdict, no_ruling
from test_pipeline import RIICHI, RIICHI_CONTEXT, FakeReader, truth
from vision.photo import corrections
from vision.layout.grouping import group
from vision.photo.judging import Job, Reading, TableContext, score
from vision.layout import LayoutWarning
from vision.photo.pipeline import check_photo, score_photo


def _first_reading(dets) -> Reading:
    grouped = group(dets, "riichi")
    return Reading(grouped.detections, grouped.layout, renamed=grouped.warnings())


def test_a_clean_photo_is_judged_once_and_no_step_says_anything():
    # the riichi sample read surely: 2 han 30 fu, non-dealer ron 2000 (tests/test_pipeline.py's
    # worked value); no step applies, so the hand is judged once and no step warns
    dets, _ = truth(RIICHI)
    calls = []

    def counting(hand):
        calls.append(hand)
        return score(hand)

    job = Job(TableContext.of(RIICHI_CONTEXT), counting, hand_only=True)
    reading, notes, seconds = corrections.correct(_first_reading(dets), job)
    assert len(calls) == 1 and notes == []
    assert reading.result.payment.total == 2000 and reading.as_read is reading.detections
    assert list(seconds) == [step.__name__ for step in corrections.STEPS]


def test_a_new_step_is_one_entry_and_runs_in_its_place(monkeypatch):
    # a step put right after `judge` sees the judged hand, and its warning is reported after
    # the hand's own (it is in no NOTE_ORDER slot: the steps' order then)
    dets, _ = truth(RIICHI)
    seen = []

    def say_the_value(reading, job):
        seen.append(reading.result.payment.total)
        return reading, [LayoutWarning("value_seen", f"valued at {reading.result.payment.total}")]

    at = corrections.STEPS.index(corrections.judge) + 1
    monkeypatch.setattr(corrections, "STEPS", corrections.STEPS[:at] + [say_the_value] + corrections.STEPS[at:])
    photo = score_photo(dets, RIICHI_CONTEXT)
    assert seen == [2000]
    assert [w.message for w in photo.warnings if w.code == "value_seen"] == ["valued at 2000"]


def test_a_step_that_corrects_says_so_with_the_fix_that_undoes_it():
    # the sample's 4p (tile 3) read as 9p at 0.45, 4p its next guess (0.3): 23m 906p 678s 88s
    # + 4m is no winning hand, the joint re-reading takes 4p back (2000 again), and its
    # warning names --fix 3=9p, which restores the reading it overruled
    dets, _ = truth(RIICHI)
    misread = replace(dets, tiles=[replace(d, tile="9p", confidence=0.45, alternatives=(("4p", 0.3),))
                                   if d.tile == "4p" else d for d in dets.tiles])
    photo = score_photo(misread, RIICHI_CONTEXT)
    corrected = [w for w in photo.warnings if w.code == "corrected"]
    assert photo.result.payment.total == 2000
    assert len(corrected) == 1 and "--fix 3=9p" in corrected[0].fix


def test_the_request_and_result_are_typed_with_json_at_the_edge():
    dets, _ = truth(RIICHI)
    photo = score_photo(dets, RIICHI_CONTEXT)
    assert isinstance(photo.request.hand, HandRequest) and isinstance(photo.result, RiichiResult)
    assert str(photo.request.hand.win_tile) == "4m" and photo.result.han == 2 and photo.result.fu == 30
    out = photo.to_json()
    assert out["result"] == score_json(out["request"]) == photo.result.to_json()


@pytest.mark.parametrize("ruleset, context", [
    ("riichi", {"win": "ron", "riichi": "riichi", "dora_indicators": "1z"}),
    ("riichi", {"rules": {"aka": False}, "honba": 2}),
    ("mcr", {"flowers": 3, "seat_wind": "S"}),
    ("mcr", {"win_tile_shown": True}),
])
def test_the_typed_request_is_its_json_parsed(ruleset, context):
    # the HandRequest built from the layout's tiles and the typed context is the one
    # scoring.request.parse_request makes of the request's JSON (docs/hand-json.md), for a
    # winning tile set apart and for one chosen among candidates (MCR: not shown, whatever
    # the context says)
    from scoring.request import parse_request
    from synthetic_hands import APART, Table, to_detections

    for table in (Table().row("123m456p789s11z22z").row(["2z"], gap=APART),
                  Table().row("123m456p789s11z222z")):
        photo = score_photo(to_detections(table), {"ruleset": ruleset, **context})
        assert photo.request.hand == parse_request(photo.request.to_json())
    assert photo.layout.win_candidates and photo.request.hand.win_tile_shown is (ruleset != "mcr")


def test_a_ruling_held_back_is_a_verdict_with_the_keys_of_no_ruling():
    # every tile read at 0.3 (unsure_photo): no ruling; the JSON has the keys a check request
    # that could not be ruled on has (scoring.verdict.no_ruling)
    dets, _ = truth(RIICHI)
    blurred = replace(dets, tiles=[replace(d, confidence=0.3, alternatives=()) if d.tile != "4p"
                                   else replace(d, tile="1p", confidence=0.3, alternatives=())
                                   for d in dets.tiles])
    result = check_photo(blurred, RIICHI_CONTEXT, reader=FakeReader(blurred)).result
    assert isinstance(result, Verdict) and result.ruling is None and result.valid is False
    assert "the reader is unsure of most tiles" in result.error
    assert list(result.to_json()) == list(no_ruling({}, "x"))
