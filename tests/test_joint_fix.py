"""Joint re-reading of unsure tiles: the most probable complete hand among the reader's
guesses (vision.photo.joint_fix), and the pipeline scoring it with a warning that says so."""
from __future__ import annotations

import pytest

from scoring.api import score_json
from synthetic_hands import APART, Table, codes, to_detections
from vision.photo.joint_fix import is_sorted_row, joint_correction
from vision.layout import parse_layout
from vision.photo.pipeline import score_photo


class FakeReader:
    def __init__(self, dets):
        self.dets = dets

    def read(self, _image):
        return self.dets


def _layout_dets(concealed: str, win: str, unsure: dict[int, tuple[float, tuple]]):
    """Concealed row + the winning tile set apart; ``unsure``: {0-based position: (conf, alts)}
    where the *read* tile is given in ``concealed`` itself."""
    table = Table().row(concealed).row([win], gap=APART)
    return to_detections(table, confidence=unsure)


# The riichi hand 11 44 77m 77s 11 33 77z (seven pairs) with 7m and 7s misread as in a real run
# of benchmarks/pipeline.py: tile 6 (7m) read 6m 0.27 (9m 0.20, 7m 0.16), tile 8 (7s) read 9s
# 0.42 (6s 0.21, 7s 0.16). Neither single change makes a hand; both together do.
SEVEN_PAIRS_MISREAD = ("114476m79s11337z", "7z", {
    5: (0.27, (("9m", 0.20), ("7m", 0.16))),
    7: (0.42, (("6s", 0.21), ("7s", 0.16))),
})


def test_two_tiles_are_re_read_together():
    dets = _layout_dets(*SEVEN_PAIRS_MISREAD)
    layout = parse_layout(dets, "riichi")
    assert joint_correction(layout) == {6: "7m", 8: "7s"}


def test_the_most_probable_complete_hand_wins():
    # 123m 456p 789s 23?s 55z + 5z: the unsure tile completes as 4s (0.25) or 1s (0.20): 4s
    dets = _layout_dets("123m456p789s234s5z", "5z", {11: (0.3, (("4s", 0.25), ("1s", 0.2)))})
    dets.tiles[:] = [d if d.tile != "4s" else type(d)("4p", d.box, d.confidence, d.sideways, d.alternatives)
                     for d in dets.tiles]
    layout = parse_layout(dets, "riichi")
    assert joint_correction(layout) == {12: "4s"}


def test_confident_tiles_are_never_changed_and_a_complete_hand_needs_nothing():
    conc, win, unsure = SEVEN_PAIRS_MISREAD
    sure = {i: (0.9, alts) for i, (_, alts) in unsure.items()}
    assert joint_correction(parse_layout(_layout_dets(conc, win, sure), "riichi")) is None
    assert joint_correction(parse_layout(_layout_dets("114477m77s11337z", "7z", {}), "riichi")) == {}


def test_pipeline_scores_the_corrected_hand_and_says_how_to_undo_it():
    dets = _layout_dets(*SEVEN_PAIRS_MISREAD)
    ctx = {"ruleset": "riichi", "win": "tsumo", "seat_wind": "E", "round_wind": "E", "riichi": "riichi"}
    photo = score_photo(dets, ctx, reader=FakeReader(dets))
    true = score_json({**ctx, "concealed": "114477m77s11337z", "win_tile": "7z"})
    # riichi 1 + menzen tsumo 1 + chiitoitsu 2 = 4 han 25 fu, dealer tsumo 3200 all (rules §payments)
    assert true["han"] == 4 and true["fu"] == 25 and true["payment"] == {"total": 9600, "from_each": 3200}
    assert photo.result.to_json()["han"] == true["han"] and photo.result.to_json()["payment"] == true["payment"]
    [w] = [w for w in photo.warnings if w.code == "corrected"]
    assert w.tiles == (6, 8) and w.fix == "--fix 6=6m --fix 8=9s"
    # --json: a corrected tile says so and what the reader made of it (its 1.0 is the correction's)
    tiles = {t["n"]: t for t in photo.to_json()["tiles"]}
    assert tiles[6]["corrected"] and tiles[6]["tile"] == "7m" and tiles[6]["read_as"] == ["6m", 0.27]
    assert "corrected" not in tiles[5] and "read_as" not in tiles[5]
    # the user insists on the reading: no correction, the hand cannot be scored
    kept = score_photo(dets, ctx, reader=FakeReader(dets), fixes={6: "6m", 8: "9s"})
    assert kept.result.to_json().get("error")
    assert not [w for w in kept.warnings if w.code == "corrected"]


def test_a_flower_guess_is_never_put_into_the_hand():
    conc, win, _ = SEVEN_PAIRS_MISREAD
    unsure = {5: (0.27, (("3f", 0.25), ("7m", 0.16))), 7: (0.42, (("back", 0.3), ("7s", 0.16)))}
    assert joint_correction(parse_layout(_layout_dets(conc, win, unsure), "riichi")) == {6: "7m", 8: "7s"}


def test_mcr_shapes_count_as_complete_under_mcr_only():
    # Lesser Honors and Knitted Tiles (Green Book fan 12 pts): 147m 258p 369s + five honours,
    # all different. The 9s (position 8) read as 8s, next guess 9s.
    dets = _layout_dets("147m258p368s1234z", "5z", {8: (0.4, (("9s", 0.3),))})
    assert joint_correction(parse_layout(dets, "mcr")) == {9: "9s"}
    # not a riichi shape (no four sets and a pair, not thirteen orphans): nothing to correct to
    assert joint_correction(parse_layout(dets, "riichi")) is None


def test_sorted_rows():
    # kinds: 0..8 characters, 9..17 dots, 18..26 bamboo, 27..33 honours
    assert is_sorted_row([0, 1, 2, 12, 13, 27, 27])
    assert is_sorted_row([27, 27, 18, 19, 0, 4])             # suits in any order
    assert is_sorted_row([31, 27, 13, 12, 2, 1])              # the row read from the other end
    assert not is_sorted_row([3, 1, 2])                       # 423m
    assert not is_sorted_row([0, 1, 9, 2])                    # characters on both sides of a dot
    assert not is_sorted_row([0, 2, 1, 9, 10])                # rising, then falling
    assert not is_sorted_row([0, 1, 27, 27, 18])              # 12m 11z 1s: honours between suits
    assert is_sorted_row([27, 27, 9, 18])                     # ... at either end they are sorted
    assert is_sorted_row([])


# 123456789m 111z + 2z: tile 1 (1m) read as 4m (0.45), next guess 1m (0.35). As read the row
# 4m2m3m... still makes a winning hand (234m 456m 789m), but not a sorted row.
UNSORTED_MISREAD = ("423456789m111z2z", "2z", {0: (0.45, (("1m", 0.35),))})


def test_a_sorted_complete_hand_is_preferred_to_a_more_probable_unsorted_one():
    layout = parse_layout(_layout_dets(*UNSORTED_MISREAD), "riichi")
    assert joint_correction(layout) == {1: "1m"}
    # 25 times less probable than the reading: past SORTED_PREFERENCE, the reading stays
    far = ("423456789m111z2z", "2z", {0: (0.5, (("1m", 0.02),))})
    assert joint_correction(parse_layout(_layout_dets(*far), "riichi")) == {}


def test_the_pipeline_re_reads_a_winning_hand_read_from_an_unsorted_row():
    dets = _layout_dets(*UNSORTED_MISREAD)
    ctx = {"ruleset": "riichi", "win": "tsumo", "seat_wind": "S", "round_wind": "E", "riichi": "riichi"}
    true = score_json({**ctx, "concealed": "123456789m111z2z", "win_tile": "2z"})
    as_read = score_json({**ctx, "concealed": "234456789m111z2z", "win_tile": "2z"})
    # riichi 1, menzen tsumo 1, East (round wind) 1, honitsu 3 (closed), ittsu 2 (closed) = 8 han
    # baiman; as read no ittsu: 6 han haneman (rules §yaku, §limits)
    assert true["han"] == 8 and as_read["han"] == 6 and not as_read.get("error")
    photo = score_photo(dets, ctx, reader=FakeReader(dets))
    assert photo.result.to_json()["han"] == 8 and photo.result.to_json()["payment"] == true["payment"]
    [w] = [w for w in photo.warnings if w.code == "corrected"]
    assert w.fix == "--fix 1=4m" and "unsorted" in w.message


def test_a_white_dragon_read_face_down_is_re_read_however_sure():
    # 123m 456p 789s 555z 11z (winning on 1z): the third haku read as a back with 0.9, next guess 5z
    row = codes("123m456p789s55z") + ["back", "1z"]
    table = Table().row(row).row(["1z"], gap=APART)
    dets = to_detections(table, confidence={11: (0.9, (("5z", 0.08),))})
    assert joint_correction(parse_layout(dets, "riichi")) == {12: "5z"}


def test_a_tile_between_two_of_a_kind_in_a_sorted_row_may_be_one_more():
    # 777p 999p 999s 3z + 3z, +pon 111z (MCR) from real tiles: the middle 7p read 8p at 0.19 with
    # 3f and 1s as its guesses; the joint re-reading changed the sure 7p beside it to 6p (a chow
    # 678p, 10 points) where the sorted row allows only 7p between two 7p (30 points)
    from vision.photo.joint_fix import between_neighbours
    dets = _layout_dets("787999p999s1133z", "1z", {1: (0.19, (("3f", 0.13), ("1s", 0.08))),
                                                   0: (0.7, (("6p", 0.05),))})
    layout = parse_layout(dets, "riichi")
    row = [d for g in layout.groups if g.kind == "concealed" for d in g.detections]
    unsure = {id(row[1])}
    assert between_neighbours(row, row[1], unsure) == [15]           # 7p (dots are kinds 9-17)
    assert between_neighbours(row, row[0], unsure) == []             # no left neighbour
    assert joint_correction(layout) == {2: "7p"}
    photo = score_photo(dets, {"ruleset": "riichi", "win": "ron"}, reader=None)
    note = [w for w in photo.warnings if w.code == "corrected"]
    assert note and "neighbours in the sorted row" in note[0].message and note[0].fix == "--fix 2=8p"


def test_neighbours_of_two_suits_or_two_honours_allow_nothing():
    from vision.photo.joint_fix import between_neighbours
    dets = _layout_dets("9p1s5s12z3z", "3z", {})
    row = [d for g in parse_layout(dets, "riichi").groups if g.kind == "concealed" for d in g.detections]
    assert between_neighbours(row, row[1], {id(row[1])}) == []       # 9p ? 5s: two suits
    assert between_neighbours(row, row[4], {id(row[4])}) == []       # 2z ? 3z... honours: no order
