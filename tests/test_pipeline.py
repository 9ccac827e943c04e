"""Photo → score pipeline, ``tilescope score`` and the photo form of ``tilescope check``.

A fake reader returns the renderer's ground-truth boxes for the bundled sample photos
(tests/data), so these tests check grouping, context handling and scoring without the model;
one test runs the real model end to end when its weights are present.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from scoring.api import score_json
from scoring.tiles import parse_tiles
from synthetic_hands import APART, Table, codes, to_detections
from vision.read.detections import Detection, Detections
from vision.read.imageio import ImageError
from vision.photo.pipeline import PhotoError, check_photo, score_photo

DATA = Path(__file__).parent / "data"
RIICHI = DATA / "riichi_open_red"
MCR = DATA / "mcr_flowers"
WEIGHTS = Path(__file__).parent.parent / "vision" / "weights" / "detector.onnx"


def tiles(mpsz: str) -> list[str]:
    return sorted(str(t) for t in parse_tiles(mpsz))


class FakeReader:
    """A reader that returns fixed detections (the ground truth of a rendered photo)."""

    def __init__(self, detections: Detections):
        self.detections = detections
        self.calls = 0

    def read(self, image_bgr) -> Detections:
        self.calls += 1
        assert image_bgr.ndim == 3 and image_bgr.shape[2] == 3
        return self.detections


def truth(stem: Path) -> tuple[Detections, dict]:
    ann = json.loads(stem.with_suffix(".json").read_text())
    dets = [Detection(t["tile"], tuple(t["box"]), 0.98, t["sideways"]) for t in ann["tiles"]]
    return Detections(ann["image"]["width"], ann["image"]["height"], dets), ann["request"]


# The riichi sample: 23m 406p 678s 88s + pon 777z (from across), ron on 4m, seat South,
# round East, dora indicator 1p (not in the photo). Yakuhai (chun) 1 + aka 1 = 2 han; fu 20
# base + 4 open pon of honours = 24 → 30; non-dealer ron 30 x 2^(2+2) x 4 = 1920 → 2000.
RIICHI_CONTEXT = {"win": "ron", "seat_wind": "S", "round_wind": "E", "dora_indicators": "1p"}


def test_riichi_sample_scores_as_the_true_hand():
    dets, want = truth(RIICHI)
    reader = FakeReader(dets)
    photo = score_photo(str(RIICHI.with_suffix(".jpg")), RIICHI_CONTEXT, reader=reader)
    assert reader.calls == 1
    req = photo.request.to_json()
    assert tiles(req["concealed"]) == tiles(want["concealed"]) and req["win_tile"] == "4m"
    assert req["melds"] == [{"type": "pon", "tiles": "777z", "called": "7z", "from": "across"}]
    res = photo.result.to_json()
    assert (res["han"], res["fu"]) == (2, 30)
    assert res["payment"] == {"total": 2000, "from_discarder": 2000}
    assert res == score_json(want)                  # the photo's hand is the true hand
    assert photo.warnings == [] and photo.ok


def test_json_shape_and_numbering():
    dets, _ = truth(RIICHI)
    out = score_photo(str(RIICHI.with_suffix(".jpg")), RIICHI_CONTEXT, reader=FakeReader(dets)).to_json()
    assert set(out) == {"image", "tiles", "layout", "request", "result", "warnings"}
    assert out["image"] == {"width": dets.width, "height": dets.height}
    assert [t["n"] for t in out["tiles"]] == list(range(1, 15))
    assert [t["group"] for t in out["tiles"]] == ["concealed"] * 10 + ["win"] + ["meld0"] * 3
    assert [g["kind"] for g in out["layout"]["groups"]] == ["concealed", "win", "meld"]
    json.dumps(out)                                 # plain JSON all the way down


def test_mcr_sample_counts_the_flowers_in_the_photo():
    dets, want = truth(MCR)
    ctx = {"ruleset": "mcr", "win": "ron", "seat_wind": "S", "round_wind": "E"}
    photo = score_photo(str(MCR.with_suffix(".jpg")), ctx, reader=FakeReader(dets))
    assert photo.request.to_json()["flowers"] == 2
    res = photo.result.to_json()
    assert res == score_json(want)
    # flowers: one point each, never toward the 8-point minimum (Green Book)
    assert res["total"] == res["total_without_flowers"] + 2
    names = {f["name"] for f in res["fans"]}
    assert {"Pure Straight", "Half Flush"} <= names
    # the context wins over the photo
    photo0 = score_photo(str(MCR.with_suffix(".jpg")), {**ctx, "flowers": 0}, reader=FakeReader(dets))
    assert photo0.result.to_json()["total"] == res["total"] - 2


def test_mcr_report_names_the_flowers():
    # issue 35: the report's flowers line read "16f"; players call them by name (Green Book:
    # flowers Plum, Orchid, Chrysanthemum, Bamboo = 1f..4f; seasons Spring..Winter = 5f..8f),
    # each code kept beside its name for --fix N=TILE
    from vision.photo.report import photo_report
    dets, _ = truth(MCR)
    ctx = {"ruleset": "mcr", "win": "ron", "seat_wind": "S", "round_wind": "E"}
    report = photo_report(score_photo(str(MCR.with_suffix(".jpg")), ctx, reader=FakeReader(dets)))
    line = next(line for line in report.splitlines() if line.lstrip().startswith("flowers"))
    codes = sorted(d.tile for d in dets.tiles if d.tile.endswith("f"))
    names = ("Plum", "Orchid", "Chrysanthemum", "Bamboo", "Spring", "Summer", "Autumn", "Winter")
    for code in codes:
        assert f"{names[int(code[0]) - 1]} ({code})" in line
    assert "".join(c[0] for c in codes) + "f" not in line          # not "16f"


def _misread_flower(dets: Detections, confidence: float, alternatives) -> Detections:
    """The MCR sample's detections with its second flower read as 3m."""
    tiles = list(dets.tiles)
    k = [i for i, d in enumerate(tiles) if d.tile.endswith("f")][-1]
    d = tiles[k]
    tiles[k] = Detection("3m", d.box, confidence, d.sideways, alternatives)
    return Detections(dets.width, dets.height, tiles)


def test_mcr_unsure_tile_beside_the_flowers_is_counted_as_one():
    # Green Book: Flower Tiles, 1 point each. The sample is 27 points with its two flowers.
    dets, want = truth(MCR)
    ctx = {"ruleset": "mcr", "win": "ron", "seat_wind": "S", "round_wind": "E"}
    unsure = _misread_flower(dets, 0.16, (("6f", 0.08), ("5m", 0.08)))
    photo = score_photo(unsure, ctx)
    assert photo.request.to_json()["flowers"] == 2 and photo.result.to_json() == score_json(want)
    note = [w for w in photo.warnings if w.code == "corrected"]
    assert len(note) == 1 and note[0].fix.endswith("=3m") and "counted as flowers" in note[0].message
    # undone by the fix the warning names: the tile stays 3m, away from the hand, not counted
    n = note[0].tiles[0]
    undone = score_photo(unsure, ctx, fixes={n: "3m"})
    assert undone.request.to_json()["flowers"] == 1 and undone.result.to_json()["total"] == photo.result.to_json()["total"] - 1
    # both flowers misread: no flower is seen, the two tiles set aside still count
    both = list(unsure.tiles)
    k = [i for i, d in enumerate(both) if d.tile.endswith("f")][0]
    both[k] = Detection("7s", both[k].box, 0.11, both[k].sideways, (("7p", 0.11), ("1f", 0.08)))
    photo2 = score_photo(Detections(unsure.width, unsure.height, both), ctx)
    assert photo2.request.to_json()["flowers"] == 2 and photo2.result.to_json() == score_json(want)
    # a sure reading, or one with no flower among the guesses, is only pointed out
    for d in (_misread_flower(dets, 0.9, (("6f", 0.05),)), _misread_flower(dets, 0.16, (("5m", 0.1),))):
        other = score_photo(d, ctx)
        assert other.request.to_json()["flowers"] == 1
        assert "beside_flowers" in [w.code for w in other.warnings]


@pytest.mark.parametrize("context,message", [
    ({"wind": "ron"}, "unknown key 'wind'"),
    ({"concealed": "123m"}, "tiles come from the photo"),
    ({"seat_wind": "X"}, "seat_wind"),
    ({"honba": -1}, "honba"),
    (["ron"], "JSON object"),
    # flags no hand can carry (scoring/hand.py's checks): the context's fault, before any photo
    ({"ippatsu": True}, "ippatsu without riichi"),
    ({"tenhou": True, "win": "ron"}, "not a ron"),
    ({"ruleset": "mcr", "riichi": "riichi"}, "no MCR meaning"),
])
def test_context_is_validated_like_a_hand_request(context, message):
    dets, _ = truth(RIICHI)
    with pytest.raises(PhotoError, match=message):
        score_photo(dets, context, reader=FakeReader(dets))


def test_context_flags_that_depend_on_the_tiles_wait_for_the_photo():
    from vision.photo.pipeline import validate_context

    # rinshan needs a kan and chankan a tile the winner holds once: only the photo can tell
    assert validate_context({"replacement_tile": True}) == {"replacement_tile": True}
    assert validate_context({"robbing_kong": True, "win": "ron"})["robbing_kong"] is True
    # the sample's open pon makes riichi impossible: a hand that cannot be scored, not bad input
    dets, _ = truth(RIICHI)
    photo = score_photo(dets, {**RIICHI_CONTEXT, "riichi": "riichi"})
    assert "riichi on an open hand" in photo.result.to_json()["error"]


def test_fix_corrects_a_tile_by_reading_order():
    dets, _ = truth(RIICHI)
    # reading order 2m 3m 4p 0p 6p ...: tile 3 is the 4p
    photo = score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets), fixes={3: "1p"})
    assert tiles(photo.request.to_json()["concealed"]) == tiles("23m106p678s88s")
    assert photo.result.to_json().get("error")                # 1p 0p 6p is no set
    with pytest.raises(PhotoError, match="tiles 1..14"):
        score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets), fixes={15: "1p"})


def test_win_tile_argument_moves_the_winning_tile():
    dets, _ = truth(RIICHI)
    # 8s as the winning tile: 23m4m 406p 678s + 8s pair (a pair wait), same 2 han
    photo = score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets), win_tile="8s")
    assert photo.request.to_json()["win_tile"] == "8s"
    assert tiles(photo.request.to_json()["concealed"]) == tiles("234m406p678s8s")
    # a single wait adds 2 fu: 20 + 4 + 2 = 26 → 30, the same 2000
    assert photo.result.to_json()["payment"]["total"] == 2000
    with pytest.raises(PhotoError, match="no 9p"):
        score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets), win_tile="9p")


def test_report_calls_the_set_apart_tile_so_when_win_tile_names_another():
    from vision.photo.report import photo_report

    dets, _ = truth(RIICHI)
    moved = photo_report(score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets), win_tile="8s"))
    assert "  set apart " in moved and "winning tile" not in moved.split("Hand:")[0]
    shown = photo_report(score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets), win_tile="4m"))
    assert "  winning tile " in shown and "set apart" not in shown


def test_report_says_when_the_numbers_run_against_the_reading():
    from dataclasses import replace

    from vision.layout import parse_layout
    from vision.photo.report import NUMBERED_AS_FIRST_READ, photo_report

    dets, _ = truth(RIICHI)
    photo = score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets))
    assert NUMBERED_AS_FIRST_READ not in photo_report(photo)
    # numbered as an earlier reading the other way round did (reparse_fixed keeps numbers)
    backwards = parse_layout(dets, "riichi", numbering=photo.layout.source[::-1])
    assert NUMBERED_AS_FIRST_READ in photo_report(replace(photo, layout=backwards))


def test_winning_tile_not_set_apart_takes_the_best_reading():
    # 234m 567p 789s 555z 66z, nothing set apart: 5z (shanpon), 6z (tanki), 2m (ryanmen)…
    # could each have completed it; their fu differ (wait fu; a triplet completed by ron
    # counts as open), so the pipeline must take the best of them
    t = Table().row("234m567p789s555z66z")
    dets = to_detections(t)
    ctx = {"win": "ron", "seat_wind": "S", "riichi": "riichi"}
    photo = score_photo(dets, ctx, reader=FakeReader(dets))
    assert {"5z", "6z", "2m"} <= set(photo.layout.win_candidates)
    values = {}
    for code in photo.layout.win_candidates:
        req = {**photo.request.to_json(), **photo.layout.request_for_win(code)}
        values[code] = score_json(req)["payment"]["total"]
    assert photo.result.to_json()["payment"]["total"] == max(values.values())
    [w] = [w for w in photo.warnings if w.code == "win_tile_not_shown"]
    assert w.fix == f"--win-tile {photo.request.to_json()['win_tile']}"
    mcr = score_photo(dets, {"ruleset": "mcr", "win": "ron"}, reader=FakeReader(dets))
    assert mcr.request.to_json()["win_tile_shown"] is False


def misread(confidence: float) -> Detections:
    """The riichi sample with its 4p read as 1p, the reader's second guess being 4p."""
    dets, _ = truth(RIICHI)
    return Detections(dets.width, dets.height, [
        Detection("1p", d.box, confidence, d.sideways, (("4p", 0.35), ("7p", 0.1))) if d.tile == "4p" else d
        for d in dets.tiles])


def test_unsure_misread_tile_is_corrected_and_said_so():
    dets = misread(0.41)
    photo = score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets))
    assert photo.result.to_json()["payment"]["total"] == 2000          # the true hand's value
    [w] = photo.warnings
    assert w.code == "corrected" and w.tiles == (3,) and w.fix == "--fix 3=1p"
    # the user says 1p was right: no correction, the hand cannot be scored
    assert w.arguments == {"fixes": {3: "1p"}}              # the fix, as score_photo takes it
    kept = score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets), **w.arguments)
    assert kept.result.to_json().get("error") and [w.code for w in kept.warnings] == ["hand_invalid"]


def test_a_warning_s_fix_as_python_arguments():
    from vision.layout import LayoutWarning
    w = LayoutWarning("x", "m", "--fix 15=5z --fix 16=3m --meld 12-14=concealed --meld 9=concealed "
                                "--win-tile 7m")
    assert w.arguments == {"fixes": {15: "5z", 16: "3m"}, "win_tile": "7m",
                           "melds": {(12, 14): "concealed", (9, 9): "concealed"}}
    assert LayoutWarning("x", "m").arguments == {}


def test_four_fives_read_plain_under_red_five_rules_make_one_red():
    """Closed 234m 345p 555p 88s + 777z, ron on 8s (tanki), seat S, round E, riichi with red
    fives: a set holds one red 5p, so one of the four 5p is red. Riichi 1 + yakuhai (chun) 1 +
    aka 1 = 3 han; fu 20 + 10 closed ron + 4 closed 555p + 8 closed 777z + 2 tanki = 44 -> 50;
    non-dealer ron 50 x 2^5 x 4 = 6400 (seed rules: fu, payments)."""
    table = Table().row("234m345555p8s777z").row(["8s"], gap=APART)
    # tile 6 (the first 5p of 555p) is the one the reader thought might be red
    dets = to_detections(table, confidence={5: (0.7, (("0p", 0.2), ("6p", 0.05)))}, shuffle_seed=None)
    ctx = {"win": "ron", "seat_wind": "S", "round_wind": "E", "riichi": "riichi"}
    photo = score_photo(dets, ctx, reader=FakeReader(dets))
    assert photo.result.to_json()["han"] == 3 and photo.result.to_json()["fu"] == 50
    assert photo.result.to_json()["payment"]["total"] == 6400 and photo.result.to_json()["dora"]["aka"] == 1
    [w] = [w for w in photo.warnings if w.code == "corrected"]
    assert w.tiles == (6,) and w.fix == """--context '{"rules": {"aka": false}}'""" and "red five" in w.message
    # without red fives in the set, four plain 5p are right: 2 han 50 fu = 3200
    plain = score_photo(dets, dict(ctx, rules={"aka": False}), reader=FakeReader(dets))
    assert plain.result.to_json()["payment"]["total"] == 3200
    assert not [w for w in plain.warnings if w.code == "corrected"]


def test_report_header_counts_a_corrected_tile_as_uncertain():
    from vision.photo.report import photo_report

    dets = misread(0.41)
    photo = score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets))
    assert photo.layout.order[2].confidence == 1.0          # tile 3 as corrected
    assert "14 tiles read (1 uncertain)" in photo_report(photo, "hand.jpg").splitlines()[0]
    assert [t["n"] for t in photo.to_json()["tiles"] if t.get("corrected")] == [3]
    sure = score_photo(truth(RIICHI)[0], RIICHI_CONTEXT, reader=FakeReader(truth(RIICHI)[0]))
    assert "uncertain" not in photo_report(sure, "hand.jpg").splitlines()[0]


def test_four_fives_with_a_misread_one_are_re_read_not_made_red():
    """The sample's boxes read as 23m 555p 5p(0.40, next guess 6p) 78p 88s + 4m, pon 777z: four
    plain 5p cannot be, but a red one makes no winning hand; the misread five is re-read as
    6p: 23m 555p 678p 88s, yakuhai (chun) 1 han; fu 20 + 4 open honour pon + 4 closed simple
    triplet 555p = 28 -> 30 (4m on 23m: an open wait); non-dealer ron 30 x 2^3 x 4 = 960 -> 1000,
    and no red five is invented."""
    dets, _ = truth(RIICHI)
    order = score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets)).layout.order
    codes_ = {3: "5p", 4: "5p", 5: "5p", 7: "7p", 8: "8p"}
    new = {id(d): (codes_.get(n), n) for n, d in enumerate(order, start=1)}
    tiles_ = []
    for d in dets.tiles:
        code, n = new[id(d)]
        if n == 6:
            d = replace(d, tile="5p", confidence=0.4, alternatives=(("6p", 0.35),))
        elif code:
            d = replace(d, tile=code)
        tiles_.append(d)
    misread = replace(dets, tiles=tiles_)
    photo = score_photo(misread, RIICHI_CONTEXT, reader=FakeReader(misread))
    assert photo.request.to_json()["concealed"] and tiles(photo.request.to_json()["concealed"]) == tiles("23m555678p88s")
    assert photo.result.to_json()["payment"]["total"] == 1000 and photo.result.to_json()["dora"]["aka"] == 0
    assert [w.tiles for w in photo.warnings if w.code == "corrected"] == [(6,)]


def test_confident_misread_tile_only_gets_a_suggested_fix():
    dets = misread(0.8)
    photo = score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets))
    assert photo.result.to_json().get("error") and not photo.ok
    [w] = photo.warnings
    assert w.code == "hand_invalid" and w.fix == "--fix 3=4p"
    fixed = score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets), fixes={3: "4p"})
    assert fixed.result.to_json()["payment"]["total"] == 2000


def test_unreadable_image_is_a_clear_error():
    with pytest.raises(ImageError):
        score_photo(b"not an image", {}, reader=FakeReader(Detections(1, 1, [])))


def test_check_photo_false_win_is_chombo():
    dets, _ = truth(RIICHI)
    # tile 3 (4p) read as 1p: the hand is no longer complete; a non-dealer's chombo pays a
    # reverse mangan: 4000 to the dealer, 2000 to each other player (seed rules 001)
    photo = check_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets), fixes={3: "1p"})
    v = photo.result.to_json()
    assert v["valid"] is False and v["ruling"].startswith("chombo")
    assert v["penalty"]["total"] == 8000
    ok = check_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets))
    assert ok.result.to_json()["valid"] is True and ok.result.to_json()["result"]["payment"]["total"] == 2000


def test_check_photo_repairs_a_misread_meld_tile_but_never_rules_on_a_re_read_hand():
    # the riichi sample (23m 406p 678s 88s + pon 777z) with the pon's middle 7z read as 5z at
    # 0.4 (next guess 7z): no pon 757z can be on the table, so the verdict rules on 777z, as
    # the score does (2000; tilescope check PHOTO on the bundled MCR sample hit this)
    dets, _ = truth(RIICHI)
    i = next(i for i, d in enumerate(dets.tiles) if d.tile == "7z" and not d.sideways)
    tiles_ = list(dets.tiles)
    tiles_[i] = replace(tiles_[i], tile="5z", confidence=0.4, alternatives=(("7z", 0.35),))
    misread_pon = replace(dets, tiles=tiles_)
    photo = check_photo(misread_pon, RIICHI_CONTEXT, reader=FakeReader(misread_pon))
    assert photo.result.to_json()["valid"] is True and photo.result.to_json()["result"]["payment"]["total"] == 2000
    assert [w.code for w in photo.warnings if w.code == "corrected"] == ["corrected"]
    # a hand tile misread (unsure) so that the hand is no win: no chombo for a misread tile and
    # no win made by re-reading either. The reader's next guess makes the true hand, so the
    # photo cannot be ruled on; the answer names the tile and both fixes
    tiles_ = list(dets.tiles)
    j = next(j for j, d in enumerate(dets.tiles) if d.tile == "4p")
    tiles_[j] = replace(tiles_[j], tile="1p", confidence=0.4, alternatives=(("4p", 0.35),))
    misread_hand = replace(dets, tiles=tiles_)
    verdict = check_photo(misread_hand, RIICHI_CONTEXT, reader=FakeReader(misread_hand)).result.to_json()
    assert verdict["ruling"] is None and verdict["valid"] is False
    assert "tile 3 as 1p (0.40)" in verdict["error"] and "2 han 30 fu, 2000" in verdict["error"]
    assert "pass --fix 3=1p if they are as read, --fix 3=4p if not" in verdict["error"]
    # read surely (no next guess that makes a win): the chombo stands (seed rules 001)
    tiles_[j] = replace(tiles_[j], tile="1p", confidence=0.97, alternatives=(("9p", 0.01),))
    sure = replace(dets, tiles=tiles_)
    verdict = check_photo(sure, RIICHI_CONTEXT, reader=FakeReader(sure)).result.to_json()
    assert verdict["valid"] is False and verdict["ruling"] == "chombo: not a complete hand"


def test_python_api_is_exported_lazily():
    import subprocess
    import sys

    code = ("import sys, vision; assert 'cv2' not in sys.modules; "
            # vision's is the pipeline's, its errors in its arguments' words (vision/photo/api.py)
            "from vision.photo.pipeline import score_photo; assert vision.score_photo.__wrapped__ is score_photo; "
            "assert 'cv2' not in sys.modules and 'onnxruntime' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent.parent)


# ------------------------------------------------------------------------------ CLI

@pytest.fixture
def fake_model(monkeypatch):
    dets, _ = truth(RIICHI)
    import vision.photo.pipeline as pipeline

    monkeypatch.setattr(pipeline, "get_reader", lambda weights=None: FakeReader(dets))
    return dets


def run_cli(argv, capsys):
    from vision.cli.dispatch import main

    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_report(fake_model, capsys, tmp_path):
    photo = str(RIICHI.with_suffix(".jpg"))
    ann = tmp_path / "out.png"
    code, out, err = run_cli(["score", photo, "--win", "ron", "--seat", "S", "--dora", "1p",
                              "--annotate", str(ann)], capsys)
    assert code == 0, err
    assert "pon 777z, called 7z from across" in out
    assert "Value: 2 han 30 fu" in out and "total 2000" in out
    assert ann.is_file() and ann.stat().st_size > 1000


def test_report_says_which_discarders_were_not_seen():
    from vision.photo.report import group_lines

    # an MCR hand with its chi laid straight (no turned tile): it comes from the left by rule,
    # and the report says that this was not seen
    table = Table().row("123456m7z").row(["7z"], gap=APART).meld(["7m", "8m", "9m"], None)
    table = table.meld(["5z", "5z", "5z"], None)
    dets = to_detections(table)
    layout = score_photo(dets, {"ruleset": "mcr"}, reader=FakeReader(dets)).layout
    assert "chi 789m, called 7m from left (by rule)" in "\n".join(group_lines(layout))
    # a pon's discarder told from the tiles' shapes alone (vision.layout._infer_called) is a guess
    [pon] = [g for g in layout.groups if g.meld_type == "pon"]
    pon.called, pon.from_ = "5z", "across"
    assert "pon 555z, called 5z from across (guessed)" in "\n".join(group_lines(layout))
    # the riichi sample's pon shows its turned tile: no note
    dets, _ = truth(RIICHI)
    lines = "\n".join(group_lines(score_photo(dets, {}, reader=FakeReader(dets)).layout))
    assert "pon 777z, called 7z from across " in lines and "(by rule)" not in lines


def test_score_takes_the_table_rule_flags_and_says_them(fake_model, capsys):
    # the sample (2 han 30 fu, 2000 with its red five: tests/sample_truth.py) at a table
    # without red fives: the aka han goes, 1 han 30 fu, non-dealer ron 1000 (seed rules 001);
    # the report says which rules it was scored under, as check and hand take the same flags
    photo = str(RIICHI.with_suffix(".jpg"))
    code, out, err = run_cli(["score", photo, "--win", "ron", "--seat", "S", "--dora", "1p",
                              "--no-aka", "--kazoe", "sanbaiman"], capsys)
    assert code == 0, err
    assert "Value: 1 han 30 fu" in out and "total 1000" in out
    assert "Table rules: no red fives, kazoe sanbaiman" in out
    code, out, err = run_cli(["score", photo, "--win", "ron", "--seat", "S", "--dora", "1p"], capsys)
    assert "total 2000" in out and "Table rules" not in out
    # kazoe "none" is the uncapped count (26 han a double yakuman), not "no kazoe yakuman"
    code, out, err = run_cli(["score", photo, "--win", "ron", "--seat", "S", "--dora", "1p",
                              "--kazoe", "none"], capsys)
    assert "Table rules: counted han uncapped (26 a double yakuman)" in out


def test_check_report_rules_first_and_pays_nothing_for_a_chombo(fake_model, capsys):
    # the sample waits on 1m-4m; 1m in the player's discards: furiten ron, chombo (seed rules
    # 001), a non-dealer's reverse mangan 4000 + 2000 + 2000. The hand's 2000 is what it would
    # have been worth: printed after the ruling, and said not to be paid
    photo = str(RIICHI.with_suffix(".jpg"))
    code, out, err = run_cli(["check", photo, "--seat", "S", "--dora", "1p", "--discards", "1m"], capsys)
    assert code == 0, err
    assert out.index("Ruling: CHOMBO: FURITEN RON") < out.index("Payment if the win stood: ")
    assert "offender pays each non-dealer 2000; 8000 in all" in out and "\nPayment: " not in out
    code, out, err = run_cli(["check", photo, "--seat", "S", "--dora", "1p", "--discards", "1m",
                              "--tournament"], capsys)
    assert "Penalty (standings): 20000 points" in out


def test_cli_json(fake_model, capsys):
    code, out, _ = run_cli(["score", str(RIICHI.with_suffix(".jpg")), "--json", "--context",
                            json.dumps(RIICHI_CONTEXT)], capsys)
    assert code == 0
    assert json.loads(out)["result"]["payment"]["total"] == 2000


@pytest.mark.parametrize("argv,message", [
    (["score", "missing.jpg"], "no such file"),
    (["score", str(RIICHI.with_suffix(".json"))], "not an image"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--context", '{"wind": 1}'], "unknown key"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--fix", "three=5p"], "N=TILE"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--fix", "99=5p"], "tiles 1..14"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--win-tile", "9p"], "no 9p"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--win-tile", "8z"], "unknown tile code '8z'"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--ippatsu"], "ippatsu without riichi"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--meld", "12-14"], "expected N-M=TYPE"),
    # '²' passes str.isdigit but not int(): these were tracebacks
    (["score", str(RIICHI.with_suffix(".jpg")), "--meld", "\u00b2-3=chi"], "expected N-M=TYPE"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--fix", "\u00b2=5p"], "N=TILE"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--dora", "\u00b2m"], "unknown tile code"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--meld", "12-13=pon"], "a pon is 3 tiles, not 2"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--meld", "13-16=ankan"], "tiles 1..14"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--meld", "12-14=ankan"], "an ankan is 4 tiles, not 3"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--meld", "12-14=concealed", "--meld", "12-14=pon"],
     "tiles 12-14 are already declared concealed"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--fix", "3=5p", "--fix", "3=6p"],
     "tile 3 is already fixed to 5p"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--riichi", "--double-riichi"],
     "--riichi or --double-riichi, not both"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--context", "no-such-context.json"],
     "no-such-context.json: no such file"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--honba", "1000000000"], "honba must be 0..99"),
    (["check", str(RIICHI.with_suffix(".jpg")), "--text", "123m456p789s11z222z"],
     "either a PHOTO or --text, not both"),
    (["score", str(RIICHI.with_suffix(".jpg")), "--annotate", ""], "--annotate needs a file name"),
    (["check", "--text", "234m456p678s8s8s +pon 777z", "--annotate", "out.jpg"],
     "--annotate goes with a PHOTO, not with --text"),
    # issue 40: --context now goes with --text too; a bad one is named
    (["check", "--text", "234m456p678s8s8s +pon 777z", "--context", '{"honba": true}'],
     "--context: honba: true is not a whole number"),
])
def test_cli_errors_exit_2_without_traceback(fake_model, capsys, argv, message):
    code, out, err = run_cli(argv, capsys)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_cli_annotate_never_overwrites_the_photo(fake_model, capsys, tmp_path):
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(RIICHI.with_suffix(".jpg").read_bytes())
    before = photo.read_bytes()
    code, _, err = run_cli(["score", str(photo), "--annotate", str(photo)], capsys)
    assert code == 2 and "that is the photo itself" in err
    assert photo.read_bytes() == before


def test_photo_without_colour_warns_that_red_fives_cannot_be_told(fake_model):
    import cv2

    colour = cv2.imread(str(RIICHI.with_suffix(".jpg")))
    grey = cv2.cvtColor(cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    reader = FakeReader(fake_model)
    found = score_photo(grey, RIICHI_CONTEXT, reader=reader)
    [warning] = [w for w in found.warnings if w.code == "no_colour"]
    # the sample's only five is its red 0p, tile 4 in reading order (23m 406p ...)
    assert warning.tiles == (4,) and found.layout.order[3].tile == "0p"
    assert "red five cannot be told" in warning.message
    assert not [w for w in score_photo(colour, RIICHI_CONTEXT, reader=reader).warnings
                if w.code == "no_colour"]
    # no red fives in play, nothing to tell apart
    no_aka = dict(RIICHI_CONTEXT, rules={"aka": False})
    assert not [w for w in score_photo(grey, no_aka, reader=reader).warnings if w.code == "no_colour"]


def test_cli_check_photo_takes_the_context_and_says_what_it_assumed(fake_model, capsys):
    photo = str(RIICHI.with_suffix(".jpg"))
    # the sample as a non-dealer's tsumo: 2 han 30 fu (chun 1, aka 1; 20 + 2 tsumo + 4 open
    # honour pon = 26 -> 30): base 30 x 2^4 = 480; the dealer pays 2 x 480 -> 1000, each other
    # player 480 -> 500
    code, out, err = run_cli(["check", photo, "--context", json.dumps(
        {"win": "tsumo", "seat_wind": "S", "dora_indicators": "1p"})], capsys)
    assert code == 0, err
    assert "Ruling: VALID" in out and "from dealer 1000, from non-dealer 500; total 2000" in out
    assert "Assumed: riichi rules" in out and "round East" in out and "seat East" not in out
    # flags win over the context, and nothing is assumed when every flag is given
    code, out, _ = run_cli(["check", photo, "--context", '{"win": "tsumo"}', "--win", "ron",
                            "--seat", "S", "--round", "E", "--ruleset", "riichi", "--dora", "1p"], capsys)
    assert code == 0 and "from discarder 2000" in out and "Assumed" not in out


def test_cli_check_photo_rule_flags_change_only_their_own_option(fake_model, capsys):
    photo = str(RIICHI.with_suffix(".jpg"))
    ctx = {"win": "ron", "seat_wind": "S", "dora_indicators": "1p", "rules": {"aka": False}}
    # aka off from the context, kiriage from a flag: chun 1 han 30 fu, 1000 (no aka dora)
    code, out, _ = run_cli(["check", photo, "--context", json.dumps(ctx), "--kiriage"], capsys)
    assert code == 0 and "1 han 30 fu; the winner receives 1000" in out


def test_check_photo_numbers_given_as_zero_overrule_the_photo():
    import argparse

    from vision.cli.commands import check as check_cmd
    from vision.cli.commands.score import _context_from_hand_args

    parser = argparse.ArgumentParser()
    check_cmd.add_arguments(parser)
    args = parser.parse_args(["photo.jpg", "--ruleset", "mcr", "--flowers", "0"])
    assert _context_from_hand_args(args)["flowers"] == 0          # 0 flowers, not "as seen"
    assert "flowers" not in _context_from_hand_args(parser.parse_args(["photo.jpg"]))


def test_cli_read_annotate_never_overwrites_the_photo(fake_model, capsys, tmp_path):
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(RIICHI.with_suffix(".jpg").read_bytes())
    code, _, err = run_cli(["read", str(photo), "--annotate", str(photo)], capsys)
    assert code == 2 and "that is the photo itself" in err
    assert photo.read_bytes() == RIICHI.with_suffix(".jpg").read_bytes()


def test_cli_hand_that_cannot_be_scored_exits_1(fake_model, capsys):
    # tile 3 (the 4p) corrected to 1p: read fine, but not a winning hand
    code, out, err = run_cli(["score", str(RIICHI.with_suffix(".jpg")), "--fix", "3=1p"], capsys)
    assert code == 1
    assert "Cannot score: not a complete hand" in out


def test_cli_no_model(monkeypatch, capsys, tmp_path):
    code, _, err = run_cli(["score", str(RIICHI.with_suffix(".jpg")), "--weights", str(tmp_path)], capsys)
    assert code == 2 and "detector is not available" in err


# ------------------------------------------------------------------------------ real model

@pytest.mark.skipif(not WEIGHTS.is_file(), reason="no trained weights in vision/weights")
def test_sample_photo_end_to_end_with_the_model():
    """The bundled model on the bundled sample: when it reads the tiles right, the hand must
    be grouped and scored as the true hand (the model's own accuracy is benchmarks' business)."""
    from vision.photo.pipeline import get_reader

    dets, want = truth(RIICHI)
    photo = score_photo(str(RIICHI.with_suffix(".jpg")), RIICHI_CONTEXT, reader=get_reader())
    assert (photo.detections.width, photo.detections.height) == (dets.width, dets.height)
    read = sorted(d.tile for d in photo.detections.tiles)
    if read != sorted(d.tile for d in dets.tiles):
        pytest.skip(f"the model misreads the sample: {' '.join(read)}")
    assert photo.result.to_json() == score_json(want)


# A slanted row of standing tiles (rendered riichi-regular hand 30 of the README's benchmark,
# seed 7): the detector's axis-aligned boxes crowd six boxes onto the five tiles 33z 77s 9p,
# 17 in all; looking at the photo mirrored left to right it finds the 16 tiles. The hand is
# seven pairs 11m 55m 77m 99m 99p 77s 33z, ron on 9m by the dealer in riichi, dora indicators
# 8s 4z (dora 9s, 1z: none held). Riichi 1 + chiitoitsu 2 = 3 han, 25 fu (seven pairs are
# always 25): base 25 x 2^(2+3) = 800, dealer ron x 6 = 4800.
SLANTED = DATA / "riichi_standing_slanted"


@pytest.mark.skipif(not WEIGHTS.is_file(), reason="no trained weights in vision/weights")
def test_crowded_boxes_of_a_slanted_standing_row_are_recounted():
    from vision.photo.pipeline import get_reader

    context = {"win": "ron", "seat_wind": "E", "round_wind": "S", "riichi": "riichi"}
    photo = score_photo(str(SLANTED.with_suffix(".jpg")), context, reader=get_reader())
    assert tiles(photo.request.to_json()["concealed"]) == tiles("1155779m99p77s33z")
    assert photo.request.to_json()["win_tile"] == "9m"
    assert (photo.result.to_json()["han"], photo.result.to_json()["fu"]) == (3, 25)
    assert photo.result.to_json()["payment"] == {"total": 4800, "from_discarder": 4800}
    assert any(w.code == "recounted" for w in photo.warnings)


class SecondLookReader(FakeReader):
    """A fake reader whose first look misses a tile; ``again`` maps each way of a second look
    (vision.read.detections.SECOND_LOOKS) to what it finds."""

    def __init__(self, detections: Detections, again: dict[str, Detections]):
        super().__init__(detections)
        self.again, self.looks = again, []

    def look_again(self, image_bgr, how: str) -> Detections:
        self.looks.append(how)
        return self.again[how]


def test_a_count_that_does_not_add_up_is_looked_at_again():
    dets, want = truth(RIICHI)
    short = replace(dets, tiles=dets.tiles[1:])         # the 2m at the row's start missed
    reader = SecondLookReader(short, {"x": short, "y": dets})
    photo = score_photo(str(RIICHI.with_suffix(".jpg")), RIICHI_CONTEXT, reader=reader)
    assert reader.looks == ["x", "y"]                   # left to right first, then top to bottom
    assert photo.result.to_json() == score_json(want)             # 2 han 30 fu, 2000 (worked out above)
    assert photo.result.to_json()["payment"]["total"] == 2000
    assert [w.code for w in photo.warnings] == ["recounted"]
    assert "the 13 boxes found first" in photo.warnings[0].message
    assert "second look at the photo mirrored top to bottom found 14 that do" in photo.warnings[0].message


def test_a_count_that_no_look_makes_add_up_is_reported_as_read():
    dets, _ = truth(RIICHI)
    short = replace(dets, tiles=dets.tiles[1:])
    reader = SecondLookReader(short, {"x": short, "y": short})
    photo = score_photo(str(RIICHI.with_suffix(".jpg")), RIICHI_CONTEXT, reader=reader)
    assert reader.looks == ["x", "y"]
    assert photo.request is None or photo.result.to_json().get("error")
    codes = [w.code for w in photo.warnings]
    assert "tile_count" in codes and "recounted" not in codes
    # a reader that cannot look again (a stream's, a test's) is not asked to
    photo = score_photo(str(RIICHI.with_suffix(".jpg")), RIICHI_CONTEXT, reader=FakeReader(short))
    assert "tile_count" in [w.code for w in photo.warnings]


@pytest.mark.skipif(not WEIGHTS.is_file(), reason="no trained weights in vision/weights")
def test_second_looks_of_the_reader():
    import cv2
    import numpy as np

    from vision.read.detector import box_iou
    from vision.photo.pipeline import get_reader

    reader, image = get_reader(), cv2.imread(str(RIICHI.with_suffix(".jpg")))
    first = reader.read(image)
    for how in ("x", "y"):           # this sample's boxes do not depend on the way it is seen
        again = reader.look_again(image, how)
        assert sorted(d.tile for d in again.tiles) == sorted(d.tile for d in first.tiles)
        boxes = np.array([d.box for d in first.tiles])
        assert all(box_iou(np.array(d.box), boxes).max() > 0.75 for d in again.tiles)
    with pytest.raises(ValueError, match="how must be one of x, y"):
        reader.look_again(image, "sideways")


def test_cli_check_photo_rules_on_the_photographed_hand(fake_model, capsys):
    photo = str(RIICHI.with_suffix(".jpg"))
    # as photographed: a valid win, 2000 from the discarder (check defaults to a ron)
    code, out, err = run_cli(["check", photo, "--seat", "S", "--dora", "1p"], capsys)
    assert code == 0, err
    assert "Ruling: VALID" in out and "total 2000" in out
    # tile 3 misread as 1p: not a winning hand, a non-dealer's chombo (seed rules 001)
    code, out, _ = run_cli(["check", photo, "--seat", "S", "--fix", "3=1p", "--json"], capsys)
    verdict = json.loads(out)["result"]
    assert code == 0 and verdict["ruling"].startswith("chombo") and verdict["penalty"]["total"] == 8000
    # the pon declared part of the concealed hand: a closed ron, 2 han 40 fu, 2600 (see
    # test_cli_meld_declares_the_sample_s_pon_concealed)
    code, out, err = run_cli(["check", photo, "--seat", "S", "--dora", "1p", "--meld", "12-14=concealed"],
                             capsys)
    assert code == 0, err
    assert "Ruling: VALID" in out and "total 2600" in out


def test_tiles_smaller_than_the_training_crops_are_warned_about():
    dets, want = truth(RIICHI)
    # the same hand shrunk 8 times: the sample's boxes are 84 px on their long side, now ~10
    small = Detections(dets.width, dets.height, [
        Detection(d.tile, tuple(v / 8 for v in d.box), d.confidence, d.sideways) for d in dets.tiles])
    photo = score_photo(small, RIICHI_CONTEXT)
    codes = [w.code for w in photo.warnings]
    assert "small_tiles" in codes and photo.result.to_json() == score_json(want)
    assert "small_tiles" not in [w.code for w in score_photo(dets, RIICHI_CONTEXT).warnings]


def test_reflections_left_out_by_the_reader_are_reported_and_the_hand_still_scored():
    dets, want = truth(RIICHI)
    mirrored = Detections(dets.width, dets.height, dets.tiles,
                          reflections=((10.0, 300.0, 60.0, 370.0), (60.0, 300.0, 110.0, 370.0)))
    photo = score_photo(mirrored, RIICHI_CONTEXT)
    notes = [w for w in photo.warnings if w.code == "reflections"]
    assert len(notes) == 1 and notes[0].message.startswith("2 boxes just beyond the tiles' feet")
    assert photo.result.to_json() == score_json(want)
    assert "reflections" not in [w.code for w in score_photo(dets, RIICHI_CONTEXT).warnings]
    assert mirrored.to_json()["reflections"] == [[10.0, 300.0, 60.0, 370.0], [60.0, 300.0, 110.0, 370.0]]
    assert "reflections" not in dets.to_json()


def _riichi_sample_with_4p_read_as(name: str, confidence: float = 0.45) -> Detections:
    """The riichi sample with its 4p (reading-order tile 3) read as ``name``, the reader's next
    guesses 4p, then a flower, then 1p."""
    dets, _ = truth(RIICHI)
    alts = (("4p", 0.3), ("2f", 0.2), ("1p", 0.1))
    return Detections(dets.width, dets.height, [
        Detection(name, d.box, confidence, d.sideways, alts) if d.tile == "4p" else d for d in dets.tiles])


def test_riichi_tile_read_as_a_flower_takes_its_next_non_flower_name():
    # riichi is played without flowers and seasons: a tile that looked most like one is a
    # tile of the hand read poorly (the photo's true hand scores 2000, see above)
    dets = _riichi_sample_with_4p_read_as("7f")
    photo = score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets))
    assert photo.result.to_json() == score_json(truth(RIICHI)[1])
    [w] = [w for w in photo.warnings if w.code == "not_flowers"]
    assert w.tiles == (3,) and "3 as 4p" in w.message
    [tile] = [t for t in photo.to_json()["tiles"] if t["n"] == 3]
    assert tile["tile"] == "4p" and tile["confidence"] == 0.3
    assert tile["alternatives"] == [["1p", 0.1]]             # no flower offered as a fix


def test_mcr_flower_read_inside_the_hand_row_takes_its_next_non_flower_name():
    # MCR flowers are set aside, away from the hand: a sure "flower" between two tiles of the
    # concealed row is a tile of the hand read poorly; flowers set aside stay flowers
    dets = _riichi_sample_with_4p_read_as("7f", confidence=0.9)
    ctx = {"ruleset": "mcr", "win": "ron", "seat_wind": "S", "round_wind": "E"}
    photo = score_photo(dets, ctx, reader=FakeReader(dets))
    [tile] = [t for t in photo.to_json()["tiles"] if t["n"] == 3]
    assert tile["tile"] == "4p" and photo.request.to_json().get("flowers", 0) == 0
    [w] = [w for w in photo.warnings if w.code == "not_flowers"]
    assert w.tiles == (3,) and "set aside" in w.message
    aside, _ = truth(MCR)                       # the MCR sample: its 2 flowers lie apart
    kept = score_photo(aside, ctx, reader=FakeReader(aside))
    assert kept.request.to_json()["flowers"] == 2 and "not_flowers" not in [w.code for w in kept.warnings]


def test_tile_of_the_concealed_part_read_face_down_takes_its_next_face():
    # a winning hand is laid face up, so "back" in the concealed part is a misread face (a
    # blank white dragon, a set with dark faces); a closed kan's backs are left alone
    dets = _riichi_sample_with_4p_read_as("back")
    photo = score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets))
    assert photo.result.to_json() == score_json(truth(RIICHI)[1])
    [w] = [w for w in photo.warnings if w.code == "not_backs"]
    assert w.tiles == (3,) and w.fix == "--fix 3=TILE"
    assert "back_tile" not in [w.code for w in photo.warnings]


def test_hand_scored_from_an_unsorted_concealed_row_is_flagged():
    # a winning hand is laid sorted; 675m / 879m out of order are the two chi of an open hand
    # whose turned tiles the photo did not show (benchmark hand 275, riichi-regular seed 7):
    # scored as read, but never quietly
    from synthetic_hands import APART, Table, to_detections

    ctx = {"ruleset": "riichi", "win": "ron", "seat_wind": "S", "round_wind": "E"}
    shown = to_detections(Table().row("675m678s879m5551z").row(["1z"], gap=APART))
    photo = score_photo(shown, ctx)
    assert photo.request.to_json()["win_tile"] == "1z" and not photo.result.to_json().get("error")
    [w] = [w for w in photo.warnings if w.code == "unsorted_row"]
    assert w.tiles == tuple(range(1, 14)) and "6m 7m 5m" in w.message
    tidy = to_detections(Table().row("567789m678s1555z").row(["1z"], gap=APART))
    assert "unsorted_row" not in [w.code for w in score_photo(tidy, ctx).warnings]


def test_photo_read_unsurely_as_a_whole_is_flagged():
    # median tile confidence under UNSURE_PHOTO (0.4): the report says the photo is unsure
    from vision.photo.pipeline import UNSURE_PHOTO

    dets, want = truth(RIICHI)
    unsure = Detections(dets.width, dets.height, [replace(d, confidence=UNSURE_PHOTO - 0.1)
                                                  for d in dets.tiles])
    photo = score_photo(unsure, RIICHI_CONTEXT)
    assert "unsure_photo" in [w.code for w in photo.warnings]
    assert photo.result.to_json() == score_json(want)          # still scored: the tiles are the true ones
    assert "unsure_photo" not in [w.code for w in score_photo(dets, RIICHI_CONTEXT).warnings]


def test_an_unsure_photo_stays_flagged_when_its_misread_tiles_are_corrected():
    # a blurred photo: half the tiles at 0.3, tile 3 misread 1p (0.2) and corrected to the
    # reader's next guess. The correction's confidence (1.0) must not lift the photo's median
    # over UNSURE_PHOTO: the reader was unsure, and the report must say so
    dets = misread(0.2)
    low = Detections(dets.width, dets.height, [
        replace(d, confidence=0.3) if k % 2 and d.tile != "1p" else d for k, d in enumerate(dets.tiles)])
    photo = score_photo(low, RIICHI_CONTEXT, reader=FakeReader(low))
    assert [w.tiles for w in photo.warnings if w.code == "corrected"] == [(3,)]
    assert "unsure_photo" in [w.code for w in photo.warnings]
    assert photo.result.to_json()["payment"]["total"] == 2000


RON_SOUTH = {"ruleset": "riichi", "win": "ron", "seat_wind": "S", "round_wind": "E"}


def test_a_closed_kan_left_in_the_row_keeps_its_backs_while_white_dragons_take_their_face():
    # rendered riichi-black hand no. 115 (benchmarks.pipeline --style riichi-black --seed 5):
    # 45999s33z555z + 3s, closed kan 2222p, all in one row without gaps; the white dragons
    # read as unsure backs (next guess 5z), the kan's ends as sure ones (a white dragon is
    # their next guess too, far behind)
    haku, kan_end = (0.45, (("5z", 0.25), ("8p", 0.002))), (0.85, (("5z", 0.02),))
    table = Table().row(codes("45999s33z") + ["back"] * 3 + ["3s", "back", "2p", "2p", "back"])
    dets = to_detections(table, confidence={7: haku, 8: haku, 9: haku, 11: kan_end, 14: kan_end})
    photo = score_photo(dets, RON_SOUTH, reader=FakeReader(dets))
    # haku 1 + sanankou (999s, 555z, kan 2222p; the ron on 3s completes a run) 2 = 3 han;
    # fu 20 + closed ron 10 + 999s 8 + 555z 8 + closed kan of simples 16 = 62 -> 70;
    # 70 x 2^5 = 2240 > 2000: mangan, non-dealer ron 8000 (rules §fu, §limits)
    assert (photo.result.to_json()["han"], photo.result.to_json()["fu"], photo.result.to_json()["payment"]["total"]) == (3, 70, 8000)
    assert photo.request.to_json()["melds"] == [{"type": "ankan", "tiles": "2222p"}]
    assert tiles(photo.request.to_json()["concealed"]) == tiles("45999s33555z")


def test_a_meld_repair_and_a_misread_hand_tile_are_corrected_together():
    # rendered riichi-black hand no. 75: 77p77s + 7p, pon 777z, chi 678m, closed kan 2222s
    # whose backs were read as white dragons (next guess back), and a 7p read as 6p (next
    # guess 7p): neither correction alone makes a winning hand
    kan_end = (0.7, (("back", 0.14), ("8p", 0.002)))
    table = (Table().row(["6p", "7p", "7s", "7s"]).row(["7p"], gap=APART)
             .meld(["7z", "7z", "7z"], 2).meld(["6m", "7m", "8m"], 0).meld(["5z", "2s", "2s", "5z"], None))
    misread = (0.45, (("7p", 0.33), ("4p", 0.01)))
    dets = to_detections(table, confidence={0: misread, 11: kan_end, 14: kan_end})
    photo = score_photo(dets, RON_SOUTH, reader=FakeReader(dets))
    # chun 1 han; fu 20 + open pon of honours 4 + closed kan of simples 16 + 777p completed by
    # ron (open simple triplet) 2 = 42 -> 50; non-dealer ron 50 x 2^3 x 4 = 1600 (rules §fu)
    assert (photo.result.to_json()["han"], photo.result.to_json()["fu"], photo.result.to_json()["payment"]["total"]) == (1, 50, 1600)
    assert tiles(photo.request.to_json()["concealed"]) == tiles("77p77s")
    assert {"type": "ankan", "tiles": "2222s"} in photo.request.to_json()["melds"]
    hand_fix, kan_fix = (w.fix for w in photo.warnings if w.code == "corrected")
    assert hand_fix == "--fix 1=6p"                 # each correction can be undone
    assert kan_fix.count("=5z") == 2


def test_fairly_sure_tiles_are_re_read_when_the_unsure_ones_make_no_hand():
    # rendered broadcast hand no. 2 (benchmarks.pipeline --frame 1280x720 --tile-px 21
    # --seed 3): 123m50777p44466s + 5p apart, the 2m read as 3m at 0.60 (next guess 2m) and
    # the 3m as 5m at 0.43 (next guess 3m); the unsure 5m alone makes no complete hand
    table = Table().row("123m50777p44466s").row(["5p"], gap=APART)
    dets = to_detections(table, confidence={1: (0.6, (("2m", 0.22), ("5m", 0.02))),
                                            2: (0.43, (("3m", 0.34), ("6m", 0.02)))},
                         shuffle_seed=None)
    dets = replace(dets, tiles=[replace(d, tile=t) if k in (1, 2) else d
                                for k, (d, t) in enumerate(zip(dets.tiles, ["", "3m", "5m"] + [""] * 14))])
    photo = score_photo(dets, {**RON_SOUTH, "riichi": "riichi"}, reader=FakeReader(dets))
    # riichi 1 + aka 1 = 2 han; fu 20 + closed ron 10 + 777p 4 + 444s 4 + 550p completed by
    # ron (open) 2 = 40; non-dealer ron 40 x 2^4 x 4 = 2560 -> 2600 (rules §fu, §payments)
    assert (photo.result.to_json()["han"], photo.result.to_json()["fu"], photo.result.to_json()["payment"]["total"]) == (2, 40, 2600)
    [w] = [w for w in photo.warnings if w.code == "corrected"]
    assert sorted(w.fix.split(" --fix ")) == ["--fix 2=3m", "3=5m"]


def test_mcr_box_away_from_the_hand_with_a_faint_flower_guess_is_no_flower():
    # rendered riichi-regular hand no. 165: a box on nothing away from an MCR hand, read as a
    # back (0.48) with 7f at 0.0009 among its guesses, was counted as a flower point
    dets, want = truth(MCR)
    h = max(d.box[3] - d.box[1] for d in dets.tiles)
    stray = Detection("back", (10.0, 10.0, 10.0 + 0.75 * h, 10.0 + h), 0.48, False,
                      (("5z", 0.0789), ("7f", 0.0009), ("0p", 0.0008)))
    ctx = {"ruleset": "mcr", "win": "ron", "seat_wind": "S", "round_wind": "E"}
    photo = score_photo(Detections(dets.width, dets.height, [*dets.tiles, stray]), ctx)
    # Green Book: Flower Tiles, 1 point each; the sample's two flowers only (27 points)
    assert photo.request.to_json()["flowers"] == 2 and photo.result.to_json() == score_json(want)
    assert "loose_tiles" in [w.code for w in photo.warnings]


def test_mcr_meld_laid_straight_with_a_misread_tile_is_still_a_meld():
    # rendered jade hand no. 68 (benchmarks.pipeline, the held-out style): 7s + 7s apart,
    # chi 567s, kong 8888m, chi 345m, chi 678p, all laid straight; the 3m read as 5m (0.28,
    # next guess 3m) had folded all 15 tiles into the concealed part
    table = (Table().row("7s").row(["7s"], gap=APART).meld(["5s", "6s", "7s"], None)
             .meld(["8m"] * 4, None).meld(["5m", "4m", "5m"], None).meld(["6p", "7p", "8p"], None))
    dets = to_detections(table, confidence={9: (0.28, (("3m", 0.19), ("0m", 0.07)))})
    ctx = {"ruleset": "mcr", "win": "ron", "seat_wind": "S", "round_wind": "E"}
    photo = score_photo(dets, ctx, reader=FakeReader(dets))
    # Green Book: Melded Hand 6 (every set melded, won on a discard; excludes Single Wait) +
    # All Simples 2 + Melded Kong 1 = 9 points
    assert photo.result.to_json()["total"] == 9
    assert sorted(f["name"] for f in photo.result.to_json()["fans"]) == ["All Simples", "Melded Hand", "Melded Kong"]
    assert {"type": "chi", "tiles": "345m"} in [{k: m[k] for k in ("type", "tiles")} for m in photo.request.to_json()["melds"]]
    assert any(w.code == "corrected" and w.fix == "--fix 10=5m" for w in photo.warnings)


# --------------------------------------------------------- melds the photo cannot show (--meld)

# An open hand like the riichi-regular benchmark's hand 275 (seed 7): 675m 678s 879m 1z 555z |
# 1z, the two chi's turned tiles not seen (see
# test_hand_scored_from_an_unsorted_concealed_row_is_flagged).
UNSORTED = Table().row("675m678s879m1555z").row(["1z"], gap=APART)
UNSORTED_CONTEXT = {"ruleset": "riichi", "win": "ron", "seat_wind": "S", "round_wind": "E"}


def test_melds_the_photo_does_not_show_are_declared_by_number():
    dets = to_detections(UNSORTED)
    photo = score_photo(dets, UNSORTED_CONTEXT, melds={(1, 3): "chi", (7, 9): "chi"})
    req = photo.request.to_json()
    assert req["melds"] == [{"type": "chi", "tiles": "675m", "called": "6m", "from": "left"},
                            {"type": "chi", "tiles": "879m", "called": "8m", "from": "left"}]
    assert tiles(req["concealed"]) == tiles("678s1555z") and req["win_tile"] == "1z"
    # Open hand: yakuhai (haku) 1 han. Fu: 20 base + closed triplet of honours 8 + single wait
    # on the pair 2 + pair of the round wind (East) 2 = 32 -> 40 (no closed-ron 10: the hand is
    # open). Non-dealer ron: 40 x 2^(2+1) x 4 = 1280 -> 1300 (seed rules text: fu and payments).
    res = photo.result.to_json()
    assert [y["name"] for y in res["yaku"]] == ["yakuhai (haku)"]
    assert (res["han"], res["fu"], res["payment"]["total"]) == (1, 40, 1300)
    assert "unsorted_row" not in [w.code for w in photo.warnings]
    # as read, the same tiles are a closed hand: the declaration changes the value
    assert score_photo(dets, UNSORTED_CONTEXT).result.to_json()["payment"]["total"] != 1300


def test_unsorted_row_warning_names_the_melds_that_would_sort_it():
    # as read, the hand scores from an unsorted row; without 675m and 879m the row is in order
    # (678s 1z 555z) and, those declared chi, the hand still scores: the warning says so
    photo = score_photo(to_detections(UNSORTED), UNSORTED_CONTEXT)
    [w] = [w for w in photo.warnings if w.code == "unsorted_row"]
    assert w.fix == "--meld 1-3=chi --meld 7-9=chi"
    assert "without tiles 1-3 (675m) and 7-9 (879m)" in w.message
    # a row no declared meld puts in order gets the general advice
    other = score_photo(to_detections(Table().row("675m678s879m5551z").row(["1z"], gap=APART)),
                        UNSORTED_CONTEXT)
    [w] = [w for w in other.warnings if w.code == "unsorted_row"]
    assert w.fix == "" and "pass --meld N-M=chi" in w.message


def test_declared_melds_hold_through_the_joint_re_reading():
    # tile 5 (7s) misread as 9s, unsure, its next guess 7s: the hand as declared makes no
    # winning hand until the re-reading puts the 7s back; the chi stay declared
    dets = to_detections(UNSORTED)
    misread = [replace(d, tile="9s", confidence=0.3, alternatives=(("7s", 0.25),)) if d.tile == "7s" else d
               for d in dets.tiles]
    photo = score_photo(replace(dets, tiles=misread), UNSORTED_CONTEXT,
                        melds={(1, 3): "chi", (7, 9): "chi"})
    assert [m["type"] for m in photo.request.to_json()["melds"]] == ["chi", "chi"]
    assert tiles(photo.request.to_json()["concealed"]) == tiles("678s1555z")
    assert photo.result.to_json()["payment"]["total"] == 1300
    assert [w.fix for w in photo.warnings if w.code == "corrected"] == ["--fix 5=9s"]


def test_cli_meld_declares_the_sample_s_pon_concealed(fake_model, capsys):
    # The riichi sample's pon 777z (tiles 12-14) declared part of the concealed hand: closed
    # ron. Yakuhai (chun) 1 + aka 1 = 2 han; fu 20 base + 10 closed ron + 8 closed triplet of
    # honours = 38 -> 40; non-dealer ron 40 x 2^(2+2) x 4 = 2560 -> 2600 (seed rules text).
    code, out, err = run_cli(["score", str(RIICHI.with_suffix(".jpg")), "--win", "ron", "--seat", "S",
                              "--dora", "1p", "--meld", "12-14=concealed"], capsys)
    assert code == 0, err
    assert "concealed     1-10,12-14 23m406p67888s777z" in out
    assert "Value: 2 han 40 fu" in out and "total 2600" in out


def test_cli_check_tells_a_photo_by_its_bytes_and_score_reads_standard_input(fake_model, capsys,
                                                                            tmp_path, monkeypatch):
    import io
    import shutil

    # a phone's JPEG without an extension (or named .heic) is a photo, not JSON Lines
    photo = tmp_path / "IMG_0002"
    shutil.copy(RIICHI.with_suffix(".jpg"), photo)
    code, out, err = run_cli(["check", str(photo), "--seat", "S", "--dora", "1p"], capsys)
    assert code == 0, err
    assert "Ruling: VALID" in out and "total 2000" in out
    gif = tmp_path / "hand.gif"
    gif.write_bytes(b"GIF89a\x10\x00\x10\x00" + b"\x00" * 50)
    code, out, err = run_cli(["check", str(gif)], capsys)
    assert code == 2 and out == "" and "a GIF file, which tilescope cannot read" in err
    # `score -` reads the photo from standard input
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(photo.read_bytes())))
    code, out, err = run_cli(["score", "-", "--win", "ron", "--seat", "S", "--dora", "1p"], capsys)
    assert code == 0, err
    assert out.startswith("standard input: 960x720 px") and "total 2000" in out


def test_a_dark_colour_photo_is_not_taken_for_one_without_colour(fake_model):
    # the sample at a tenth of its brightness: its red ink is ~17 levels from its green, under
    # COLOUR_STEP, yet the reader still sees a red five. Judged as if exposed fully, it has
    # colour; a grey photo as dark has none
    import cv2

    colour = cv2.imread(str(RIICHI.with_suffix(".jpg")))
    dark = (colour.astype("float32") * 0.1).round().astype("uint8")
    reader = FakeReader(fake_model)
    assert not [w for w in score_photo(dark, RIICHI_CONTEXT, reader=reader).warnings if w.code == "no_colour"]
    grey = cv2.cvtColor(cv2.cvtColor(dark, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    assert [w for w in score_photo(grey, RIICHI_CONTEXT, reader=reader).warnings if w.code == "no_colour"]


def test_check_photo_does_not_rule_on_a_photo_it_could_barely_read():
    # (1) tile 3 read 9p (0.45), its true 4p a faint next guess (0.008, under the joint
    # re-reading's floor): score takes that guess (2000), so check must not rule chombo.
    # (2) every tile read at 0.3 (unsure_photo): no penalty on such a reading, whatever it is.
    dets, _ = truth(RIICHI)
    tiles_ = [replace(d, tile="9p", confidence=0.45, alternatives=(("4p", 0.008), ("8p", 0.004)))
              if d.tile == "4p" else d for d in dets.tiles]
    faint = replace(dets, tiles=tiles_)
    assert score_photo(faint, RIICHI_CONTEXT, reader=FakeReader(faint)).result.to_json()["payment"]["total"] == 2000
    verdict = check_photo(faint, RIICHI_CONTEXT, reader=FakeReader(faint)).result.to_json()
    assert verdict["ruling"] is None and "--fix 3=9p if they are as read, --fix 3=4p if not" in verdict["error"]
    assert set(verdict) >= {"ruleset", "ruling", "valid", "penalty", "result", "explanation", "error"}
    blurred = replace(dets, tiles=[replace(d, confidence=0.3, alternatives=()) if d.tile != "4p"
                                   else replace(d, tile="1p", confidence=0.3, alternatives=())
                                   for d in dets.tiles])
    verdict = check_photo(blurred, RIICHI_CONTEXT, reader=FakeReader(blurred)).result.to_json()
    assert verdict["ruling"] is None and verdict["penalty"] is None
    assert "the reader is unsure of most tiles" in verdict["error"]


def test_check_photo_names_a_very_unsure_tile_instead_of_ruling_chombo():
    # a half-visible tile read 5z at 0.11 with no next guess that makes a win: the hand as read
    # is incomplete because of that tile, so the ruling waits for the referee's look at it
    dets, _ = truth(RIICHI)
    tiles_ = [replace(d, tile="5z", confidence=0.11, alternatives=(("9s", 0.05),))
              if d.tile == "4p" else d for d in dets.tiles]
    half = replace(dets, tiles=tiles_)
    verdict = check_photo(half, RIICHI_CONTEXT, reader=FakeReader(half)).result.to_json()
    assert verdict["ruling"] is None and "unsure of tile 3 as 5z (0.11)" in verdict["error"]
    assert "pass --fix 3=5z if it is as read, --fix N=TILE for a misread one" in verdict["error"]


def test_check_photo_holds_back_a_no_yaku_ruling_on_unsure_tiles():
    # the riichi sample's pon 777z (chun, its one yaku) read as 444z: a complete hand with no
    # yaku, chombo at the table (seed rules 001: a complete hand without yaku is no win). Read
    # at 0.3, the pon may be misread, so no penalty is ruled; read surely, the chombo stands
    dets, _ = truth(RIICHI)

    def pon_read_as_north(conf):
        return replace(dets, tiles=[replace(d, tile="4z", confidence=conf, alternatives=(("7z", 0.2),))
                                    if d.tile == "7z" else d for d in dets.tiles])

    unsure = pon_read_as_north(0.3)
    verdict = check_photo(unsure, RIICHI_CONTEXT, reader=FakeReader(unsure)).result.to_json()
    assert verdict["ruling"] is None and verdict["penalty"] is None and verdict["valid"] is False
    assert "the win does not stand, but the reader was unsure of tiles" in verdict["error"]
    assert "as 4z (0.30)" in verdict["error"]
    sure = pon_read_as_north(0.97)
    verdict = check_photo(sure, RIICHI_CONTEXT, reader=FakeReader(sure)).result.to_json()
    assert verdict["valid"] is False and verdict["ruling"] is not None and "yaku" in verdict["ruling"]
    assert verdict["penalty"] is not None


def test_a_five_in_doubt_only_about_its_red_does_not_hold_back_a_ruling():
    # red or plain, a five makes the same sets, waits and yaku: a 5p at 0.55 whose next guess
    # is 0p (0.4) is surely a five and cannot change whether the hand wins; one whose next
    # guess is 6p can
    from vision.photo.held_ruling import in_doubt as _in_doubt

    five = Detection("5p", (0, 0, 10, 14), 0.55, alternatives=(("0p", 0.4), ("6p", 0.02)))
    assert not _in_doubt(five)                                   # a five at 0.95, red or not
    assert _in_doubt(replace(five, alternatives=(("6p", 0.3), ("0p", 0.04))))   # 6p? (0.59)
    assert _in_doubt(replace(five, alternatives=()))             # nothing says it is a five
    assert not _in_doubt(replace(five, confidence=0.9, alternatives=(("6p", 0.05),)))
    assert _in_doubt(replace(five, tile="7z", alternatives=(("4z", 0.3),)))
    assert not _in_doubt(replace(five, tile="back"))


def test_the_report_says_when_a_photo_was_read_smaller_than_its_file(tmp_path):
    # a JPEG over the pixel limit is decoded at 1/2..1/8 scale (vision.read.imageio): the report's
    # size and the boxes are in that scale, and the header says so
    import cv2
    import numpy as np

    from vision.cli.commands.score import _read_smaller

    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), np.zeros((100, 200, 3), np.uint8))
    assert _read_smaller(str(path), np.zeros((50, 100, 3), np.uint8)) == " (200x100 px, read at 1/2)"
    assert _read_smaller(str(path), np.zeros((100, 200, 3), np.uint8)) == ""
    assert _read_smaller("-", np.zeros((50, 100, 3), np.uint8)) == ""


def test_check_photo_judges_a_repaired_meld_tile_by_what_the_reader_saw():
    # the sample's pon read as a chi 2s 3s 6s, tile 14 at 0.40 with next guesses 1s (0.35)
    # and 4s (0.30): no chi 236s can be on the table, so the meld is repaired to 123s, and
    # that hand (23m 406p 678s 88s + chi 123s, ron 4m) has no yaku: chombo as read. With 4s
    # it is all simples, a win (open tanyao): the repair's 1.0 confidence must not hide that
    # the reader was unsure of tile 14
    dets, _ = truth(RIICHI)
    sevens = sorted((i for i, d in enumerate(dets.tiles) if d.tile == "7z"), key=lambda i: dets.tiles[i].box[0])
    tiles_ = list(dets.tiles)
    for i, tile in zip(sevens, ["2s", "3s", "6s"]):
        tiles_[i] = replace(tiles_[i], tile=tile)
    tiles_[sevens[2]] = replace(tiles_[sevens[2]], confidence=0.40, alternatives=(("1s", 0.35), ("4s", 0.30)))
    chi = replace(dets, tiles=tiles_)
    verdict = check_photo(chi, RIICHI_CONTEXT, reader=FakeReader(chi)).result.to_json()
    assert verdict["ruling"] is None and verdict["penalty"] is None
    assert "unsure of tile 14 as 6s (0.40)" in verdict["error"]


def test_a_ron_on_a_tile_in_the_players_own_discards_is_ruled_whatever_the_unsure_tiles():
    # the sample (ron on 4m, waiting on 1m-4m) with its 2m read at 0.40. Discards holding 4m,
    # the winning tile itself: whatever tile 1 really is, the true hand is either complete
    # with 4m (so it waits on 4m: furiten) or no win: chombo either way (seed rules 001).
    # Discards holding only 1m: furiten as read, but a misread 2m could change the waits,
    # so no ruling
    dets, _ = truth(RIICHI)
    unsure = replace(dets, tiles=[replace(d, confidence=0.40, alternatives=(("1m", 0.3),))
                                  if d.tile == "2m" else d for d in dets.tiles])
    sure = check_photo(unsure, RIICHI_CONTEXT, reader=FakeReader(unsure), discards="4m9p").result.to_json()
    assert sure["ruling"] == "chombo: furiten ron" and sure["penalty"]["total"] == 8000
    held = check_photo(unsure, RIICHI_CONTEXT, reader=FakeReader(unsure), discards="1m9p").result.to_json()
    assert held["ruling"] is None and "unsure of tile 1 as 2m (0.40)" in held["error"]


def test_a_meld_repair_refused_for_a_flag_says_so():
    # the MCR sample (123456m7z + chi 789m + pon 555z, winning on 7z) with the chi's 9m read
    # as 3m (0.35, next guess 9m): the chi 783m is repaired to 789m, but with last_copy the
    # hand is refused — the winner holds another 7z, so the winning tile is not the last of
    # its kind shown (Green Book, Last Tile). The report's error is the meld as read; a
    # warning names what stopped the repaired hand
    dets, _ = truth(MCR)
    tiles_ = [replace(d, tile="3m", confidence=0.35, alternatives=(("9m", 0.3),)) if d.tile == "9m" else d
              for d in dets.tiles]
    misread = replace(dets, tiles=tiles_)
    ctx = {"ruleset": "mcr", "win": "ron", "seat_wind": "S", "round_wind": "E", "last_copy": True}
    photo = score_photo(misread, ctx, reader=FakeReader(misread))
    assert photo.result.to_json().get("error")
    refused = [w for w in photo.warnings if w.code == "repair_refused"]
    assert len(refused) == 1 and "as 9m" in refused[0].message and "last_copy" in refused[0].message
    # and the report's own error leads with it (the headline named only the meld as read)
    assert photo.result.to_json()["error"].startswith("with tile ") and "last_copy" in photo.result.to_json()["error"]
    assert "as read, meld 1" in photo.result.to_json()["error"]
    ctx.pop("last_copy")                 # without the flag the repaired hand scores (27 points)
    assert score_photo(misread, ctx, reader=FakeReader(misread)).result.to_json()["total"] == 27


def test_a_photo_read_as_hundreds_of_boxes_is_refused_in_words():
    # grain or dithering read as tiles: the reader's cap (MAX_BOXES) reached. The layout of
    # 4,712 such boxes ran for minutes; now no hand is formed and the warning says why
    from vision.read.detections import MAX_BOXES
    dets = Detections(1280, 720, [Detection("back", (4.0 * (i % 300), 9.0 * (i // 300), 4.0 * (i % 300) + 3,
                                                     9.0 * (i // 300) + 8), 0.3)
                                  for i in range(MAX_BOXES)])
    photo = score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets))
    assert photo.result.to_json()["error"] == "no tiles could be read in the photo (see the warnings)"
    assert [w.code for w in photo.warnings] == ["too_many_boxes"]
    assert "too grainy, noisy or dithered" in photo.warnings[0].message


def test_a_sepia_photo_warns_like_a_grey_one_and_a_warm_cast_does_not(fake_model):
    # a tinted black-and-white filter has colour, but one that follows brightness alone: the
    # red 0p cannot be seen (a tester's sepia copy scored 1000, not 2000, without a word)
    import cv2
    import numpy as np

    colour = cv2.imread(str(RIICHI.with_suffix(".jpg")))
    g = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY).astype("float32")
    sepia = np.clip(np.dstack([g * 0.75, g * 0.92, g * 1.08]), 0, 255).astype("uint8")
    ok, jpeg = cv2.imencode(".jpg", sepia, [cv2.IMWRITE_JPEG_QUALITY, 90])
    reader = FakeReader(fake_model)
    found = score_photo(jpeg.tobytes(), RIICHI_CONTEXT, reader=reader)
    [warning] = [w for w in found.warnings if w.code == "no_colour"]
    assert warning.tiles == (4,)
    warm = np.clip(colour * np.array([0.72, 0.94, 1.22]), 0, 255).astype("uint8")  # tungsten light
    assert not [w for w in score_photo(warm, RIICHI_CONTEXT, reader=reader).warnings if w.code == "no_colour"]


def test_score_names_the_flag_a_bad_value_came_from(capsys):
    # "context: dora_indicators: …" named an internal key for a value typed as --dora
    photo = str(RIICHI.with_suffix(".jpg"))
    code, out, err = run_cli(["score", photo, "--dora", "1x"], capsys)
    assert code == 2 and "--dora: unknown tile code 'x'" in err
    code, out, err = run_cli(["score", photo, "--context", '{"dora_indicators": "1x"}'], capsys)
    assert code == 2 and "context: dora_indicators: unknown tile code 'x'" in err
    # issue 35, one vocabulary: score takes --riichi double as hand and check do (the sample's
    # open hand then names riichi, not the flag's spelling)
    code, out, err = run_cli(["score", photo, "--riichi", "double"], capsys)
    assert code == 1 and "riichi on an open hand" in out


def test_check_photo_holds_back_on_a_layout_that_may_be_wrong_however_sure_the_tiles():
    # a referee's edited photos: glare read surely (0.79) as 5z between 2m and 4p; the 2m cut
    # off the photo's edge (13 tiles); both were ruled chombo 8000 on a 2000 win
    dets, _ = truth(RIICHI)
    glare = replace(dets, tiles=[replace(d, tile="5z", confidence=0.79) if d.tile == "3m" else d
                                 for d in dets.tiles])
    v = check_photo(glare, RIICHI_CONTEXT, reader=FakeReader(glare)).result.to_json()
    assert v["ruling"] is None and "not in the order a winning hand is laid in" in v["error"]
    # the referee looks and confirms the tile as read: the ruling is given
    confirmed = check_photo(glare, RIICHI_CONTEXT, reader=FakeReader(glare), fixes={2: "5z"}).result.to_json()
    assert confirmed["ruling"].startswith("chombo") and confirmed["penalty"]["total"] == 8000
    cut = replace(dets, tiles=[d for d in dets.tiles if d.tile != "2m"])
    v = check_photo(cut, RIICHI_CONTEXT, reader=FakeReader(cut)).result.to_json()
    assert v["ruling"] is None and "a tile may be missing, hidden or doubled" in v["error"]
    assert "rule with `tilescope check --text`" in v["error"]


def test_a_valid_ruling_on_re_read_tiles_says_so_in_its_paragraph():
    # the MCR sample with its chi's 9m read 3m (0.35; next guess 9m): the meld is repaired and
    # the win stands (27 points), and the paragraph a referee reads out says on what
    dets, _ = truth(MCR)
    tiles_ = [replace(d, tile="3m", confidence=0.35, alternatives=(("9m", 0.3),)) if d.tile == "9m" else d
              for d in dets.tiles]
    misread_chi = replace(dets, tiles=tiles_)
    ctx = {"ruleset": "mcr", "win": "ron", "seat_wind": "S", "round_wind": "E"}
    v = check_photo(misread_chi, ctx, reader=FakeReader(misread_chi)).result.to_json()
    assert v["valid"] is True and v["result"]["total"] == 27
    assert "The value rests on tile" in v["explanation"] and "re-read from the reader's next guesses" in v["explanation"]


def _row_with_flowers(beside: str, confidence: float) -> Detections:
    """A level MCR row as laid: 13 concealed tiles, a gap, the winning tile 2z, a gap, then a
    tile read as ``beside`` (a flower the classifier did not know) touching the flower 1f."""
    codes = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "2z", "2z"]
    tiles, x = [], 10.0
    for c in codes:
        tiles.append(Detection(c, (x, 100.0, x + 40, 156.0), 0.95))
        x += 40
    x += 20
    tiles.append(Detection("2z", (x, 100.0, x + 40, 156.0), 0.95))
    x += 60
    tiles.append(Detection(beside, (x, 100.0, x + 40, 156.0), confidence, False, (("5p", 0.1),)))
    tiles.append(Detection("1f", (x + 40, 100.0, x + 80, 156.0), 0.9))
    return Detections(800, 300, tiles)


def test_mcr_unsure_tile_touching_a_flower_is_not_taken_for_the_winning_tile():
    # a flower misread as 6m lay with the flowers; taken for the winning tile set apart, the
    # real winning tile joined the row and the hand was 15 tiles (photos of real tiles, 3 Dec)
    ctx = {"ruleset": "mcr", "win": "ron", "seat_wind": "E", "round_wind": "E"}
    photo = score_photo(_row_with_flowers("6m", 0.1), ctx)
    want = {"ruleset": "mcr", "concealed": "123m456p789s1122z", "win_tile": "2z", "win": "ron",
            "seat_wind": "E", "round_wind": "E", "flowers": 2}
    assert photo.request.to_json()["win_tile"] == "2z" and photo.request.to_json()["flowers"] == 2
    assert photo.result.to_json() == score_json(want)          # Mixed Straight 8, ... + 2 flowers
    note = [w for w in photo.warnings if w.code == "corrected"]
    assert len(note) == 1 and "lying with the flowers" in note[0].message and note[0].fix == "--fix 15=6m"
    # the fix the warning names keeps the reading: no flower taken, the count says what is wrong
    kept = score_photo(_row_with_flowers("6m", 0.1), ctx, fixes={15: "6m"})
    assert kept.request is None or kept.request.to_json().get("flowers") != 2
    # a sure reading is left as it is: the tile count is then said to be wrong
    sure = score_photo(_row_with_flowers("6m", 0.9), ctx)
    assert sure.request is None or sure.request.to_json().get("flowers") != 2
    assert not [w for w in sure.warnings if "lying with the flowers" in w.message]


def test_a_tile_with_only_a_faint_flower_guess_is_not_counted_as_a_flower():
    # on photos of real tiles the rule counted 81 boxes that were no flower (reflections,
    # discards, the table's grain) against 5 flowers: a guess of 0.03 beside a reading of 0.5
    # (a discard's 7p) added a point to the score
    dets, want = truth(MCR)
    ctx = {"ruleset": "mcr", "win": "ron", "seat_wind": "S", "round_wind": "E"}
    for confidence, guess in ((0.5, 0.03), (0.5, 0.1), (0.3, 0.04)):
        photo = score_photo(_misread_flower(dets, confidence, (("6f", guess), ("5m", 0.02))), ctx)
        assert photo.request.to_json()["flowers"] == 1, (confidence, guess)     # the seen flower only
    photo = score_photo(_misread_flower(dets, 0.2, (("6f", 0.07), ("5m", 0.05))), ctx)
    assert photo.request.to_json()["flowers"] == 2       # a flower's guess as the real ones were: counted
