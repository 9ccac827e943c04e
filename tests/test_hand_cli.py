"""``tilescope hand``: JSON Lines in/out (docs/hand-json.md) and the --text report."""
import io
import re
import json

from vision.cli.dispatch import main
from vision.cli.commands import hand as hand_cmd

SPEC_LINE = json.dumps({
    "ruleset": "riichi", "concealed": "234m456p678s8s",
    "melds": [{"type": "pon", "tiles": "777z", "from": "across"}],
    "win_tile": "8s", "win": "tsumo", "seat_wind": "E", "round_wind": "E",
})
SPEC_RESULT = {
    "valid": True, "han": 1, "fu": 30, "limit": None,
    "yaku": [{"name": "yakuhai (chun)", "han": 1}],
    "dora": {"dora": 0, "aka": 0, "ura": 0},
    "fu_breakdown": [{"reason": "base", "fu": 20}, {"reason": "tsumo", "fu": 2},
                     {"reason": "open pon of honours", "fu": 4}, {"reason": "single wait", "fu": 2}],
    "payment": {"total": 1500, "from_each": 500}, "error": None,
}


def run_lines(text):
    out = io.StringIO()
    hand_cmd.run_json_lines(io.StringIO(text), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_spec_example_result_exactly():
    assert run_lines(SPEC_LINE + "\n") == [SPEC_RESULT]


def test_bad_lines_get_their_own_error_and_the_run_goes_on():
    lines = "\n".join([
        SPEC_LINE,
        "{not json",
        json.dumps({"ruleset": "riichi", "concealed": "234m", "win_tile": "8s", "win": "ron", "extra": 1}),
        "",
        json.dumps({"ruleset": "riichi", "concealed": "123m456p789s1234z", "win_tile": "5z", "win": "ron"}),
        SPEC_LINE,
    ])
    results = run_lines(lines)
    assert len(results) == 5                      # the blank line is skipped
    assert results[0] == SPEC_RESULT and results[4] == SPEC_RESULT
    assert results[1]["error"] == "not JSON: Expecting property name enclosed in double quotes at column 2"
    assert "unknown key 'extra'" in results[2]["error"]
    assert "not a complete hand" in results[3]["error"]
    assert all(r["valid"] is False for r in results[1:4])


def test_file_argument(tmp_path, capsys):
    f = tmp_path / "hands.jsonl"
    f.write_text(SPEC_LINE + "\n")
    assert main(["hand", str(f)]) == 0
    assert json.loads(capsys.readouterr().out) == SPEC_RESULT


def test_missing_file_is_exit_2(tmp_path, capsys):
    assert main(["hand", str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_text_report(capsys):
    assert main(["hand", "--text", "234m456p678s8s8s +pon 777z", "--win", "tsumo", "--seat", "E"]) == 0
    out = capsys.readouterr().out
    assert "yakuhai (chun)" in out and "open pon of honours" in out
    assert "from each 500" in out and "total 1500" in out and "1 han 30 fu" in out


def test_text_report_lists_only_the_dora_kinds_that_count(capsys):
    # 23m 406p 678s 88s + pon 777z, ron on 4m, indicator 1p (dora 2p, not held): yakuhai 1 +
    # aka 1 = 2 han 30 fu, 2000 (non-dealer ron: 30 x 2^4 x 4 = 1920, rounded up)
    assert main(["hand", "--text", "23m406p678s88s4m +pon 777z", "--win", "ron", "--seat", "S",
                 "--dora", "1p"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"aka dora \(red fives\) +1 han", out)
    assert "ura dora" not in out and "\n  dora " not in out
    assert "Value: 2 han 30 fu" in out and "2000" in out


def test_riichi_flag_alone_means_riichi_as_in_tilescope_score(capsys):
    # 123m456p789s11z22z + 2z by ron, dealer: riichi 1 han; fu 20 + closed ron 10 + 222z
    # completed by ron (open honours) 4 + pair of seat and round wind (East) 4 = 38 -> 40;
    # dealer ron 40 x 2^3 x 6 = 1920 -> 2000 (rules §fu, §payments)
    for flag in (["--riichi"], ["--riichi", "riichi"]):
        assert main(["hand", "--text", "123m456p789s11z22z2z", *flag]) == 0
        out = capsys.readouterr().out
        assert re.search(r"riichi +1 han", out) and "Value: 1 han 40 fu" in out and "total 2000" in out
    assert main(["hand", "--text", "123m456p789s11z22z2z", "--riichi", "double"]) == 0
    assert "Value: 2 han 40 fu" in capsys.readouterr().out


def test_text_json(capsys):
    assert main(["hand", "--text", "234m456p678s8s8s +pon 777z", "--win", "tsumo", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == SPEC_RESULT


def test_text_errors_exit_2(capsys):
    assert main(["hand", "--text", "234m456p678s8s +pon 777z"]) == 2
    assert "without its winning tile" in capsys.readouterr().err
    assert main(["hand", "--text", "123m456p789s1234z5z"]) == 2
    assert "not a complete hand" in capsys.readouterr().err


def test_no_yaku_report(capsys):
    assert main(["hand", "--text", "123m456p789s13s99m2s"]) == 0
    assert "NOT A VALID WIN" in capsys.readouterr().out


def test_json_error_messages_read_once():
    # json says "Invalid control character at"; the result must not say "at at"
    (result,) = run_lines('{"ruleset": "x\x01"}')
    assert result["error"] == "not JSON: Invalid control character at column 15"


def test_lines_that_are_not_text_or_hold_huge_numbers_get_their_own_error():
    good = SPEC_LINE.encode()
    huge = SPEC_LINE[:-1].encode() + b', "honba": ' + b"9" * 5000 + b"}"
    stream = io.BytesIO(b"\xef\xbb\xbf" + good + b"\n\xff\xfe bad\n" + huge + b"\n" + good + b"\n")
    out = io.StringIO()
    hand_cmd.run_json_lines(stream, out)
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert results[0] == SPEC_RESULT and results[3] == SPEC_RESULT      # the BOM is skipped
    assert results[1]["error"] == "not UTF-8 text: byte 0xff at column 1"
    assert "thousands of digits" in results[2]["error"]


def test_dora_flag_is_repeatable(capsys):
    # 4m indicates 5m (four of them in the ankan, one red: 4 dora), 1m indicates 2m (1)
    code = main(["hand", "--text", "123m406p22z +chi 0s46s +ankan 0555m", "--seat", "S",
                 "--win", "tsumo", "--rinshan", "--dora", "4m", "--dora", "1m", "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["dora"]["dora"] == 5


def test_every_example_of_the_help_text_is_a_possible_hand(capsys):
    examples = re.findall(r'"([^"]+)"', hand_cmd.TEXT_SYNTAX)
    assert len(examples) >= 2
    for text in examples:
        assert main(["hand", "--text", text, "--json"]) == 0, text
        assert json.loads(capsys.readouterr().out)["error"] is None


def test_lines_may_end_in_cr_alone_and_nesting_too_deep_is_one_line_s_error():
    good = SPEC_LINE.encode()
    deep = b"[" * 100_000
    out = io.StringIO()
    hand_cmd.run_json_lines(io.BytesIO(good + b"\r" + deep + b"\r" + good), out)   # old Mac files
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert results[0] == SPEC_RESULT and results[2] == SPEC_RESULT
    assert results[1] == {"valid": False, "error": "not JSON: nested thousands deep, more than can be read"}


def test_a_photo_or_utf16_file_is_one_clear_error_not_an_error_per_line(tmp_path, capsys):
    photo = tmp_path / "IMG_0002.heic"              # a JPEG's bytes under any name
    photo.write_bytes(b"\xff\xd8\xff\xe0" + b"\x00\x10JFIF" + b"\x00" * 400)
    assert main(["hand", str(photo)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "is a JPEG image, not JSON Lines text" in out.err
    assert "tilescope score" in out.err
    utf16 = tmp_path / "hands.jsonl"                # PowerShell's `>` writes UTF-16
    utf16.write_bytes(("\ufeff" + SPEC_LINE + "\n").encode("utf-16-le"))
    assert main(["hand", str(utf16)]) == 2
    assert "UTF-16 text: save it as UTF-8" in capsys.readouterr().err


def test_ura_indicators_without_riichi_are_said_not_to_count(capsys):
    # ura dora count only with riichi (scoring/riichi/RULES.md): pinfu + tanyao + dora 1 = 3 han
    # 30 fu, 3900 either way, and the report says why the ura indicator added nothing
    argv = ["hand", "--text", "234m567p345s22s67s8s", "--win", "ron", "--seat", "S", "--dora", "1m"]
    assert main(argv + ["--ura", "1p"]) == 0
    out = capsys.readouterr().out
    assert "ura dora indicators given, not counted" in out and "total 3900" in out
    assert main(argv + ["--ura", "1p", "--riichi"]) == 0
    out = capsys.readouterr().out
    # with riichi: 4 han 30 fu, 7700 (the ura indicator 1p points at 2p, which the hand lacks)
    assert "not counted" not in out and "Value: 4 han 30 fu" in out and "total 7700" in out


def test_one_point_is_one_point_not_1_points(capsys):
    # MCR: 456p + 5z tanki, pung 888s, chows 123m 345m: Single Wait 1 only (Green Book), under 8
    assert main(["hand", "--text", "456p55z +pon 888s +chi 123m +chi 345m", "--ruleset", "mcr",
                 "--win", "ron"]) == 0
    out = capsys.readouterr().out
    assert "NOT A VALID WIN: 1 point without flowers" in out and "Total: 1 point\n" in out + "\n"


def test_version(capsys):
    from importlib.metadata import version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"tilescope {version('tilescope')}\n"


def test_check_reads_json_lines_from_a_fifo_without_losing_them(tmp_path, capsys):
    # `tilescope check <(cat hands.jsonl)`: telling a photo by its first bytes must not eat them
    import os
    import threading

    fifo = tmp_path / "hands.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(SPEC_LINE + "\n" + SPEC_LINE + "\n"))
    writer.start()
    assert main(["check", str(fifo)]) == 0
    writer.join(timeout=10)
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_closed_standard_input_is_a_message(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", None)        # `tilescope hand <&-`
    assert main(["hand"]) == 2
    assert "standard input is closed" in capsys.readouterr().err


def test_a_daisangen_with_open_dragon_pons_says_pao_was_not_applied(capsys):
    # daisangen, non-dealer tsumo: 8000 base -> 16000 from the dealer, 8000 from each other
    # (seed 001); under EMA/WRC pao the feeder of the third pon would pay all 32000
    assert main(["hand", "--text", "234m1p1p +pon 555z +pon 666z +pon 777z", "--seat", "S",
                 "--win", "tsumo"]) == 0
    out = capsys.readouterr().out
    assert "from dealer 16000, from non-dealer 8000; total 32000" in out
    assert "Note:  pao not applied: if another player's discard was called for the third dragon" in out


def test_a_second_tile_code_after_a_flag_is_named_not_taken_for_a_file(capsys):
    # argparse takes "7z" in "--dora 4m 7z" for the FILE argument
    assert main(["hand", "--text", "234m678s55z23p789p4p", "--dora", "4m", "7z"]) == 2
    assert "'7z' is not a file but looks like tiles" in capsys.readouterr().err
    assert main(["check", "--text", "119m19p19s123456z7z", "--discards", "1p", "2m"]) == 2
    assert "'2m' is not a file but looks like tiles" in capsys.readouterr().err


def test_a_flag_of_the_other_ruleset_is_said_to_be_ignored(capsys):
    # --last-copy (MCR's Last Tile) changes nothing in a riichi hand: said, not silent
    assert main(["hand", "--text", "234m678s55z23p789p4p", "--seat", "S", "--win", "tsumo",
                 "--last-copy"]) == 0
    assert ("note: --last-copy is for MCR hands; ignored under riichi (pass --ruleset mcr for "
            "an MCR hand)") in capsys.readouterr().err
    assert main(["check", "--ruleset", "mcr", "--text", "12m456p33z3m +chi 678s +pon 222p",
                 "--tournament"]) == 0
    assert "note: --tournament is for riichi hands; ignored under MCR" in capsys.readouterr().err


def test_json_lines_refuse_nan_and_a_from_key_spelled_as_python_s():
    # NaN is no JSON value (Python's json reads it); "from_" is the model's field name, not a key
    (nan,) = run_lines('{"ruleset": "riichi", "honba": NaN}')
    assert nan["error"] == "not JSON: NaN is not a JSON value"
    line = SPEC_LINE.replace('"from"', '"from_"')
    (res,) = run_lines(line)
    assert res["error"] == "bad request: unknown key 'melds.0.from_'"


def _options(verb):
    """{option string: (dest, choices)} of a verb's parser, built as `tilescope VERB` builds it."""
    import argparse
    import importlib

    module = importlib.import_module(f"vision.cli.commands.{verb}")
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return {s: (a.dest, tuple(a.choices or ())) for a in parser._actions for s in a.option_strings
            if a.dest != "help"}


# what each verb takes besides the table's flags, and why (issue 35: one vocabulary)
_OWN = {
    "hand": {"--text", "--json", "--win-tile", "--hidden-win-tile"},   # a typed hand
    "check": {"--text", "--json", "--win-tile", "--hidden-win-tile",    # hand's, plus the
              "--declared", "--not-revealed", "--discards", "--tournament", "--count-as-typed",
              "--mcr-under-minimum", "--mcr-invalid-hand", "--chombo-dealer",   # table's facts
              "--chombo-non-dealer", "--tournament-chombo",                      # and penalties
              "--fix", "--meld", "--annotate", "--weights",                     # check PHOTO
              "--set", "--learn"},
    "score": {"--json", "--win-tile", "--fix", "--meld", "--annotate", "--weights",
              "--set", "--learn"},
    "stream": {"--json", "--weights", "--out", "--overlay", "--host", "--stable",
               "--every", "--turns", "--set", "--game", "--exit-at-end",   # a video's own
               "--full-reads", "--threads"},
}


def test_hand_check_score_and_stream_take_the_same_table_flags():
    # issue 35: --rinshan was hand's, --replacement score's; --riichi double hand's,
    # --double-riichi score's. The table's flags are now one set, same names, same meaning
    opts = {verb: _options(verb) for verb in _OWN}
    table = {s for s in opts["hand"] if s not in _OWN["hand"]}
    assert {"--rinshan", "--replacement", "--chankan", "--robbing-kong", "--riichi",
            "--double-riichi", "--win", "--flowers", "--last-copy",
            "--context"} <= table        # issue 40: --context on every verb of table facts
    for verb, own in _OWN.items():
        assert set(opts[verb]) == table | own, verb
        for s in table | (own & set(opts["hand"])):
            assert opts[verb][s] == opts["hand"][s], (verb, s)     # same dest and choices
    for s in ("--fix", "--meld", "--annotate", "--weights", "--win-tile"):
        assert opts["check"][s] == opts["score"][s], s             # check PHOTO = score's


def test_every_spelling_works_on_every_verb(capsys):
    # --riichi double and --double-riichi alike on hand (score and stream: the same parser
    # function, compared above): double riichi 2 han + 40 fu, dealer ron 40 x 2^4 x 6 = 3840
    # -> 3900; --rinshan and --replacement alike (a kan is needed: the same error for both)
    for flag in (["--riichi", "double"], ["--double-riichi"], ["--riichi=double"]):
        assert main(["hand", "--text", "123m456p789s11z22z2z", *flag]) == 0
        assert "Value: 2 han 40 fu" in capsys.readouterr().out
    for flag in ("--rinshan", "--replacement"):
        assert main(["hand", "--text", "123m456p789s11z22z2z", "--win", "tsumo", flag]) == 2
        assert "needs a kan among the melds" in capsys.readouterr().err
    assert main(["hand", "--text", "123m456p789s11z22z2z", "--riichi", "--double-riichi"]) == 2
    assert "give --riichi or --double-riichi, not both" in capsys.readouterr().err


def test_text_reports_say_the_defaults_they_assumed_first(capsys):
    # hand and check assume ron, score tsumo (a photo of a hand laid down): each report's
    # first line says what it assumed, as score's does
    assert main(["hand", "--text", "123m456p789s11z22z2z"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("Assumed: riichi rules") and "won on a discard (--win tsumo" in first
    assert main(["hand", "--text", "123m456p789s11z22z2z", "--ruleset", "riichi", "--win", "ron",
                 "--seat", "S", "--round", "E"]) == 0
    assert capsys.readouterr().out.startswith("Hand:")


def test_a_yakuman_reads_as_yakuman_not_13_han_0_fu(capsys):
    # seed 001: yakuman have their own scale, "incorrect de les traiter comme des mains à
    # treize yakus". Kokushi musou by a non-dealer's tsumo: 8000 base, 2 x 8000 from the dealer
    # + 8000 from each other = 32000; 13-sided with the double-yakuman rule: 2 x 32000 = 64000
    text = ["--text", "19m19p19s1234567z1m", "--win", "tsumo", "--seat", "S", "--round", "E",
            "--ruleset", "riichi"]
    assert main(["hand", *text]) == 0
    out = capsys.readouterr().out
    assert "Value: yakuman (kokushi musou (13-sided))" in out and "total 32000" in out
    assert re.search(r"kokushi musou \(13-sided\) +yakuman", out)
    assert "13 han" not in out and "0 fu" not in out and "Fu:" not in out
    assert main(["hand", *text, "--double-yakuman"]) == 0
    out = capsys.readouterr().out
    assert "Value: double yakuman (kokushi musou (13-sided))" in out and "total 64000" in out
    assert main(["check", *text]) == 0
    out = capsys.readouterr().out
    assert "yaku kokushi musou (13-sided), yakuman; yakuman (kokushi musou (13-sided)); the winner receives 32000" in out
    # three yakuman at once (suuankou tanki, daisuushi, tsuuiisou): 3 x 8000 base, non-dealer
    # tsumo 2 x 24000 + 2 x 24000 = 96000
    assert main(["hand", "--text", "111z222z333z444z5z5z", "--win", "tsumo", "--seat", "S"]) == 0
    out = capsys.readouterr().out
    assert "Value: triple yakuman (suuankou (tanki), daisuushi, tsuuiisou)" in out and "total 96000" in out
    # a counted (kazoe) yakuman keeps its han and fu: they are what made it
    # read 22 345 345 678 678m, 8m closing 67m two-sided: 15 han = riichi 1 + menzen tsumo 1 +
    # pinfu 1 + tanyao 1 + ryanpeikou 3 + chinitsu 6 + dora 2 (indicator 1m: 2m x 2); pinfu
    # tsumo 20 fu
    assert main(["hand", "--text", "223344m556677m8m8m", "--win", "tsumo", "--seat", "S", "--riichi",
                 "--dora", "1m"]) == 0
    out = capsys.readouterr().out
    assert "Value: 15 han 20 fu = kazoe yakuman" in out and "total 32000" in out


def test_an_over_long_line_is_one_error_and_the_lines_after_it_are_answered():
    good = SPEC_LINE.encode()
    long = b"[" * (hand_cmd.MAX_LINE_BYTES + 10)
    out = io.StringIO()
    hand_cmd.run_json_lines(io.BytesIO(good + b"\r\n" + long + b"\r\n" + good + b"\r" + long), out)
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert results[0] == SPEC_RESULT and results[2] == SPEC_RESULT and len(results) == 4
    size = f"{hand_cmd.MAX_LINE_BYTES + 10:,}"
    assert results[1] == results[3] == {"valid": False, "error": f"a line of {size} bytes, over "
                                        f"the limit of {hand_cmd.MAX_LINE_BYTES:,} bytes per line"}


def test_lines_are_split_the_same_whatever_the_reads(monkeypatch):
    # line ends (CRLF too) split between two reads, a line just at the limit and one over it
    monkeypatch.setattr(hand_cmd, "_CHUNK", 3)
    data = b"ab\r\ncd\rxxxxx\nyyyyyy\r\n\r\nz"
    assert list(hand_cmd._lines(io.BytesIO(data), 5)) == [b"ab", b"cd", b"xxxxx", 6, b"", b"z"]


class _Endless(io.RawIOBase):
    """A binary stream of one line of ``size`` bytes without its end, made as it is read."""

    def __init__(self, size):
        self.left = size

    def readable(self):
        return True

    def readinto(self, buf):
        n = min(len(buf), self.left)
        buf[:n] = b"7" * n
        self.left -= n
        return n


def test_an_over_long_line_is_not_held_whole():
    import tracemalloc
    out = io.StringIO()
    tracemalloc.start()
    hand_cmd.run_json_lines(_Endless(20 * hand_cmd.MAX_LINE_BYTES), out)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert "a line of 20,971,520 bytes, over the limit" in out.getvalue()
    assert peak < 4 * hand_cmd.MAX_LINE_BYTES       # about the limit and a read, not 20 MiB


def test_nul_bytes_and_image_words_are_one_line_s_error_not_the_stream_s(tmp_path, capsys):
    good = SPEC_LINE.encode()
    for first in (b"BM is no hand", b"GIF8", b"%PDF", good):
        path = tmp_path / "hands.jsonl"
        path.write_bytes(first + b"\n" + good + b"\n{\"ruleset\": \x00}\n" + good + b"\n")
        assert main(["hand", str(path)]) == 0
        results = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert len(results) == 4 and results[1] == results[3] == SPEC_RESULT, first
        assert results[2]["error"] == "not text: a NUL byte at column 13"
        assert results[0]["error"] if first != good else results[0] == SPEC_RESULT
