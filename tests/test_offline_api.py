"""The offline page's Python (``vision.offline``): the server's answers, given the browser
reader's readings, in an interpreter with no numpy, OpenCV, onnxruntime or FastAPI (as in
Pyodide).

Source of the expected values: the server's own answers for the same requests (the Python
reader and ``vision.photo.pipeline`` in this process), and the rules each case names.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vision.photo.pipeline import check_photo, score_photo

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "vision" / "samples").glob("*.jpg"))
BLOCKED = ("numpy", "cv2", "onnxruntime", "fastapi", "starlette", "PIL")


def reading(detections) -> dict:
    """A Detections as the JavaScript reader gives it (full-precision numbers)."""
    return {"width": detections.width, "height": detections.height,
            "tiles": [{"tile": t.tile, "box": list(t.box), "confidence": t.confidence,
                       "sideways": t.sideways, "alternatives": [list(a) for a in t.alternatives]}
                      for t in detections.tiles],
            "windows": [list(w) for w in detections.windows],
            "reflections": [list(b) for b in detections.reflections], "crowded": detections.crowded}


def run_offline(cases: list[dict], tmp_path: Path) -> list[dict]:
    """Each case's answer from ``vision.offline.api.answer`` in a child interpreter where the
    reader's and the server's libraries cannot be imported; a case's ``looks`` are taken only
    when the answer asks for them (``{"look": how}``), as the page's worker does."""
    src = tmp_path / "cases.json"
    src.write_text(json.dumps(cases))
    child = textwrap.dedent(f"""
        import json, sys
        for name in {BLOCKED!r}:
            sys.modules[name] = None        # import of any of them fails, as in Pyodide
        from vision.offline.api import answer
        out = []
        for case in json.load(open({str(src)!r})):
            request, asked = dict(case["request"]), []
            while True:
                got = answer(request, case.get("photo"))
                if "look" not in got:
                    break
                asked.append(got["look"])
                request["reads"] = {{**request.get("reads", {{}}), got["look"]: case["looks"][got["look"]]}}
            out.append({{**got, "asked": asked}})
        print(json.dumps(out))
    """)
    env = {"PYTHONPATH": str(ROOT), "TILESCOPE_DATA": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def reader():
    from vision.read.detector import TileReader

    return TileReader()


def photo_case(path: Path, reader, path_api="/api/score", form=None) -> dict:
    from vision.read.imageio import load_image

    image = load_image(path)
    return {"request": {"method": "POST", "path": path_api, "form": form or {},
                        "reads": {"read": reading(reader.read(image))}},
            "photo": {"width": image.shape[1], "height": image.shape[0]},
            "looks": {how: reading(reader.look_again(image, how)) for how in ("x", "y")}}


def test_every_sample_scores_as_the_server_scores_it(reader, tmp_path):
    # the server's answer is score_photo(...).to_json(): the same tiles, groups, score, warnings
    contexts = {p.name: json.loads(p.with_suffix(".json").read_text()).get("context", {}) for p in SAMPLES}
    cases = [photo_case(p, reader, form={"context": json.dumps(contexts[p.name])}) for p in SAMPLES]
    answers = run_offline(cases, tmp_path)
    for path, got in zip(SAMPLES, answers):
        want = score_photo(path, contexts[path.name]).to_json()
        assert got["status"] == 200, (path.name, got)
        assert got["body"] == want, path.name


def test_a_verdict_from_a_photo_is_the_servers(reader, tmp_path):
    path = ROOT / "vision" / "samples" / "riichi_open_red.jpg"
    context = json.loads(path.with_suffix(".json").read_text()).get("context", {})
    table = {"declared": "hu", "discards": "9s"}
    case = photo_case(path, reader, "/api/check-photo",
                      {"context": json.dumps(context), "table": json.dumps(table)})
    got, = run_offline([case], tmp_path)
    want = check_photo(path, context, declared="hu", discards="9s").to_json()
    assert got["status"] == 200 and got["body"] == want


def test_a_second_look_is_asked_for_then_scored(reader, tmp_path):
    # corrections.second_look: boxes that do not add up to a hand ask for the mirrored look
    # first ("x"); here the first reading lacks the hand's last tile and the look has it all
    path = ROOT / "vision" / "samples" / "riichi_open_red.jpg"
    case = photo_case(path, reader)
    full = case["request"]["reads"]["read"]
    case["looks"]["x"] = full
    case["request"]["reads"]["read"] = {**full, "tiles": full["tiles"][:-1]}
    got, = run_offline([case], tmp_path)
    assert got["asked"] == ["x"]
    assert got["status"] == 200
    assert "recounted" in [w["code"] for w in got["body"]["warnings"]]


def test_a_photo_without_colour_is_said(reader, tmp_path):
    # photo_warnings.no_colour_warning: a riichi photo whose pixels are COLOURED_SHARE or less
    # coloured gets the no_colour warning; the page's photo measures it (here: none at all)
    path = ROOT / "vision" / "samples" / "riichi_open_red.jpg"
    case = photo_case(path, reader)
    from vision.offline.reader import BrowserPhoto
    from vision.photo.photo_warnings import no_colour_warning
    from vision.read.imageio import load_image
    from vision.layout.grouping import group

    class Grey:
        def colouredShare(self):
            return 0.0

        def offTintShare(self, *area):
            return 0.0

    layout = group(reader.read(load_image(path)), "riichi").layout
    warned = no_colour_warning(BrowserPhoto(1, 1, Grey()), {}, layout)
    assert warned is not None and warned.code == "no_colour"
    got, = run_offline([case], tmp_path)       # a page that measured nothing: no judgement
    assert "no_colour" not in [w["code"] for w in got["body"]["warnings"]]


def test_typed_hands_waits_and_a_game(tmp_path):
    from scoring.api import score_json

    hand = {"ruleset": "riichi", "concealed": "123m456p789s11z22z", "win_tile": "2z", "win": "ron"}
    cases = [
        {"request": {"method": "POST", "path": "/api/hand", "text": json.dumps(hand)}},
        {"request": {"method": "POST", "path": "/api/hand", "text": '{"a": 1, "a": 2}'}},
        {"request": {"method": "POST", "path": "/api/waits",
                     "text": json.dumps({"concealed": "123m456p789s1122z"})}},
        {"request": {"method": "POST", "path": "/api/games",
                     "text": json.dumps({"players": ["Ann", "Bob", "Cai", "Dan"]})}},
        {"request": {"method": "GET", "path": "/api/games"}},
        {"request": {"method": "GET", "path": "/api/games/20990101-000000-abcdef"}},
        {"request": {"method": "GET", "path": "/api/nowhere"}},
    ]
    got = run_offline(cases, tmp_path)
    assert got[0] == {"status": 200, "body": score_json(hand), "asked": []}
    assert got[1]["status"] == 400 and got[1]["body"]["code"] == "bad_json"
    # 1122z with 123m456p789s: tenpai on 1z or 2z (shanpon), scoring.waits
    assert [w["tile"] for w in got[2]["body"]["waits"]] == ["1z", "2z"]
    game = got[3]["body"]
    assert got[3]["status"] == 200 and game["players"] == ["Ann", "Bob", "Cai", "Dan"]
    # riichi_game: four players start at 25,000 (docs/game-json.md)
    assert game["state"]["points"] == dict.fromkeys(["Ann", "Bob", "Cai", "Dan"], 25000)
    assert [g["id"] for g in got[4]["body"]["games"]] == [game["id"]]
    assert got[5]["status"] == 404 and got[5]["body"]["code"] == "unknown_game"
    assert got[6]["status"] == 404

    # an event and its undo, kept in the data folder between requests (the browser's storage)
    event = {"type": "ron", "discarder": "Ann", "winners": [{"player": "Bob", "han": 1, "fu": 30}]}
    more = run_offline([
        {"request": {"method": "POST", "path": f"/api/games/{game['id']}/events", "text": json.dumps(event)}},
        {"request": {"method": "POST", "path": f"/api/games/{game['id']}/undo"}},
        {"request": {"method": "POST", "path": f"/api/games/{game['id']}/undo"}},
    ], tmp_path)
    # 1 han 30 fu by ron from a non-dealer: 1,000 (riichi scoring table)
    assert more[0]["status"] == 200
    assert more[0]["body"]["state"]["points"] == {"Ann": 24000, "Bob": 26000, "Cai": 25000, "Dan": 25000}
    assert more[1]["status"] == 200 and more[1]["body"]["events"] == 0
    assert more[2]["status"] == 409 and more[2]["body"]["code"] == "nothing_to_undo"


def test_the_waits_of_a_photographed_hand_are_the_servers(reader, tmp_path):
    from vision.photo.pipeline import read_hand_in_play
    from vision.server.waits_request import photo_waits

    path = ROOT / "vision" / "samples" / "riichi_waiting.jpg"
    form = {"context": json.dumps({"seat_wind": "S"}), "discards": "9s"}
    got, = run_offline([photo_case(path, reader, "/api/waits", form)], tmp_path)
    want = photo_waits(form, lambda ruleset, fixes, melds: read_hand_in_play(
        path, ruleset, reader=reader, fixes=fixes, melds=melds))
    assert got["status"] == 200 and got["body"] == want
    assert got["body"]["waits"]       # the sample is tenpai (vision/samples/README.md)


def test_the_browser_readers_model_facts_are_the_weights(reader):
    # vision/weights/reader.json (web/tools/reader_meta.py): what the browser's reader is told
    # of the models; weights changed without it would be read with the old facts
    from vision.read.tileset import fingerprint

    facts = json.loads((ROOT / "vision" / "weights" / "reader.json").read_text())
    assert facts == {"names": reader.names, "imgsz": reader.imgsz, "crop_size": reader.crop_size,
                     "end2end": reader.end2end,
                     "model_id": fingerprint(ROOT / "vision" / "weights" / "classifier.onnx")}
