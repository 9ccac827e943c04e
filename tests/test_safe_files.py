"""Issue 39, "files that cannot be lost": game files written under an exclusive lock, through
a new temporary file that no planted link redirects, reread under the lock before an append;
FIFOs refused by name; broken game files listed as broken; options validated with their range.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import threading

import pytest

from vision.server.game_file import GameFileError, read_game, read_lines, write_game
from vision.common.safe_files import NotRegular, atomic_write, locked, read_text

PLAYERS = ["Ann", "Bob", "Cai", "Dan"]
HEADER = json.dumps({"type": "game", "players": PLAYERS})


def _add(path: str, k: int) -> int:
    from vision.cli.dispatch import main
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        # all four tenpai: the dealer keeps the deal, a counter more each time
        return main(["game", path, "--add", json.dumps({"type": "draw", "tenpai": PLAYERS})])


def test_twenty_parallel_cli_adds_to_one_game_keep_all_twenty(tmp_path):
    # 20 parallel `tilescope game g.jsonl --add …`: 19 exited 0 and 11 events were lost
    path = tmp_path / "g.jsonl"
    path.write_text(HEADER + "\n")
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(20) as pool:
        codes = pool.starmap(_add, [(str(path), k) for k in range(20)])
    assert codes == [0] * 20
    lines = read_lines(str(path))
    assert len(lines) == 21
    _, states, _ = read_game(lines, "g")
    assert states[-1].honba == 20


def test_a_link_planted_at_the_temporary_name_does_not_overwrite_its_target(tmp_path):
    # a symlink at games/ID.jsonl.tmp made the next write overwrite what it pointed to
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    game = tmp_path / "g.jsonl"
    game.write_text(HEADER + "\n")
    os.symlink(victim, str(game) + ".tmp")
    write_game(str(game), [HEADER, json.dumps({"type": "riichi", "player": "Bob"})])
    assert victim.read_text() == "precious\n"
    assert len(read_lines(str(game))) == 2
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp") and not p.is_symlink()] == []


def test_the_streams_ledger_keeps_an_event_added_beside_it(tmp_path):
    # a running `stream --game g.jsonl` rewrote the file over an event added beside it
    from vision.server.ledger import LedgerSession

    path = tmp_path / "g.jsonl"
    path.write_text(HEADER + "\n")
    session = LedgerSession(str(path))
    assert _add(str(path), 0) == 0                      # the CLI, beside the stream
    session.add({"type": "riichi", "player": "Bob"})
    events = [json.loads(ln) for ln in read_lines(str(path))[1:]]
    assert [e["type"] for e in events] == ["draw", "riichi"]
    assert session.state.sticks == 1 and session.state.honba == 1


def test_threads_of_one_process_take_the_lock_in_turn(tmp_path):
    path = tmp_path / "counter"
    atomic_write(path, "0")

    def bump():
        for _ in range(25):
            with locked(path):
                atomic_write(path, str(int(read_text(path)) + 1))

    threads = [threading.Thread(target=bump) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert read_text(path) == "200"


def _in_time(fn, seconds=5.0):
    """fn() run on a thread; its result, or a failure when it has not ended in ``seconds``."""
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("v", fn()), daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        pytest.fail(f"still waiting after {seconds} s (blocked on a FIFO?)")
    return out["v"]


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "hand.jpg"
    os.mkfifo(path)
    return path


def test_a_fifo_named_like_a_photo_is_refused_by_score_not_waited_on(fifo):
    from vision.read.imageio import ImageError, load_image

    def load():
        try:
            load_image(fifo)
        except ImageError as exc:
            return str(exc)
    assert "is a FIFO (named pipe), not a file" in _in_time(load)


def test_a_fifo_named_like_a_photo_is_an_error_line_in_batch(fifo, tmp_path):
    from vision.batch.run import expand

    files, errors = _in_time(lambda: expand([str(tmp_path)]))
    assert files == [] and len(errors) == 1 and "FIFO" in errors[0]["error"]


def test_read_text_refuses_a_fifo_by_name(fifo):
    def read():
        try:
            read_text(fifo)
        except NotRegular as exc:
            return str(exc)
    assert _in_time(read).endswith("hand.jpg is a FIFO (named pipe), not a file")


GID = "20261204-210000-a1b2c3"


@pytest.fixture
def games(tmp_path, monkeypatch):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from vision.server.app import create_app

    monkeypatch.setenv("TILESCOPE_DATA", str(tmp_path))
    (tmp_path / "games").mkdir()
    return TestClient(create_app(reader=object())), tmp_path / "games"


def test_a_fifo_named_like_a_game_is_listed_as_broken_not_hanging_the_list(games):
    c, folder = games
    os.mkfifo(folder / f"{GID}.jsonl")
    r = _in_time(lambda: c.get("/api/games"))
    assert r.status_code == 200
    assert r.json()["games"] == [{"id": GID, "broken": True,
                                  "error": f"cannot read {GID}.jsonl: {GID}.jsonl is a FIFO "
                                           "(named pipe), not a file"}]
    assert c.post("/api/hand", json={"ruleset": "riichi"}).status_code != 504


def test_a_non_utf8_game_file_is_broken_with_its_error_not_a_500(games):
    c, folder = games
    (folder / f"{GID}.jsonl").write_bytes(b'{"type": "game", "players": ["\xff"]}\n')
    listed = c.get("/api/games").json()["games"]
    assert listed == [{"id": GID, "broken": True,
                       "error": f"{GID}.jsonl is not a game's JSON Lines (not UTF-8 text)"}]
    r = c.get(f"/api/games/{GID}")
    assert r.status_code == 422 and r.json()["code"] == "broken_game"


def test_a_corrupt_game_is_listed_as_broken_not_left_out(games):
    c, folder = games
    (folder / f"{GID}.jsonl").write_text(HEADER + "\n{not json\n")
    [g] = c.get("/api/games").json()["games"]
    assert g["broken"] is True and "not valid JSON" in g["error"]


def test_a_negative_chombo_penalty_is_refused():
    # chombo_penalty: -50000 paid the offender
    header = json.dumps({"type": "game", "players": PLAYERS, "options": {"chombo_penalty": -50000}})
    with pytest.raises(GameFileError, match='"chombo_penalty" should be at least 0, got -50000'):
        read_game([header], "g")


def test_a_win_past_99_honba_is_still_paid():
    # past 99 honba every win was refused (the hand's own range is 0..99)
    lines = [HEADER] + [json.dumps({"type": "draw", "tenpai": ["Ann"]})] * 100
    hand = {"concealed": "234m456p678s8s", "win_tile": "8s",
            "melds": [{"type": "pon", "tiles": "777z", "from": "across"}]}
    lines.append(json.dumps({"type": "tsumo", "player": "Ann", "hand": hand}))
    _, states, _ = read_game(lines, "g")
    before, after = states[-2], states[-1]
    assert before.honba == 100
    # chun 1 han 30 fu (base 30 x 2^3 = 240), dealer tsumo: 2 x 240 = 480 -> 500 all,
    # and 100 per counter from each: 500 + 100 x 100 = 10500
    assert before.points[1] - after.points[1] == 10500
    assert after.lines[0] == "Bob pays Ann 10500 (10000 of it counters)"
