"""Layout parser on exact geometry (tests/synthetic_hands.py) and on rendered ground truth.

Every expected value is the hand that was laid out: the request tiles, meld types and who each
called tile came from (riichi convention: the called tile turned sideways on the side of its
discarder — leftmost = left, middle = across, rightmost = right; a chi only from the left).
"""
from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from scoring.tiles import parse_tiles
from synthetic_hands import APART, Table, codes, to_detections
from vision.read.detections import Detection, Detections
from vision.layout import _doubled, _straddling, apply_fixes, parse_layout
from vision.read.rows import refine_sideways, row_direction

DATA = Path(__file__).parent / "data"
# a mild camera tilt: the far side shrinks (keystone), depth is foreshortened
PERSPECTIVE = [[1.0, 0.0, 0.0], [0.0, 0.75, 0.0], [0.0, 0.0004, 1.0]]


def multiset(mpsz: str) -> Counter:
    return Counter(str(t) for t in parse_tiles(mpsz))


def melds_of(req: dict) -> list[tuple]:
    return sorted((m["type"], tuple(sorted(multiset(m["tiles"]).elements())), m.get("called"), m.get("from"))
                  for m in req["melds"])


def open_hand() -> Table:
    """234m 67p 55z + 0p apart (ryanmen on 5p, red), pon 888s from across, kakan 1111z from right."""
    return (Table().row("234m67p55z").row(["0p"], gap=APART)
            .meld(codes("888s"), 1).meld(codes("1111z"), 2, stacked=True))


OPEN_MELDS = [("kakan", ("1z",) * 4, "1z", "right"), ("pon", ("8s",) * 3, "8s", "across")]


@pytest.mark.parametrize("angle", [0, 12, 37, 80, 100, 160, 180, 215, 280, -45])
def test_open_hand_any_rotation(angle):
    lay = parse_layout(to_detections(open_hand(), angle_deg=angle), "riichi")
    req = lay.tile_request
    assert multiset(req["concealed"]) == multiset("234m67p55z")
    assert req["win_tile"] == "0p"
    assert melds_of(req) == OPEN_MELDS
    # melds lie right of the concealed part as the player sees it: from across the table
    # (rows pointing left in the image, 90 < angle < 270) the rows read right to left
    assert lay.upside_down == (90 < angle % 360 < 270)
    assert lay.warnings == []


@pytest.mark.parametrize("angle", [0, 25, 180])
def test_open_hand_with_perspective(angle):
    lay = parse_layout(to_detections(open_hand(), angle_deg=angle, homography=PERSPECTIVE), "riichi")
    assert multiset(lay.tile_request["concealed"]) == multiset("234m67p55z")
    assert lay.tile_request["win_tile"] == "0p"
    assert melds_of(lay.tile_request) == OPEN_MELDS


def test_reading_order_is_the_players_left_to_right_even_upside_down():
    for angle in (0, 180):
        lay = parse_layout(to_detections(open_hand(), angle_deg=angle), "riichi")
        assert [d.tile for d in lay.order] == codes("234m67p55z") + ["0p"] + ["8s"] * 3 + ["1z"] * 4


@pytest.mark.parametrize("position,source", [(0, "left"), (1, "across"), (2, "right")])
def test_pon_sideways_position_tells_the_discarder(position, source):
    t = Table().row("123m456p7z").row(["7z"], gap=APART).meld(codes("999s"), position)
    req = parse_layout(to_detections(t, angle_deg=8), "riichi").tile_request
    assert req["melds"] == [{"type": "pon", "tiles": "999s", "called": "9s", "from": source}]


def test_chi_called_from_the_left():
    t = Table().row("123m456p77z").row(["7z"], gap=APART).meld(["4s", "3s", "5s"], 0)
    req = parse_layout(to_detections(t), "riichi").tile_request
    assert req["melds"] == [{"type": "chi", "tiles": "435s", "called": "4s", "from": "left"}]


@pytest.mark.parametrize("position,source", [(0, "left"), (1, "across"), (3, "right")])
def test_open_kan_sideways_position(position, source):
    t = Table().row("123m456p7z").row(["7z"], gap=APART).meld(codes("2222p"), position)
    req = parse_layout(to_detections(t, angle_deg=-10), "riichi").tile_request
    assert req["melds"] == [{"type": "daiminkan", "tiles": "2222p", "called": "2p", "from": source}]
    assert multiset(req["concealed"]) == multiset("123m456p7z")


def test_melds_without_a_sideways_tile_found_by_counting():
    # MCR players often lay melds straight: 123m 456p 7z + 7z apart, then 789s and 555z
    t = (Table().row("123m456p7z").row(["7z"], gap=APART)
         .meld(codes("789s"), None).meld(codes("555z"), None))
    lay = parse_layout(to_detections(t, angle_deg=180), "mcr")
    req = lay.tile_request
    assert multiset(req["concealed"]) == multiset("123m456p7z") and req["win_tile"] == "7z"
    # a chi is always called from the left (its called tile laid leftmost); a straight pon
    # does not say who discarded it
    assert req["melds"] == [{"type": "chi", "tiles": "789s", "called": "7s", "from": "left"},
                            {"type": "pon", "tiles": "555z"}]
    assert [w.code for w in lay.warnings] == ["meld_without_sideways", "meld_without_sideways"]


def test_added_kan_stacked_and_beside():
    stacked = Table().row("123m456p7z").row(["7z"], gap=APART).meld(codes("3333s"), 0, stacked=True)
    req = parse_layout(to_detections(stacked), "riichi").tile_request
    assert req["melds"] == [{"type": "kakan", "tiles": "3333s", "called": "3s", "from": "left"}]
    # the added tile laid beside the called one: two sideways tiles side by side
    beside = Table().row("123m456p7z").row(["7z"], gap=APART)
    beside.meld(["3s"], 0, gap=APART).meld(["3s"], 0, gap=0.03).meld(["3s", "3s"], None, gap=0.03)
    req = parse_layout(to_detections(beside), "riichi").tile_request
    assert req["melds"] == [{"type": "kakan", "tiles": "3333s", "called": "3s", "from": "left"}]


def test_blind_detector_at_45_degrees_still_finds_the_melds():
    # rows at 45 degrees: axis-aligned boxes show no orientation, and this detector flagged
    # nothing sideways; the kakan's added tile lies on its called tile (a lone tile on a
    # same-kind tile), the pon is found by counting
    dets = to_detections(open_hand(), angle_deg=45)
    blind = Detections(dets.width, dets.height, [replace(d, sideways=False) for d in dets.tiles])
    req = parse_layout(blind, "riichi").tile_request
    assert multiset(req["concealed"]) == multiset("234m67p55z") and req["win_tile"] == "0p"
    kakan, pon = sorted(req["melds"], key=lambda m: m["type"])
    assert (kakan["type"], kakan["tiles"], kakan["from"]) == ("kakan", "1111z", "right")
    assert (pon["type"], pon["tiles"]) == ("pon", "888s")


def test_closed_kan_two_backs_and_the_hidden_red_five():
    t = Table().row("123m456p7z").row(["7z"], gap=APART).meld(["back", "5s", "5s", "back"], None)
    lay = parse_layout(to_detections(t), "riichi")
    # a riichi set has one red 5s; all four 5s are in the kan, so one face-down tile is it
    assert lay.tile_request["melds"] == [{"type": "ankan", "tiles": "5505s"}]
    lay = parse_layout(to_detections(t), "mcr")
    assert lay.tile_request["melds"] == [{"type": "ankan", "tiles": "5555s"}]


def test_melds_in_their_own_row_in_front_of_the_hand():
    t = Table().row("11m456p789s").row(["1m"], gap=APART)
    t.u = 2.0
    for pl in Table().meld(codes("777z"), 1, gap=0).tiles:
        t.tiles.append(type(pl)(pl.tile, pl.u0 + 2, pl.v0 + 2.2, pl.u1 + 2, pl.v1 + 2.2, pl.sideways))
    lay = parse_layout(to_detections(t), "riichi")
    assert lay.tile_request["melds"] == [{"type": "pon", "tiles": "777z", "called": "7z", "from": "across"}]
    assert lay.tile_request["win_tile"] == "1m"
    assert multiset(lay.tile_request["concealed"]) == multiset("11m456p789s")


def test_dora_row_beyond_the_hand():
    t = open_hand().other_row("3m", 2.0, -3.0)
    for angle in (0, 180):
        lay = parse_layout(to_detections(t, angle_deg=angle), "riichi")
        assert lay.tile_request["dora_indicators"] == "3m"
        assert lay.upside_down == (angle == 180)
        # rows nearest the player first, each in reading order
        assert lay.row_numbers == [list(range(1, 16)), [16]]
    # the dead wall's face-down tiles beside the indicators are not a closed kan
    t = open_hand().other_row(["back", "back", "3m", "6p"], 1.0, -3.2)
    lay = parse_layout(to_detections(t), "riichi")
    assert lay.tile_request["dora_indicators"] == "3m6p"
    assert melds_of(lay.tile_request) == OPEN_MELDS


def test_upside_down_closed_hand_found_from_the_lone_winning_tile():
    t = Table().row("1112345678999m").row(["5m"], gap=APART)     # nine gates, 5m apart
    lay = parse_layout(to_detections(t, angle_deg=180), "mcr")
    assert lay.upside_down
    assert lay.tile_request["win_tile"] == "5m"
    assert multiset(lay.tile_request["concealed"]) == multiset("1112345678999m")


def test_flowers_counted_for_mcr_and_ignored_for_riichi():
    t = Table().row("123456m789p555z1z").row(["1z"], gap=APART).other_row(["2f", "5f"], 0.0, -4.0)
    lay = parse_layout(to_detections(t), "mcr")
    assert lay.tile_request["flowers"] == 2
    assert lay.tile_request["win_tile"] == "1z"
    lay = parse_layout(to_detections(t), "riichi")
    assert "flowers" not in lay.tile_request
    assert [w.code for w in lay.warnings] == ["flowers_in_riichi"]


def test_misread_flower_beside_the_flowers_is_pointed_out_for_mcr():
    # a flower read as 8p lies with the flowers, away from the hand: not counted, but the
    # warning says where it lies and the fix that counts it (each flower is 1 point in MCR)
    t = Table().row("123456m789p555z1z").row(["1z"], gap=APART).other_row(["2f", "8p"], 0.0, -4.0)
    lay = parse_layout(to_detections(t), "mcr")
    assert lay.tile_request["flowers"] == 1
    [w] = [w for w in lay.warnings if w.code == "beside_flowers"]
    n = w.tiles[0]
    assert lay.order[n - 1].tile == "8p" and w.fix == f"--fix {n}=1f"
    assert not [w for w in parse_layout(to_detections(t), "riichi").warnings if w.code == "beside_flowers"]


def test_winning_tile_not_set_apart():
    # 11123455678999m waits on every tile: read without a gap, the layout names each tile that
    # could have won, the rightmost first, and chooses none (the judging does: see
    # test_the_judging_chooses_the_winning_tile_not_set_apart)
    t = Table().row("1112345678999m5m")
    for ruleset in ("riichi", "mcr"):
        lay = parse_layout(to_detections(t), ruleset)
        assert "win_tile" not in lay.tile_request and "win_tile_shown" not in lay.tile_request
        assert lay.win_candidates[0] == "5m"
        assert set(lay.win_candidates) == {"1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m"}
        assert lay.warnings == []


def test_the_judging_chooses_the_winning_tile_not_set_apart():
    # every candidate makes nine gates, a yakuman (scoring/riichi/RULES.md: chuuren poutou),
    # one value for all (no double yakuman by default): the first, the rightmost 5m, is kept,
    # with the one warning that names the others and the flag that overrules the choice
    from vision.photo.judging import Job, TableContext, judge_layout, score

    t = Table().row("1112345678999m5m")
    dets = to_detections(t)
    lay = parse_layout(dets, "riichi")
    judged = judge_layout(dets, lay, Job(TableContext.of({}), score, hand_only=True))
    assert str(judged.request.hand.win_tile) == "5m" and judged.result.limit == "yakuman"
    [w] = judged.warnings
    assert w.code == "win_tile_not_shown" and w.fix == "--win-tile 5m"
    assert "could also be 9m, 8m, 7m, 6m, 4m, 3m, 2m, 1m" in w.message


def test_a_missing_tile_is_reported_not_hidden():
    t = Table().row("123m456p789s1z").row(["1z"], gap=APART)
    t.tiles.pop(4)                                  # the 5p was not seen
    lay = parse_layout(to_detections(t), "riichi")
    assert "tile_count" in [w.code for w in lay.warnings]
    assert "win_tile" in lay.tile_request           # the tile set apart is still given


def test_low_confidence_tile_names_the_fix():
    t = open_hand()
    idx = next(i for i, p in enumerate(t.tiles) if p.tile == "6p")
    dets = to_detections(t, confidence={idx: (0.41, (("8p", 0.33), ("9p", 0.1)))})
    lay = parse_layout(dets, "riichi")
    [w] = lay.warnings
    assert w.code == "low_confidence"
    assert w.tiles == (4,)                          # 2m 3m 4m 6p: the fourth in reading order
    assert w.fix == "--fix 4=8p"


def test_numbering_names_a_tile_the_earlier_layout_dropped_as_doubled():
    # a second, less sure box inside the 6p is dropped as the same tile; a fix that makes the
    # inner box the surer one drops the other instead: the re-parse must number the newcomer
    # (after the tiles numbered before), not fail on it
    t = open_hand()
    dets = to_detections(t)
    idx = next(i for i, d in enumerate(dets.tiles) if d.tile == "6p")
    outer = dets.tiles[idx]
    x1, y1, x2, y2 = outer.box
    inner = replace(outer, box=(x1 + 2, y1 + 2, x2 - 2, y2 - 2), confidence=0.3)
    first = parse_layout(replace(dets, tiles=[*dets.tiles, inner]), "riichi")
    assert len(first.source) == len(dets.tiles)                  # the inner box is dropped
    swapped = [*dets.tiles[:idx], replace(outer, confidence=0.2), *dets.tiles[idx + 1:],
               replace(inner, confidence=1.0)]
    again = parse_layout(replace(dets, tiles=swapped), "riichi", numbering=first.source)
    assert again.source[-1] == len(dets.tiles)                   # the newcomer, numbered last
    assert multiset(again.tile_request["concealed"]) == multiset("234m67p55z")


def test_numbering_of_an_earlier_layout_is_kept():
    # after re-read tiles turn the reading direction, the report must still number each tile
    # as the first report did, or a --fix read off it would hit another tile
    t = open_hand()
    idx = next(i for i, p in enumerate(t.tiles) if p.tile == "6p")
    dets = to_detections(t, confidence={idx: (0.41, (("8p", 0.33), ("9p", 0.1)))})
    first = parse_layout(dets, "riichi")
    numbering = list(reversed(first.source))        # as if the first one was read upside down
    again = parse_layout(dets, "riichi", numbering=numbering)
    assert again.source == numbering
    assert multiset(again.tile_request["concealed"]) == multiset("234m67p55z")
    [w] = again.warnings
    n = len(first.order) - 4 + 1                    # the 6p was 4th, now 4th from the end
    assert w.tiles == (n,) and w.fix == f"--fix {n}=8p"
    assert again.order[n - 1].tile == "6p"
    fixed = apply_fixes(again, dets, {n: "8p"})
    was, now = Counter(d.tile for d in dets.tiles), Counter(d.tile for d in fixed.tiles)
    assert was - now == Counter(["6p"]) and now - was == Counter(["8p"])


def test_reparse_after_fixes_keeps_the_numbers():
    # a fix that moves a tile into another group (here: a misread flower beside the flowers)
    # must not renumber the report; a dropped box frees its number
    from vision.layout import reparse_fixed
    t = Table().row("123456m789p555z1z").row(["1z"], gap=APART).other_row(["2f", "8p"], 0.0, -4.0)
    dets = to_detections(t)
    first = parse_layout(dets, "mcr")
    n8p = next(i for i, d in enumerate(first.order, 1) if d.tile == "8p")
    n2f = next(i for i, d in enumerate(first.order, 1) if d.tile == "2f")
    fixed, again = reparse_fixed(first, dets, {n8p: "1f"})
    assert again.tile_request["flowers"] == 2
    assert again.order[n8p - 1].tile == "1f" and again.order[n2f - 1].tile == "2f"
    fixed, again = reparse_fixed(first, dets, {1: "none"})
    assert len(again.order) == len(first.order) - 1
    assert [d.tile for d in again.order] == [d.tile for d in first.order[1:]]


def test_apply_fixes_by_reading_order():
    dets = to_detections(open_hand(), angle_deg=180)
    lay = parse_layout(dets, "riichi")
    fixed = apply_fixes(lay, dets, {4: "5p"})
    lay2 = parse_layout(fixed, "riichi")
    assert multiset(lay2.tile_request["concealed"]) == multiset("234m57p55z")
    assert next(d for d in lay2.order if d.tile == "5p").confidence == 1.0
    with pytest.raises(ValueError, match="tiles 1..15"):
        apply_fixes(lay, dets, {16: "5p"})
    with pytest.raises(ValueError, match="unknown tile code"):
        apply_fixes(lay, dets, {1: "5x"})


def test_hand_is_a_typed_tile_request_whose_json_is_the_request_keys():
    # the open hand as laid (open_hand): 234m67p55z concealed, 0p set apart, pon 888s turned
    # in the middle (from across), kakan 1z turned rightmost (from right); docs/hand-json.md keys
    from vision.layout import RequestMeld, TileRequest

    lay = parse_layout(to_detections(open_hand()), "riichi")
    assert isinstance(lay.hand, TileRequest)
    assert lay.hand.win_tile == "0p" and lay.hand.win_tile_shown
    assert multiset(lay.hand.concealed) == multiset("234m67p55z")
    assert sorted(lay.hand.melds, key=lambda m: m.type) == [
        RequestMeld("kakan", "1111z", "1z", "right"), RequestMeld("pon", "888s", "8s", "across")]
    assert lay.tile_request == lay.hand.to_json()
    assert set(lay.tile_request) == {"concealed", "melds", "win_tile"}   # no dora row, riichi: no flowers
    assert lay.hand_for_win("6p").to_json() == lay.request_for_win("6p")


@pytest.mark.parametrize("pos, places, want", [
    (0, 3, "left"), (1, 3, "across"), (2, 3, "right"),
    (0, 4, "left"), (1, 4, "across"), (2, 4, "across"), (3, 4, "right"),
])
def test_called_from_the_turned_tiles_place(pos, places, want):
    # riichi convention (module docstring): the called tile is turned on its discarder's side;
    # an open kan's two middle places are both across
    from vision.layout.melds import called_from

    assert called_from(pos, places) == want


def test_request_for_win_moves_the_winning_tile():
    lay = parse_layout(to_detections(open_hand()), "riichi")
    req = lay.request_for_win("6p")
    assert req["win_tile"] == "6p"
    assert multiset(req["concealed"]) == multiset("234m07p55z")
    with pytest.raises(ValueError, match="no 9s"):
        lay.request_for_win("9s")


@pytest.mark.parametrize("angle", [0, 20, 65, 90, 135, 180, -30])
def test_row_direction_follows_the_photo_rotation(angle):
    # the direction is a line's: angle modulo 180 degrees, in (-90, 90]
    theta = math.degrees(row_direction(to_detections(open_hand(), angle_deg=angle).tiles))
    want = (angle + 90) % 180 - 90
    assert abs((theta - want + 90) % 180 - 90) < 1.0


def test_sideways_flags_checked_against_geometry():
    t = open_hand()
    dets = to_detections(t, angle_deg=15, shuffle_seed=None).tiles
    truth = [p.sideways for p in t.tiles]
    # a detector that saw no sideways tile at all: the turned tiles' shape gives them away
    blind = [replace(d, sideways=False) for d in dets]
    assert refine_sideways(blind, row_direction(dets)) == truth
    # one that called an upright concealed tile turned: where the row frame can be measured,
    # geometry decides (rendered hands: groups right 91.6% -> 95.1%, vision/read/rows.py)
    noisy = [replace(d, sideways=(i == 2) or d.sideways) for i, d in enumerate(dets)]
    assert refine_sideways(noisy, row_direction(dets)) == truth


@pytest.mark.parametrize("angle", [70, 110, 250])
def test_steep_row_sideways_from_the_row_frame_not_the_box_shape(angle):
    # on a near-vertical row every upright tile's axis-aligned box is wider than high, so box
    # shapes alone (vision.read.detector.mark_sideways) flag the wrong tiles; the row frame does not
    from vision.read.detector import mark_sideways
    t = open_hand()
    dets = to_detections(t, angle_deg=angle, shuffle_seed=None).tiles
    truth = [p.sideways for p in t.tiles]
    boxed = [replace(d, sideways=bool(m)) for d, m in zip(dets, mark_sideways([d.box for d in dets]))]
    assert [d.sideways for d in boxed] != truth
    assert refine_sideways(boxed, row_direction(dets)) == truth
    req = parse_layout(Detections(1600, 1600, boxed), "riichi").tile_request
    assert multiset(req["concealed"]) == multiset("234m67p55z") and req["win_tile"] == "0p"
    assert melds_of(req) == OPEN_MELDS


def test_lying_meld_beside_a_standing_hand_is_not_all_turned():
    # a standing concealed hand shows tall boxes; a meld lying flat beside it shows wide boxes
    # whose shape flags every meld tile sideways (rendered hand_standing scenes); a meld has one
    # turned tile at most, so the lying group is re-checked on its own and found by counting
    dets, x = [], 100.0
    for code in codes("234m67p555z11s"):           # standing: 30 x 40 px
        dets.append(Detection(code, (x, 300.0, x + 30, 340.0), 0.97, False))
        x += 31
    dets.append(Detection("5p", (x + 15, 300.0, x + 45, 340.0), 0.97, False))   # set apart
    x += 45 + 20
    for code in codes("888s"):        # lying, seen from low, closer than a standing pitch
        dets.append(Detection(code, (x, 308.0, x + 40, 340.0), 0.97, True))   # 40 x 32
        x += 33
    lay = parse_layout(Detections(1000, 600, dets), "riichi")
    req = lay.tile_request
    assert multiset(req["concealed"]) == multiset("234m67p555z11s") and req["win_tile"] == "5p"
    assert [(m["type"], m["tiles"]) for m in req["melds"]] == [("pon", "888s")]


def test_a_second_box_on_one_tile_is_dropped():
    dets = to_detections(open_hand(), shuffle_seed=None)
    six = next(d for d in dets.tiles if d.tile == "6p")
    x1, y1, x2, y2 = six.box
    inner = Detection("8p", (x1 + 3, y1 + 3, x2 - 2, y2 - 4), 0.4)     # a weaker box inside it
    lay = parse_layout(Detections(dets.width, dets.height, dets.tiles + [inner]), "riichi")
    assert multiset(lay.tile_request["concealed"]) == multiset("234m67p55z")
    assert inner not in lay.order and [w.code for w in lay.warnings] == ["doubled"]


def _astride(dets: Detections, left: str, right: str) -> Detection:
    """A weak box over the joint of two neighbouring tiles, half on each (as the detector
    puts one on bamboo sticks that run across the joint of two tiles)."""
    a = next(d for d in dets.tiles if d.tile == left)
    b = next(d for d in dets.tiles if d.tile == right)
    mid = (a.box[2] + b.box[0]) / 2
    half = (a.box[2] - a.box[0]) / 2
    return Detection("6s", (mid - half, a.box[1], mid + half, a.box[3]), 0.3)


def test_a_box_astride_two_tiles_is_dropped_when_the_tiles_do_not_add_up_with_it():
    dets = to_detections(open_hand(), shuffle_seed=None)
    extra = _astride(dets, "6p", "7p")
    lay = parse_layout(Detections(dets.width, dets.height, dets.tiles + [extra]), "riichi")
    assert multiset(lay.tile_request["concealed"]) == multiset("234m67p55z")
    assert extra not in lay.order
    assert [w.code for w in lay.warnings] == ["doubled"] and "astride" in lay.warnings[0].message


def test_a_real_tile_half_under_its_neighbours_is_kept_when_the_count_needs_it():
    # 123m456p789s1112z + 2z: the 4p and 6p slid 0.45 of a tile over the 5p from both sides (a
    # tightly packed, foreshortened row), so the weak 5p box lies astride two surer ones; the
    # hand has its 14 tiles only with it
    dets = to_detections(Table().row("123m456p789s1112z").row(["2z"], gap=APART), shuffle_seed=None)
    tiles = list(dets.tiles)
    i = next(k for k, d in enumerate(tiles) if d.tile == "5p")
    w = tiles[i].box[2] - tiles[i].box[0]
    for k, dx in ((i - 1, 0.45 * w), (i + 1, -0.45 * w)):
        x1, y1, x2, y2 = tiles[k].box
        tiles[k] = replace(tiles[k], box=(x1 + dx, y1, x2 + dx, y2))
    tiles[i] = replace(tiles[i], confidence=0.3)
    assert len(_straddling(tiles, set())) == 1
    lay = parse_layout(Detections(dets.width, dets.height, tiles), "riichi")
    req = lay.tile_request
    assert multiset(req["concealed"]) == multiset("123m456p789s1112z") and req["win_tile"] == "2z"
    assert not [w for w in lay.warnings if w.code in ("doubled", "tile_count")]


def test_an_unsure_back_is_dropped_when_the_tiles_do_not_add_up_with_it():
    # the side of the first tile block, seen at a low angle, read as a face-down tile (0.3)
    dets = to_detections(open_hand(), shuffle_seed=None)
    first = min(dets.tiles, key=lambda d: d.box[0])
    x1, y1, x2, y2 = first.box
    side = Detection("back", (x1 - 0.6 * (x2 - x1), y1, x1 - 1, y2), 0.3)
    lay = parse_layout(Detections(dets.width, dets.height, dets.tiles + [side]), "riichi")
    assert multiset(lay.tile_request["concealed"]) == multiset("234m67p55z")
    assert side not in lay.order and "face-down" in lay.warnings[0].message


def test_a_box_reaching_into_its_neighbour_is_kept_when_the_count_needs_it():
    # 123m456p789s1112z + 2z, the tiles from the 9s on slid 0.65 of a tile to the left, so the
    # 9s box lies mostly over the 8s box: it looks like a second box on the 8s, but the hand
    # has its 14 tiles only with it
    dets = to_detections(Table().row("123m456p789s1112z").row(["2z"], gap=APART), shuffle_seed=None)
    tiles = list(dets.tiles)
    i = next(k for k, d in enumerate(tiles) if d.tile == "9s")
    w = tiles[i].box[2] - tiles[i].box[0]
    for k in range(i, len(tiles)):
        x1, y1, x2, y2 = tiles[k].box
        tiles[k] = replace(tiles[k], box=(x1 - 0.65 * w, y1, x2 - 0.65 * w, y2))
    tiles[i] = replace(tiles[i], confidence=0.5)
    assert len(_doubled(tiles)) == 1
    lay = parse_layout(Detections(dets.width, dets.height, tiles), "riichi")
    req = lay.tile_request
    assert multiset(req["concealed"]) == multiset("123m456p789s1112z") and req["win_tile"] == "2z"
    assert not [w for w in lay.warnings if w.code in ("doubled", "tile_count")]


def test_empty_photo():
    lay = parse_layout(Detections(640, 480, []), "riichi")
    assert lay.groups == [] and lay.tile_request == {"concealed": "", "melds": []}
    assert [w.code for w in lay.warnings] == ["tile_count"]


# ------------------------------------------------------------------ rendered photos' ground truth

SAMPLES = sorted(DATA.glob("*.json")) if DATA.is_dir() else []


@pytest.mark.skipif(not SAMPLES, reason="no rendered samples in tests/data")
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_rendered_ground_truth_reproduces_the_request(path):
    """The renderer's exact boxes as perfect detections: the layout must give back the hand."""
    ann = json.loads(path.read_text())
    want = ann["request"]
    if want is None:
        pytest.skip("not a hand")
    dets = [Detection(t["tile"], tuple(t["box"]), 0.99, t["sideways"]) for t in ann["tiles"]]
    lay = parse_layout(Detections(ann["image"]["width"], ann["image"]["height"], dets), want["ruleset"])
    got = lay.tile_request
    assert multiset(got["concealed"]) == multiset(want["concealed"])
    assert got["win_tile"] == want["win_tile"]
    assert melds_of(got) == melds_of({"melds": want.get("melds", [])})
    shown_dora = any(t["group"] == "dora" for t in ann["tiles"])
    if want["ruleset"] == "riichi" and shown_dora:
        assert multiset(got["dora_indicators"]) == multiset(want["dora_indicators"])
    if want["ruleset"] == "mcr":
        assert got.get("flowers", 0) == want.get("flowers", 0)
    assert lay.upside_down == any(t.get("upside_down") for t in ann["tiles"] if t["group"] == "concealed")


def test_fix_none_drops_a_box_that_is_no_tile():
    # `--fix N=none`: the user says box N is no tile (a duplicate box, a shadow); it goes, the
    # others keep their reading
    dets = to_detections(open_hand())
    lay = parse_layout(dets, "riichi")
    first = lay.order[0]
    fixed = apply_fixes(lay, dets, {1: "none"})
    assert len(fixed.tiles) == len(dets.tiles) - 1
    assert first not in fixed.tiles
    assert multiset(parse_layout(fixed, "riichi").tile_request["concealed"]) == multiset("34m67p55z")


class _AsRead:
    """A reader that returns the given detections, whatever the photo."""

    def __init__(self, dets: Detections):
        self.dets = dets

    def read(self, _image) -> Detections:
        return self.dets


def _misread_pon() -> Detections:
    """open_hand() with the pon's sideways 8s read as 3s (0.30), next guess 8s (0.25)."""
    table = (Table().row("234m67p55z").row(["0p"], gap=APART)
             .meld(["8s", "3s", "8s"], 1).meld(codes("1111z"), 2, stacked=True))
    return to_detections(table, confidence={9: (0.30, (("8s", 0.25), ("5s", 0.2)))})


def test_a_meld_one_unsure_tile_makes_legal_is_kept_with_the_repair_named():
    lay = parse_layout(_misread_pon(), "riichi")
    melds = [g for g in lay.groups if g.kind == "meld"]
    assert sorted(g.meld_type for g in melds) == ["kakan", "pon"]
    [pon] = [g for g in melds if g.meld_type == "pon"]
    three = next(d for d in pon.detections if d.tile == "3s")
    assert lay.meld_repairs == {lay.number(three): "8s"} and pon.called == "8s"
    assert multiset(lay.tile_request["concealed"]) == multiset("234m67p55z")


def test_the_pipeline_scores_the_repaired_meld_and_says_how_to_undo_it():
    from scoring.api import score_json
    from vision.photo.pipeline import score_photo

    dets = _misread_pon()

    ctx = {"ruleset": "riichi", "win": "ron", "seat_wind": "E", "round_wind": "E"}
    photo = score_photo(dets, ctx, reader=_AsRead(dets))
    true = score_json({**ctx, "concealed": "234m67p55z", "win_tile": "0p", "melds": [
        {"type": "pon", "tiles": "888s", "called": "8s", "from": "across"},
        {"type": "kakan", "tiles": "1111z", "called": "1z", "from": "right"}]})
    # East as seat and round wind 2 han + aka 1 = 3 han; 20 fu + open pon of simples 2 + open
    # honour kan 16 + dragon pair 2 = 40 fu; dealer ron 40 x 2^5 x 6 = 7680 -> 7700 (rules §fu)
    assert (true["han"], true["fu"], true["payment"]["total"]) == (3, 40, 7700)
    assert photo.result.to_json()["han"] == 3 and photo.result.to_json()["payment"] == true["payment"]
    [w] = [w for w in photo.warnings if w.code == "corrected"]
    assert w.fix.endswith("=3s") and "meld" in w.message


def _haku_read_as_back(back_confidence: float) -> Detections:
    """A dealer's hand 234m67p11z + 0p, pon 888s and an open kan of white dragons whose third
    haku was read as a face-down tile (a blank haku and a back look alike)."""
    table = (Table().row("234m67p11z").row(["0p"], gap=APART)
             .meld(["8s", "8s", "8s"], 1).meld(["5z", "5z", "back", "5z"], 0))
    return to_detections(table, confidence={13: (back_confidence, (("5z", 0.05),))})


def test_an_unsure_back_among_three_white_dragons_is_read_as_the_fourth():
    lay = parse_layout(_haku_read_as_back(0.3), "riichi")
    kans = [g for g in lay.groups if g.kind == "meld" and len(g.detections) == 4]
    assert [g.meld_type for g in kans] == ["daiminkan"]
    back = next(d for d in kans[0].detections if d.tile == "back")
    assert lay.meld_repairs == {lay.number(back): "5z"}
    # a sure back is left as read: the group is no legal open meld and says so
    sure = parse_layout(_haku_read_as_back(0.9), "riichi")
    assert not sure.meld_repairs


def test_the_pipeline_scores_the_open_kan_with_the_white_dragon_back_in_it():
    from vision.photo.pipeline import score_photo

    dets = _haku_read_as_back(0.3)

    ctx = {"ruleset": "riichi", "win": "ron", "seat_wind": "E", "round_wind": "E"}
    photo = score_photo(dets, ctx, reader=_AsRead(dets))
    # yakuhai (haku) 1 + aka 1 = 2 han; 20 fu + open pon of simples 2 + open kan of honours 16
    # + pair of seat and round wind 4 = 42 -> 50 fu; dealer ron 50 x 2^4 x 6 = 4800 (rules §fu)
    assert (photo.result.to_json()["han"], photo.result.to_json()["fu"], photo.result.to_json()["payment"]["total"]) == (2, 50, 4800)
    assert {"type": "daiminkan", "tiles": "5555z", "called": "5z", "from": "left"} in photo.request.to_json()["melds"]
    [w] = [w for w in photo.warnings if w.code == "corrected"]
    assert w.fix.endswith("=back")


def _closed_kan_ends_read_as_haku() -> Detections:
    """1223s + 2s, a closed kan of green dragons laid at the end of the hand row, its two
    face-down ends read as white dragons (0.5, next guess a back), chi 567s, pon 888p."""
    table = (Table().row("1223s").row(["2s"], gap=APART).meld(["5z", "6z", "6z", "5z"], None)
             .meld(["6s", "5s", "7s"], 0).meld(["8p", "8p", "8p"], 0))
    unsure = (0.5, (("back", 0.1), ("0p", 0.01)))
    return to_detections(table, confidence={5: unsure, 8: unsure})


def test_a_closed_kan_whose_backs_were_read_as_white_dragons_is_found():
    lay = parse_layout(_closed_kan_ends_read_as_haku(), "riichi")
    [kan] = [g for g in lay.groups if g.kind == "meld" and g.meld_type == "ankan"]
    assert [d.tile for d in kan.detections] == ["5z", "6z", "6z", "5z"]
    assert sorted(lay.meld_repairs.values()) == ["back", "back"]


def test_the_pipeline_scores_the_closed_kan_of_green_dragons():
    from vision.photo.pipeline import score_photo

    dets = _closed_kan_ends_read_as_haku()

    ctx = {"ruleset": "riichi", "win": "tsumo", "seat_wind": "E", "round_wind": "E"}
    photo = score_photo(dets, ctx, reader=_AsRead(dets))
    # yakuhai (hatsu) 1 han; 20 fu + tsumo 2 + open pon of simples 2 + closed kan of honours 32
    # + closed or single wait 2 = 58 -> 60 fu; dealer tsumo 60 x 2^3 x 2 = 960 -> 1000 from
    # each, 3000 in all (rules §fu, §payments)
    assert (photo.result.to_json()["han"], photo.result.to_json()["fu"], photo.result.to_json()["payment"]["total"]) == (1, 60, 3000)
    assert {"type": "ankan", "tiles": "6666z"} in photo.request.to_json()["melds"]


def _white_dragon_pair_read_as_backs() -> Detections:
    """133m5088p66s22z55z + 1m apart (seven pairs; rendered riichi-regular hand no. 21 of
    ``benchmarks.pipeline --style riichi-regular --seed 7``), the blank white dragons at the
    row's end read as backs (0.45, next guess 5z 0.35): 2z 2z back back looked like a closed
    kan of South winds. The dora indicator 8s lies beyond the row."""
    table = (Table().row(codes("133m5088p66s22z") + ["back", "back"]).row(["1m"], gap=APART)
             .other_row("8s", 8.0, -3.0))
    unsure = (0.45, (("5z", 0.35), ("1p", 0.002)))
    return to_detections(table, confidence={11: unsure, 12: unsure})


def test_two_backs_beside_a_pair_are_no_closed_kan():
    lay = parse_layout(_white_dragon_pair_read_as_backs(), "riichi")
    assert not [g for g in lay.groups if g.kind == "meld"]      # a closed kan's backs are its ends


def test_the_pipeline_scores_the_white_dragon_pair_read_as_backs():
    from vision.photo.pipeline import score_photo

    dets = _white_dragon_pair_read_as_backs()
    ctx = {"ruleset": "riichi", "win": "ron", "seat_wind": "S", "round_wind": "E"}
    photo = score_photo(dets, ctx, reader=_AsRead(dets))
    # chiitoitsu 2 han + aka 1 = 3 han, 25 fu; non-dealer ron 25 x 2^5 x 4 = 3200 (rules §fu:
    # seven pairs are always 25 fu; §payments)
    assert (photo.result.to_json()["han"], photo.result.to_json()["fu"], photo.result.to_json()["payment"]["total"]) == (3, 25, 3200)
    assert multiset(photo.request.to_json()["concealed"]) == multiset("133m5088p66s2255z")
    assert any(w.code == "not_backs" for w in photo.warnings)


def _pon_tile_seen_as_two_halves() -> Detections:
    """open_hand() with the pon's sideways 8s seen as two unsure boxes, its left and right
    halves (8s 0.35, 3s 0.3: half a tile reads as anything), overlapping by 2 px."""
    dets = to_detections(open_hand(), shuffle_seed=None)
    turned = next(d for d in dets.tiles if d.tile == "8s" and d.sideways)
    x1, y1, x2, y2 = turned.box
    xm = (x1 + x2) / 2
    left = replace(turned, box=(x1, y1, xm + 1, y2), confidence=0.35, sideways=False, alternatives=())
    right = replace(turned, tile="3s", box=(xm - 1, y1, x2, y2), confidence=0.3, sideways=False,
                    alternatives=())
    tiles = [t for d in dets.tiles for t in ((left, right) if d is turned else (d,))]
    return Detections(dets.width, dets.height, tiles)


def test_a_turned_tile_seen_as_two_halves_is_one_tile_when_the_count_needs_it():
    dets = _pon_tile_seen_as_two_halves()
    assert len(dets.tiles) == 16                    # 15 tiles, one seen as two boxes
    lay = parse_layout(dets, "riichi")
    assert melds_of(lay.tile_request) == sorted(OPEN_MELDS)
    assert multiset(lay.tile_request["concealed"]) == multiset("234m67p55z")
    assert any("each part of one tile" in w.message for w in lay.warnings)


def test_two_unsure_tiles_side_by_side_are_not_taken_for_halves():
    from vision.layout import _split_halves

    # two whole tiles next to each other span two tiles' boxes: not one tile
    dets = to_detections(open_hand(), shuffle_seed=None,
                         confidence={0: (0.3, ()), 1: (0.3, ())})
    assert _split_halves(list(dets.tiles), set(), 0.6) == []


def test_a_box_astride_two_pon_tiles_does_not_make_the_pon_a_kan():
    # open_hand() plus an unsure 8s box from the middle of the pon's turned tile to the middle
    # of the next: four 8s add up as an open kan too (one tile and one kan more), but the box
    # lies astride two surer tiles, so the pon stands
    dets = to_detections(open_hand(), shuffle_seed=None)
    turned, after = [d for d in dets.tiles if d.tile == "8s"][1:]
    astride = replace(after, box=((turned.box[0] + turned.box[2]) / 2, after.box[1],
                                  (after.box[0] + after.box[2]) / 2, after.box[3]),
                      confidence=0.3, sideways=False, alternatives=())
    lay = parse_layout(Detections(dets.width, dets.height, list(dets.tiles) + [astride]), "riichi")
    assert melds_of(lay.tile_request) == sorted(OPEN_MELDS)
    assert any("astride" in w.message for w in lay.warnings)


def test_a_set_at_the_row_end_is_repaired_only_by_a_close_second_guess():
    from vision.layout import _tail_set

    def det(tile, conf=0.9, alts=()):
        return Detection(tile, (0.0, 0.0, 30.0, 40.0), conf, False, alts)

    # 345m laid straight with its 3m read as 5m (0.28, next guess 3m 0.19: rendered jade MCR
    # hand no. 68): a chi, repaired
    found = _tail_set([det("5m", 0.28, (("3m", 0.19),)), det("4m"), det("5m")], repair=True)
    assert found is not None and found[1].meld_type == "chi" and found[2]
    assert [code for _, code in found[1].repairs] == ["3m"]
    # 66s + 9s read at 0.42 with 6s a faint guess (0.03; rendered glass hand no. 115, a
    # concealed hand with gaps): no pon of 6s
    assert _tail_set([det("6s"), det("6s"), det("9s", 0.42, (("6s", 0.0296),))], repair=True) is None
    # without ``repair`` (riichi: a meld shows its turned tile) no next guess makes a set
    assert _tail_set([det("5m", 0.28, (("3m", 0.19),)), det("4m"), det("5m")]) is None


# ------------------------------------------------------------------ groups the user declares

def straight_melds() -> Table:
    """MCR, melds laid straight: 123m 456p 7z + 7z apart, then 789s and 555z (tiles 9-14)."""
    return (Table().row("123m456p7z").row(["7z"], gap=APART)
            .meld(codes("789s"), None).meld(codes("555z"), None))


def test_declared_concealed_tiles_leave_the_melds_and_keep_their_numbers():
    dets = to_detections(straight_melds())
    first = parse_layout(dets, "mcr")
    lay = parse_layout(dets, "mcr", declared={(12, 14): "concealed"})
    assert [d.tile for d in lay.order] == [d.tile for d in first.order]     # same numbering
    req = lay.tile_request
    assert multiset(req["concealed"]) == multiset("123m456p7555z") and req["win_tile"] == "7z"
    assert req["melds"] == [{"type": "chi", "tiles": "789s", "called": "7s", "from": "left"}]
    # the meld left as parsed is still flagged, and its warning now names the flag to pass
    [w] = lay.warnings
    assert (w.code, w.tiles, w.fix) == ("meld_without_sideways", (9, 10, 11), "--meld 9-11=concealed")
    assert lay.declared == {(12, 14): "concealed"}


def test_a_meld_numbered_backwards_by_an_earlier_reading_names_a_span_the_cli_takes():
    dets = to_detections(straight_melds())
    first = parse_layout(dets, "mcr")
    # an earlier reading that ran the other way numbered every tile from the far end
    backwards = parse_layout(dets, "mcr", numbering=list(reversed(first.source)))
    spans = {w.fix for w in backwards.warnings if w.code == "meld_without_sideways"}
    n = len(first.order)
    # 789s and 555z were tiles 9-11 and 12-14; counted from the far end, 4-6 and 1-3
    assert spans == {f"--meld {n - 10}-{n - 8}=concealed", f"--meld {n - 13}-{n - 11}=concealed"}


def test_declared_melds_are_exposed_and_not_warned_about():
    dets = to_detections(straight_melds())
    lay = parse_layout(dets, "mcr", declared={(9, 11): "chi", (12, 14): "pon"})
    assert lay.warnings == []                       # the user said what they are
    assert lay.tile_request["melds"] == [{"type": "chi", "tiles": "789s", "called": "7s", "from": "left"},
                                         {"type": "pon", "tiles": "555z"}]
    # a chi inside the hand row: tiles 7-9 of 123m 456p 789s 5z | 5z
    row = to_detections(Table().row("123m456p789s5z").row(["5z"], gap=APART))
    req = parse_layout(row, "riichi", declared={(7, 9): "chi"}).tile_request
    assert multiset(req["concealed"]) == multiset("123m456p5z") and req["win_tile"] == "5z"
    assert req["melds"] == [{"type": "chi", "tiles": "789s", "called": "7s", "from": "left"}]


def test_a_declared_meld_takes_its_discarder_from_the_turned_tile():
    # the open hand's pon 888s (tiles 9-11) has its middle tile turned: from across
    dets = to_detections(open_hand())
    lay = parse_layout(dets, "riichi", declared={(9, 11): "pon"})
    assert {"type": "pon", "tiles": "888s", "called": "8s", "from": "across"} in lay.tile_request["melds"]
    # declared a chi, it is a chi (from the left by rule); that 888s is no chi is the scorer's
    # to say, in the request's words
    lay = parse_layout(dets, "riichi", declared={(9, 11): "chi"})
    assert {"type": "chi", "tiles": "888s", "called": "8s", "from": "left"} in lay.tile_request["melds"]


def test_breaking_up_a_parsed_meld_puts_its_other_tiles_in_the_hand():
    dets = to_detections(straight_melds())
    # 10-12 (8s 9s 5z) declared a pon: 7s goes to the hand, 5z 5z too; the count no longer adds up
    lay = parse_layout(dets, "mcr", declared={(10, 12): "pon"})
    assert multiset(lay.tile_request["concealed"]) == multiset("123m456p7z7s55z")
    assert "tile_count" not in [w.code for w in lay.warnings]       # 11 + 1 + 3 = 14 still
    lay = parse_layout(dets, "mcr", declared={(12, 14): "concealed", (9, 11): "concealed"})
    assert lay.tile_request["melds"] == [] and "tile_count" not in [w.code for w in lay.warnings]


@pytest.mark.parametrize("declared,message", [
    ({(9, 11): "chii"}, "unknown group type 'chii'"),
    ({(9, 10): "pon"}, "a pon is 3 tiles, not 2"),
    ({(9, 11): "daiminkan"}, "a daiminkan is 4 tiles, not 3"),
    ({(0, 2): "pon"}, "tiles 1..14"),
    ({(13, 15): "pon"}, "tiles 1..14"),
    ({(11, 9): "pon"}, "first to last"),
    ({(9, 11): "chi", (11, 13): "pon"}, "tile 11 is also in --meld 9-11"),
])
def test_declared_groups_that_cannot_be_are_named(declared, message):
    from vision.layout import check_declared

    with pytest.raises(ValueError, match=message):
        check_declared(declared, 14)
    with pytest.raises(ValueError, match=message):
        parse_layout(to_detections(straight_melds()), "mcr", declared=declared)


def test_a_face_down_tile_in_a_declared_open_meld_needs_its_face():
    t = (Table().row("123m456p7z").row(["7z"], gap=APART)
         .meld(codes("789s"), None).meld(["5z", "back", "5z"], None))
    backs = to_detections(t)
    first = parse_layout(backs, "mcr")
    n = next(k for k, d in enumerate(first.order, 1) if d.tile == "back")
    with pytest.raises(ValueError, match=f"tile {n} was read face down; pass its face with --fix {n}=TILE"):
        parse_layout(backs, "mcr", declared={(n - 1, n + 1): "pon"})
    # a closed kan is laid with tiles face down
    lay = parse_layout(backs, "mcr", declared={(n - 1, n + 2): "ankan"})
    assert "ankan" in [m["type"] for m in lay.tile_request["melds"]]


def test_declared_groups_hold_through_fixes_and_dropped_boxes():
    from vision.layout import reparse_fixed

    dets = to_detections(straight_melds())
    first = parse_layout(dets, "mcr")
    _, lay = reparse_fixed(first, dets, {1: "7m"}, declared={(12, 14): "concealed"})
    assert multiset(lay.tile_request["concealed"]) == multiset("723m456p7555z")
    _, again = reparse_fixed(lay, dets, {2: "8m"})      # a later re-reading keeps the groups
    assert again.declared == {(12, 14): "concealed"} and len(again.tile_request["melds"]) == 1
    # a box dropped with --fix N=none moves the later numbers up by one, as in the report
    _, dropped = reparse_fixed(first, dets, {1: "none"}, declared={(12, 14): "concealed"})
    assert dropped.declared == {(11, 13): "concealed"}
    assert [d.tile for d in dropped.order[10:13]] == ["5z"] * 3
    with pytest.raises(ValueError, match="tile 12 was dropped with --fix 12=none"):
        reparse_fixed(first, dets, {12: "none"}, declared={(12, 14): "concealed"})


def test_each_layout_module_says_its_job_and_its_functions_stay_short():
    # project rule (STYLE.md, issue 34): small modules with one job, no function over ~60
    # lines without a reason in its docstring ("long because ...")
    import ast

    folder = Path(__file__).resolve().parent.parent / "vision" / "layout"
    modules = sorted(folder.glob("*.py"))
    assert len(modules) > 5
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{path.name}: no docstring saying its job"
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.end_lineno - node.lineno + 1 > 60:
                assert "long because" in (ast.get_docstring(node) or ""), f"{path.name}: {node.name}"


def test_a_hand_in_play_is_a_typed_value_that_still_unpacks():
    # 11 tiles in the row and an open pon: 14, the tile just drawn not set apart (the last of
    # the row); all 11 are concealed tiles, in the row's order; no warning a winning hand owes
    from vision.photo.pipeline import HandInPlay, read_hand_in_play

    t = Table().row("1234567899m5p").row(["7z", "7z", "7z"], gap=APART)
    hand = read_hand_in_play(to_detections(t), "riichi")
    assert isinstance(hand, HandInPlay)
    concealed, melds, dora, warnings = hand
    assert (concealed, melds, dora, warnings) == (hand.concealed, hand.melds, hand.dora_indicators,
                                                  hand.warnings)
    assert "".join(str(t) for t in hand.concealed) == "1m2m3m4m5m6m7m8m9m9m5p"
    assert [(m.type, "".join(map(str, m.tiles))) for m in melds] == [("pon", "7z7z7z")]
    assert not any(w.code in ("win_tile_not_shown", "tile_count") for w in warnings)
