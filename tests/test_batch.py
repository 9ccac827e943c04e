"""tilescope batch: a folder of photos and a rendered video, scored by the bundled models on
1 and 2 local processes and on a local Ray, with the same lines; a rerun resumes.

The folder: three sample photos (vision/samples), a text file posing as a photo, and a clip
made of two of the photos (black 1 s, riichi_open_red 3 s, black 3 s, riichi_upside_down_dora
3 s, black 1 s; 10 frames/s). Every input is scored with one context: ron, South seat, East
round, dora indicator 1p (dora 2p: no photo holds one). Riichi scoring table, non-dealer ron
(base = fu x 2^(han+2), x4, rounded up to 100):

- riichi_open_red: 23m 406p 678s 88s + pon 777z, ron 4m: yakuhai (chun) 1 + aka dora 1 =
  2 han; fu 20 + 4 (open pon of honours) -> 30; base 480, x4 = 1920 -> 2000.
- riichi_upside_down_dora: 123m 456p 789s 11z 55z, ron on 1z (shanpon): the 1z pon is open
  (ron), East the round wind: yakuhai 1 han; fu 20 + 10 (closed ron) + 4 (open pon of
  honours) + 2 (dragon pair) = 36 -> 40; base 320, x4 = 1280 -> 1300.
- riichi_broadcast: 234m 067p 44s 57s + chi 678m, ron 6s: tanyao 1 + aka dora 1 = 2 han
  30 fu -> 2000 as above; scored with warnings (no turned tile in the chi, unsure tiles).
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.batch import run as batch
from vision.cli.dispatch import main

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "vision" / "samples"
PHOTOS = ["riichi_open_red.jpg", "riichi_upside_down_dora.jpg", "riichi_broadcast.jpg"]
FLAGS = ["--win", "ron", "--seat", "S", "--round", "E", "--dora", "1p", "--no-progress"]
# summary and status of each photo, worked out in the docstring
EXPECTED_PHOTOS = {"riichi_open_red.jpg": ("scored", "2 han 30 fu · 2000"),
                   "riichi_upside_down_dora.jpg": ("scored", "1 han 40 fu · 1300"),
                   "riichi_broadcast.jpg": ("warnings", "2 han 30 fu · 2000")}


def write_clip(path: Path) -> None:
    a = cv2.imread(str(SAMPLES / "riichi_open_red.jpg"))
    b = cv2.imread(str(SAMPLES / "riichi_upside_down_dora.jpg"))
    black = np.zeros_like(a)
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, a.shape[1::-1])
    assert out.isOpened()
    for frame in [black] * 10 + [a] * 30 + [black] * 30 + [b] * 30 + [black] * 10:
        out.write(frame)
    out.release()


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("batch")
    photos = root / "photos"
    photos.mkdir()
    for name in PHOTOS:
        shutil.copy(SAMPLES / name, photos / name)
    (photos / "notes.jpg").write_text("the scores of table 3, typed\n")
    write_clip(root / "clip.avi")
    return root


def run_batch(folder: Path, out: Path, *extra: str) -> int:
    return main(["batch", str(folder / "photos"), str(folder / "clip.avi"), "--out", str(out),
                 *FLAGS, *extra])


def results(out: Path) -> list[dict]:
    """The output's lines after the header, sorted by input (then time, then segment)."""
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["kind"] == "batch"
    return sorted(lines[1:], key=lambda x: (x["input"], x["kind"], x.get("time_s") or 0,
                                            (x.get("segment") or [0])[0]))


@pytest.fixture(scope="module")
def one_worker(folder, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("one") / "results.jsonl"
    # three segments of 4 s: the second begins while no hand is down, the third in hand B's
    assert run_batch(folder, out, "--workers", "1", "--segment", "4") == 0
    return out


def test_one_worker_scores_every_photo_and_each_stable_hand_of_the_video(one_worker, folder):
    lines = results(one_worker)
    photos = {Path(x["input"]).name: x for x in lines if x["kind"] == "photo"}
    assert set(photos) == set(PHOTOS) | {"notes.jpg"}
    for name, (status, summary) in EXPECTED_PHOTOS.items():
        assert (photos[name]["status"], photos[name]["summary"]) == (status, summary)
        assert photos[name]["result"]["payment"]["total"] == int(summary.split()[-1])
    assert photos["notes.jpg"]["status"] == "error" and "not an image" in photos["notes.jpg"]["error"]
    hands = [x for x in lines if x["kind"] == "hand"]
    assert [(h["summary"], h["status"]) for h in hands] == [
        ("2 han 30 fu · 2000", "scored"), ("1 han 40 fu · 1300", "scored")]
    # read at 2 frames/s: hand A is down from 1.0 s; the tracker takes a tile in at its 3rd
    # sighting (2.0 s), the stabiliser reports it after 3 frames unchanged (3.0 s); B alike
    # from 7.0 s -> 9.0 s (the third segment, from 8 s, read from its warm-up before)
    assert [h["time_s"] for h in hands] == [3.0, 9.0]
    assert [h["frame"] for h in hands] == [30, 90]
    segments = [x for x in lines if x["kind"] == "segment"]
    assert [s["segment"] for s in segments] == [[0.0, 4.0], [4.0, 8.0], [8.0, None]]
    assert [s["hands"] for s in segments] == [1, 0, 1]
    assert [s["frames"] for s in segments] == [8, 8, 6]     # 11 s at 2 frames/s = 22


def test_two_workers_write_the_same_lines(one_worker, folder, tmp_path):
    out = tmp_path / "results.jsonl"
    assert run_batch(folder, out, "--workers", "2", "--segment", "4") == 0
    assert results(out) == results(one_worker)


def test_a_cut_through_a_held_hand_changes_no_hand(one_worker, folder, tmp_path):
    # one segment for the whole clip: the same hands at the same times as three
    out = tmp_path / "whole.jsonl"
    assert main(["batch", str(folder / "clip.avi"), "--out", str(out), *FLAGS, "--workers", "1"]) == 0

    def hands(path):
        return [{k: v for k, v in x.items() if k != "segment"} for x in results(path) if x["kind"] == "hand"]

    assert hands(out) == hands(one_worker)


def test_a_rerun_skips_what_the_output_holds_and_redoes_what_a_crash_cut(one_worker, folder, tmp_path, capsys):
    out = tmp_path / "results.jsonl"
    text = one_worker.read_text(encoding="utf-8").splitlines(keepends=True)
    photo_at = next(i for i, x in enumerate(text) if json.loads(x).get("input", "").endswith("riichi_broadcast.jpg"))
    hand_b = next(i for i, x in enumerate(text) if json.loads(x).get("time_s") == 9.0)
    # the crash: the broadcast photo's line lost, hand B's segment without its end line,
    # and a line cut in half at the end
    kept = [x for i, x in enumerate(text) if i != photo_at and i != hand_b + 1]
    out.write_text("".join(kept) + text[photo_at][:25], encoding="utf-8")
    capsys.readouterr()
    assert run_batch(folder, out, "--workers", "1", "--segment", "4") == 0
    err = capsys.readouterr().err
    total = len(PHOTOS) + 1 + 3
    assert f"{total - 2} of {total} photos and video segments already in" in err
    assert results(out) == results(one_worker)              # each result once
    # 3 photos and the text file (4 photo lines), 2 hands of the clip
    assert "4 photos, 2 video hands in" in err and "4 scored with no warning, 1 scored with warnings, " \
        "0 not scored, 1 unreadable" in err
    # and again: nothing left to do
    assert run_batch(folder, out, "--workers", "1", "--segment", "4") == 0
    assert f"{total} of {total}" in capsys.readouterr().err
    assert results(out) == results(one_worker)


def test_a_rerun_with_another_context_is_refused(one_worker, folder, tmp_path, capsys):
    out = tmp_path / "results.jsonl"
    shutil.copy(one_worker, out)
    before = out.read_text(encoding="utf-8")
    assert main(["batch", str(folder / "photos"), "--out", str(out), "--win", "tsumo"]) == 2
    assert "other settings" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == before


def test_paths_that_name_nothing_are_error_lines(tmp_path, folder, capsys):
    out = tmp_path / "results.jsonl"
    missing = str(tmp_path / "nowhere" / "*.jpg")
    assert main(["batch", missing, str(folder / "photos" / "notes.jpg"), "--out", str(out), *FLAGS]) == 0
    lines = results(out)
    assert {(x["status"], Path(x["input"]).name) for x in lines} == {("error", "*.jpg"), ("error", "notes.jpg")}
    assert "0 scored with no warning" in capsys.readouterr().err


def test_expand_and_plan(folder):
    files, missing = batch.expand([str(folder / "photos" / "riichi_*.jpg"), str(folder)])
    names = [Path(f).name for f in files]
    # the glob's matches in order, then the folder's other files (each once), sorted
    assert names == sorted(PHOTOS) + ["clip.avi", "notes.jpg"]
    assert missing == []
    tasks = batch.plan(files, fps=2.0, segment_s=4.0)
    segments = [t for t in tasks if isinstance(t, batch.SegmentTask)]
    assert [(t.start_s, t.end_s) for t in segments] == [(0.0, 4.0), (4.0, 8.0), (8.0, float("inf"))]
    assert sum(isinstance(t, batch.PhotoTask) for t in tasks) == 4
    # the tracker's window (5) and label votes (9) and 3 stable frames, at 2 frames/s
    assert batch.warmup_s(2.0, 3) == (5 + 9 + 3) / 2


def test_ray_writes_the_same_lines(one_worker, folder, tmp_path):
    ray = pytest.importorskip("ray")
    path = os.pathsep.join([str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    ray.init(num_cpus=2, include_dashboard=False, runtime_env={"env_vars": {"PYTHONPATH": path}})
    try:
        out = tmp_path / "results.jsonl"
        assert run_batch(folder, out, "--ray", "--segment", "4") == 0
    finally:
        ray.shutdown()
    assert results(out) == results(one_worker)


# ---- a fresh user's findings on the command line ----

def test_a_typed_path_that_names_nothing_is_refused_before_starting(tmp_path, folder, capsys):
    # a typo is said at once (one line, exit 2), not found hours later inside the results;
    # nothing is written, so a rerun with the path corrected starts clean
    out = tmp_path / "r.jsonl"
    assert main(["batch", str(tmp_path / "nope_dir"), str(folder / "photos"), "--out", str(out), *FLAGS]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"tilescope batch: {tmp_path / 'nope_dir'}: no such file or folder"]
    assert not out.exists()


def test_the_progress_line_and_the_summary_count_the_same_photos(tmp_path, folder, capsys):
    # the text file posing as a photo and a glob that matches nothing: two photo lines, each
    # counted by the progress line (2/2) and by the closing summary (2 photos)
    out = tmp_path / "r.jsonl"
    missing = str(tmp_path / "nowhere" / "*.jpg")
    flags = [f for f in FLAGS if f != "--no-progress"]
    assert main(["batch", missing, str(folder / "photos" / "notes.jpg"), "--out", str(out), *flags]) == 0
    err = capsys.readouterr().err
    assert "tilescope batch: 2/2 photos (100%)" in err
    assert "tilescope batch: 2 photos in " in err and "2 unreadable" in err


# ---- issue 40: the batch's workers end with it; failed files retried; Ctrl-C said ----

def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _many_copies(root: Path, n: int) -> Path:
    photos = root / "many"
    photos.mkdir()
    for i in range(n):
        os.symlink(SAMPLES / "riichi_open_red.jpg", photos / f"p{i:03d}.jpg")
    return photos


def _start_batch(photos: Path, out: Path, *extra: str):
    import subprocess
    import sys

    import signal

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    # Ctrl-C as at a terminal: a test run started in the background inherits SIGINT ignored,
    # and Python then installs no KeyboardInterrupt for it (a CI run saw the batch finish)
    return subprocess.Popen([sys.executable, "-m", "vision.cli", "batch", str(photos), "--out", str(out),
                             *FLAGS, *extra], cwd=REPO, env=env, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_the_workers_end_when_the_batch_is_killed(tmp_path):
    import signal
    import time

    proc = _start_batch(_many_copies(tmp_path, 300), tmp_path / "r.jsonl", "--workers", "2")
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        # the two workers and multiprocessing's resource tracker
        while len(workers) < 3 and time.monotonic() < deadline and proc.poll() is None:
            workers = _children(proc.pid)
            time.sleep(0.1)
        assert len(workers) == 3, f"batch started {workers}"
        os.kill(proc.pid, signal.SIGKILL)          # no handler runs: the workers must notice
        proc.wait()
        deadline = time.monotonic() + 15
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [p for p in workers if _alive(p)] == []
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in workers:         # a failure leaves nothing running either
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_ctrl_c_says_what_was_kept_and_exits_130(tmp_path):
    import signal
    import time

    out = tmp_path / "r.jsonl"
    proc = _start_batch(_many_copies(tmp_path, 600), out, "--workers", "1")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and (
            not out.exists() or len(out.read_text().splitlines()) < 2):     # the header and a photo
        time.sleep(0.02)
    assert proc.poll() is None, "the batch ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    kept = len(out.read_text().splitlines()) - 1
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == (
        f"tilescope batch: interrupted; {kept} photo{'' if kept == 1 else 's'} kept in {out} (the "
        "inputs being read were dropped); the same command goes on from there")


def test_retry_failed_reads_again_the_files_that_failed(tmp_path, capsys):
    photos = tmp_path / "photos"
    photos.mkdir()
    shutil.copy(SAMPLES / "riichi_open_red.jpg", photos / "a.jpg")
    (photos / "b.jpg").write_text("not yet a photo\n")
    out = tmp_path / "r.jsonl"
    args = ["batch", str(photos), "--out", str(out), *FLAGS, "--workers", "1"]
    assert main(args) == 0
    shutil.copy(SAMPLES / "riichi_open_red.jpg", photos / "b.jpg")      # the good photo now
    capsys.readouterr()
    assert main(args) == 0              # a plain rerun skips it, and says how to retry
    assert ("2 of 2 photos and video segments already in " + str(out) + ", skipped (1 of them "
            "could not be read: --retry-failed reads them again)") in capsys.readouterr().err
    assert [x["status"] for x in results(out)] == ["scored", "error"]
    assert main(args + ["--retry-failed"]) == 0
    err = capsys.readouterr().err
    assert "1 input that could not be read before, read again (--retry-failed)" in err
    assert [(Path(x["input"]).name, x["status"], x["summary"]) for x in results(out)] == [
        ("a.jpg", "scored", "2 han 30 fu · 2000"), ("b.jpg", "scored", "2 han 30 fu · 2000")]
