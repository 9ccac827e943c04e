"""``tilescope hand``: score typed hands, riichi (MCR once ``scoring.mcr`` exists).

Two ways in:

- JSON Lines (``FILE`` or standard input): one request per line as
  ``docs/hand-json.md`` says, one result per line out in the same order. A bad line
  gets its own ``{"valid": false, "error": ...}`` result and the run goes on; blank lines are
  skipped.
- ``--text "234m456p678s8s8s +pon 777z" --win tsumo --seat E``: one hand typed by a person,
  answered with a readable report (yaku, fu breakdown, payment), or the JSON result with
  ``--json``.

Exit codes: 0 when every hand was read (a hand without yaku is still a result), 2 for bad
usage, an unreadable file, or a ``--text`` hand that is malformed or not complete (message
on stderr).
"""
from __future__ import annotations

import argparse
import codecs
import json
import re
import sys

from vision.photo.report import format_report

HELP = "score typed hands: JSON Lines in/out, or one hand with --text"

TEXT_SYNTAX = """\
--text syntax: the concealed tiles in mpsz, the LAST tile written being the winning tile,
then one '+TYPE TILES' per declared meld:
  "234m456p678s8s8s +pon 777z"        8s wins (a pair wait); a called pon of red dragons
  "123m406p22z +chi 0s46s +ankan 0555m"  0m 0p 0s are red fives; 1z..7z = E S W N White Green Red
  meld types: +chi, +pon, +kan (open kan called from a discard), +kakan (pon upgraded with a
  drawn tile), +ankan (closed kan). --win-tile 8s names the winning tile instead (then every
  written concealed tile stays in the hand).
"""


def add_rule_arguments(g) -> None:
    """The riichi table-rule flags (``tilescope hand``, ``check``, ``score``, ``stream``), read
    back by :func:`vision.cli.commands.score.rules_from_flags`."""
    g.add_argument("--no-aka", action="store_true", help="red fives are not dora")
    g.add_argument("--no-open-tanyao", action="store_true", help="tanyao needs a closed hand")
    g.add_argument("--kiriage", action="store_true", help="4 han 30 fu and 3 han 60 fu are mangan")
    g.add_argument("--double-yakuman", action="store_true",
                   help="13-sided kokushi, suuankou tanki, pure nine gates, daisuushi count double")
    g.add_argument("--kazoe", choices=("yakuman", "sanbaiman", "none"), default="yakuman",
                   help="13+ han without yakuman: yakuman (default; a counted yakuman), sanbaiman (capped "
                        "there: a table without counted yakuman), none (no cap: 13 han a yakuman, "
                        "26 a double)")
    g.add_argument("--double-wind-fu", type=int, choices=(2, 4), default=4,
                   help="fu for a pair of a wind that is seat and round wind (default 4)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = TEXT_SYNTAX
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="JSON Lines requests (default: standard input; '-' too)")
    parser.add_argument("--text", metavar="HAND", help="one typed hand (syntax below)")
    parser.add_argument("--json", action="store_true", help="with --text: print the JSON result, not the report")
    add_table_arguments(parser, "with --text", win_default="ron")
    g = parser.add_argument_group("the winning tile (with --text)")
    g.add_argument("--win-tile", metavar="TILE", help="the winning tile, if not the last tile written")
    g.add_argument("--hidden-win-tile", action="store_true",
                   help="MCR: the winning tile was not shown separately (no wait fans; a photo shows it)")


def add_table_arguments(parser: argparse.ArgumentParser, where: str, win_default: str,
                        dora_help: str = "", flowers_help: str = "") -> None:
    """The flags for what happened at the table, one vocabulary for ``tilescope hand``,
    ``check``, ``score`` and ``stream`` (their parsers are compared in
    ``tests/test_hand_cli.py``): each spelling a referee may reach for is taken by every verb
    (``--rinshan`` and ``--replacement``, ``--riichi double`` and ``--double-riichi``).
    ``win_default``: what the verb assumes without ``--win`` (its report says so)."""
    other = "tsumo" if win_default == "ron" else "ron"
    g = parser.add_argument_group(f"the win ({where})")
    # None when not given, so that `check PHOTO` can tell a flag from --context and its defaults
    g.add_argument("--ruleset", choices=("riichi", "mcr"), help="default riichi")
    g.add_argument("--win", choices=("tsumo", "ron"),
                   help=f"self-drawn (tsumo) or on a discard (ron); default {win_default}, said in "
                        f"the report (--win {other} otherwise)")
    g.add_argument("--seat", choices=tuple("ESWN"), help="seat wind; E is the dealer (default E)")
    g.add_argument("--context", metavar="JSON|FILE",
                   help="the table's facts as request keys (docs/hand-json.md) other than the "
                        "tiles: a JSON object, or a file holding one; a flag given wins")
    g.add_argument("--round", choices=tuple("ESWN"), help="round (prevalent) wind (default E)")
    g.add_argument("--last-tile", action="store_true",
                   help="won on the last wall tile or its discard (haitei/houtei; MCR Last Tile Draw/Claim)")
    g.add_argument("--replacement", "--rinshan", action="store_true",
                   help="won on a kan replacement tile (rinshan kaihou; Out with Replacement Tile)")
    g.add_argument("--robbing-kong", "--chankan", action="store_true",
                   help="won by robbing a kan (chankan; Robbing the Kong)")
    g = parser.add_argument_group(f"riichi only ({where})")
    # a switch, not an option with a value: `score --riichi hand.jpg` must not take the photo
    # for the value; `--riichi double` is read as --double-riichi (riichi_words, before parsing)
    g.add_argument("--riichi", action="store_const", const="riichi", default="none",
                   help="riichi declared (default none); --riichi double as --double-riichi")
    g.add_argument("--double-riichi", action="store_true", help="double riichi declared (= --riichi double)")
    g.add_argument("--ippatsu", action="store_true", help="won within the first go-around after riichi")
    g.add_argument("--tenhou", action="store_true", help="dealer's win on the first draw")
    g.add_argument("--chiihou", action="store_true", help="non-dealer's win on the first draw")
    g.add_argument("--dora", action="append", metavar="TILES",
                   help="dora indicators, kan dora included: 4m7z, or --dora 4m --dora 7z" + dora_help)
    g.add_argument("--ura", action="append", metavar="TILES",
                   help="ura dora indicators (count only with riichi); repeatable as --dora")
    g.add_argument("--honba", type=int, help="counters on the table (default 0)")
    g.add_argument("--sticks", type=int, help="riichi sticks on the table (default 0)")
    add_rule_arguments(parser.add_argument_group("riichi table rules (defaults: the tournament-common ones)"))
    g = parser.add_argument_group(f"MCR only ({where})")
    g.add_argument("--flowers", type=int, help="flower and season tiles (default 0" + flowers_help + ")")
    g.add_argument("--last-copy", action="store_true", help="the winning tile was the last of its kind (Last Tile)")


# --context's keys -> (the flag's dest, its value's type): a typed hand's or a hand in play's
# facts, as score, check PHOTO, stream and batch take them (docs/hand-json.md)
_CONTEXT_FLAGS = {"ruleset": ("ruleset", str), "win": ("win", str), "seat_wind": ("seat", str),
                  "round_wind": ("round", str), "last_wall_tile": ("last_tile", bool),
                  "replacement_tile": ("replacement", bool), "robbing_kong": ("robbing_kong", bool),
                  "ippatsu": ("ippatsu", bool), "tenhou": ("tenhou", bool), "chiihou": ("chiihou", bool),
                  "dora_indicators": ("dora", str), "ura_dora_indicators": ("ura", str),
                  "honba": ("honba", int), "riichi_sticks": ("sticks", int), "flowers": ("flowers", int),
                  "last_copy": ("last_copy", bool), "riichi": ("riichi", str),
                  "win_tile_shown": ("hidden_win_tile", bool), "rules": ("rules", dict)}
_CONTEXT_RULES = {"aka": ("no_aka", bool), "open_tanyao": ("no_open_tanyao", bool),
                  "kiriage": ("kiriage", bool), "double_yakuman": ("double_yakuman", bool),
                  "kazoe": ("kazoe", str), "double_wind_pair_fu": ("double_wind_fu", int)}
_HAND_KEYS = ("concealed", "melds", "win_tile")


def context_into_args(args) -> None:
    """``--context`` on a typed hand (``hand``/``check --text``, ``waits``): each key sets its
    flag where the flag was not given (a flag given wins, as on ``score``). Raises HandError
    naming the key for one that is no table fact, or of the wrong type."""
    from scoring.hand import HandError
    from .context import UsageError, load_context

    try:
        ctx = load_context(getattr(args, "context", None))
    except UsageError as exc:
        raise HandError(str(exc)) from None
    for key, value in ctx.items():
        if key in _HAND_KEYS:
            raise HandError(f"--context: {key!r} is the hand, not a table fact: type the hand "
                            "with --text")
        if key not in _CONTEXT_FLAGS or not hasattr(args, _CONTEXT_FLAGS[key][0]) and key != "rules":
            raise HandError(f"--context: unknown key {key!r} (the keys of docs/hand-json.md other "
                            "than the tiles)")
        dest, kind = _CONTEXT_FLAGS[key]
        if key == "rules":
            if not isinstance(value, dict):
                raise HandError("--context: rules: a JSON object such as {\"aka\": false}")
            _rules_into_args(args, value)
            continue
        _fact_into_args(args, key, dest, kind, value)


def _fact_into_args(args, key: str, dest: str, kind: type, value) -> None:
    from scoring.hand import HandError

    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise HandError(f"--context: {key}: {json.dumps(value)[:40]} is not a "
                        f"{ {str: 'string', bool: 'true or false', int: 'whole number'}[kind]}")
    if key == "riichi":
        if args.riichi == "none" and not args.double_riichi:
            args.riichi, args.double_riichi = (("none", True) if value == "double"
                                               else ("none", False) if value == "none" else (value, False))
        return
    if key == "win_tile_shown":
        args.hidden_win_tile = args.hidden_win_tile or not value
        return
    if key in ("dora_indicators", "ura_dora_indicators"):
        if not getattr(args, dest):
            setattr(args, dest, [value])
        return
    if getattr(args, dest) in (None, False):
        setattr(args, dest, value)


def _rules_into_args(args, rules: dict) -> None:
    from scoring.hand import HandError

    defaults = {"no_aka": False, "no_open_tanyao": False, "kiriage": False,
                "double_yakuman": False, "kazoe": "yakuman", "double_wind_fu": 4}
    for key, value in rules.items():
        if key not in _CONTEXT_RULES:
            raise HandError(f"--context: rules: unknown key {key!r}")
        dest, kind = _CONTEXT_RULES[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise HandError(f"--context: rules: {key}: {json.dumps(value)[:40]} is not of the "
                            "right type (docs/hand-json.md)")
        if getattr(args, dest) == defaults[dest]:
            setattr(args, dest, (not value) if dest.startswith("no_") else value)


def riichi_words(argv: list[str]) -> list[str]:
    """``argv`` with ``--riichi double`` (or ``=double``) as ``--double-riichi``, ``--riichi
    riichi`` as ``--riichi`` and ``--riichi none`` dropped: every verb takes both spellings
    while ``--riichi`` stays a switch that never eats the next argument (a photo)."""
    out, i = [], 0
    while i < len(argv):
        word = argv[i]
        if word == "--":                      # what follows is positional
            return out + argv[i:]
        value = word.partition("=")[2] if word.startswith("--riichi=") else None
        if value is None and word == "--riichi" and argv[i + 1:i + 2] in (["none"], ["riichi"], ["double"]):
            value, i = argv[i + 1], i + 1
        if value is None:
            out.append(word)
        elif value in ("riichi", "double", "none"):
            out += {"riichi": ["--riichi"], "double": ["--double-riichi"], "none": []}[value]
        else:
            out.append(word)                  # argparse names the bad value
        i += 1
    return out


def riichi_from_flags(args) -> str:
    """``none``, ``riichi`` or ``double`` from ``--riichi [double]`` and ``--double-riichi``;
    HandError for ``--riichi`` (a plain riichi) with ``--double-riichi``: which was it?"""
    level = getattr(args, "riichi", None) or "none"
    if getattr(args, "double_riichi", False):
        if level == "riichi":
            from scoring.hand import HandError
            raise HandError("give --riichi or --double-riichi, not both")
        return "double"
    return level


def assumed_line(args, ruleset: str) -> str | None:
    """``Assumed: …`` naming each default a ``--text`` report rests on (the ruleset, ron, the
    East seat, a dealer's payment, the East round), worded as ``tilescope score`` words its
    own (tsumo there): printed first, so a wrong assumption is seen before the value."""
    assumed = [what for given, what in (
        (args.ruleset, "riichi rules (--ruleset mcr for Chinese Official)"),
        (args.win, "won on a discard (--win tsumo if self-drawn)"),
        (args.seat, "seat East" + (", the dealer" if ruleset == "riichi" else "") + " (--seat)"),
        (args.round, "round East (--round)")) if given is None]
    return f"Assumed: {'; '.join(assumed)}" if assumed else None


def request_from_args(args, short_hand: bool = False):
    """The HandRequest of ``--text`` and the flags (:func:`scoring.request_from_text`);
    ``short_hand``: a hand one tile short is a hand (``check`` rules on it), not one typed
    without its winning tile."""
    from scoring.hand import RiichiRules
    from scoring.request import request_from_text
    from scoring.tiles import parse_tiles

    return request_from_text(
        args.text, win_tile=args.win_tile, short_hand=short_hand,
        ruleset=args.ruleset or "riichi", win=args.win or "ron", seat_wind=args.seat or "E",
        round_wind=args.round or "E", last_wall_tile=args.last_tile,
        replacement_tile=args.replacement, robbing_kong=args.robbing_kong, riichi=riichi_from_flags(args),
        ippatsu=args.ippatsu, tenhou=args.tenhou, chiihou=args.chiihou,
        # parsed here: a bad --dora is named by its tiles, as the command line always said it
        dora_indicators=tuple(parse_tiles("".join(args.dora or ()))),
        ura_dora_indicators=tuple(parse_tiles("".join(args.ura or ()))),
        honba=args.honba or 0, riichi_sticks=args.sticks or 0,
        rules=RiichiRules(aka=not args.no_aka, open_tanyao=not args.no_open_tanyao,
                          kiriage=args.kiriage, double_yakuman=args.double_yakuman,
                          kazoe=args.kazoe, double_wind_pair_fu=args.double_wind_fu),
        flowers=args.flowers or 0, last_copy=args.last_copy, win_tile_shown=not args.hidden_win_tile,
    )


# flags a typed hand takes under one ruleset only, and that one
_ONE_RULESET_FLAGS = {"last_copy": "mcr", "hidden_win_tile": "mcr", "tournament": "riichi"}
_RULESET_WORDS = {"mcr": ("MCR", "an MCR"), "riichi": ("riichi", "a riichi")}


def ignored_flags(args, ruleset: str) -> list[str]:
    """Notes for the flags given that the hand's ruleset does not use (a referee who forgot
    ``--ruleset mcr`` saw ``--last-copy`` change nothing, without a word)."""
    notes = []
    for name, only in _ONE_RULESET_FLAGS.items():
        if getattr(args, name, False) and ruleset != only:
            flag = "--" + name.replace("_", "-")
            (word, a_hand), (here, _) = _RULESET_WORDS[only], _RULESET_WORDS[ruleset]
            notes.append(f"note: {flag} is for {word} hands; ignored under {here} (pass "
                         f"--ruleset {only} for {a_hand} hand)")
    return notes


def both_file_and_text(file: str) -> str:
    """The error for a FILE given with ``--text``: most often a second tile code after a flag
    (``--dora 4m 7z``, ``--discards 1p 2m``), which argparse takes for the FILE."""
    import os

    from scoring.tiles import TileError, parse_tiles
    if file.strip() and not os.path.exists(file):
        try:
            parse_tiles(file)
            return (f"{file!r} is not a file but looks like tiles: write a flag's tiles as one "
                    f"string (e.g. --dora 4m7z, --discards 1p2m)")
        except TileError:
            pass
    return "give either FILE (JSON Lines) or --text, not both"


def _run_text(args) -> int:
    from scoring.api import score_hand
    from scoring.hand import HandError
    from scoring.tiles import TileError

    try:
        context_into_args(args)
        req = request_from_args(args)
    except (HandError, TileError) as exc:
        print(f"tilescope hand: {exc}", file=sys.stderr)
        return 2
    result = score_hand(req).to_json()
    if result.get("error"):
        print(f"tilescope hand: {result['error']}", file=sys.stderr)
        return 2
    for note in ignored_flags(args, req.ruleset):
        print(f"tilescope hand: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        line = assumed_line(args, req.ruleset)
        print((line + "\n" if line else "") + format_report(req, result))
    return 0


def _plain_error(message: str) -> dict:
    return {"valid": False, "error": message}


# longest line read (bytes, docs/hand-json.md): a request is a few hundred bytes, and a 50 MB
# line cost 15 s and 519 MB before it was refused
MAX_LINE_BYTES = 1024 * 1024
_CHUNK = 64 * 1024
_LINE_END = re.compile(rb"\r\n|\r|\n")


def _lines(stream, most: int):
    """The lines of binary ``stream`` (ends LF, CRLF or CR) as bytes, each read as it comes
    (``read1``: a pipe's first line is answered before the next is written); a line over
    ``most`` bytes is its length (an int) instead, its bytes dropped as they arrive, so no
    more than ``most`` bytes of one line are ever held."""
    read = stream.read1 if hasattr(stream, "read1") else stream.read
    held, dropped, cr_last = bytearray(), 0, False
    while True:
        chunk = read(_CHUNK)
        if not chunk:
            break
        if cr_last and chunk[:1] == b"\n":      # a CRLF split between two reads
            chunk = chunk[1:]
        cr_last = chunk[-1:] == b"\r"
        start = 0
        for end in _LINE_END.finditer(chunk):
            piece = chunk[start:end.start()]
            yield dropped + len(held) + len(piece) if dropped or len(held) + len(piece) > most \
                else bytes(held + piece)
            held, dropped, start = bytearray(), 0, end.end()
        rest = chunk[start:]
        if dropped or len(held) + len(rest) > most:
            dropped += len(held) + len(rest)
            held = bytearray()
        else:
            held += rest
    if held or dropped:
        yield dropped + len(held) if dropped else bytes(held)


def run_json_lines(stream, out, answer=None, unreadable=_plain_error) -> None:
    """JSON Lines: one result per request line, in order; a bad line gets its own error result.

    ``stream``: a binary stream (a file opened ``rb``, ``sys.stdin.buffer``) or lines of text.
    Lines end at LF, CRLF or CR; a line that is not UTF-8, holds a NUL byte or is over
    ``MAX_LINE_BYTES`` gets an error result like any other bad line (the rest of the lines
    are still answered), and a UTF-8 byte order mark before a line (Windows editors write
    one) is skipped.
    ``answer``: dict -> dict that never raises (default ``scoring.api.score_json``);
    ``unreadable``: the result of a line that is not UTF-8 or not JSON, from its message.
    """
    for _, result in _results(stream, answer, unreadable):
        _write(out, result)


def _write(out, result: dict) -> None:
    out.write(json.dumps(result, ensure_ascii=False) + "\n")
    out.flush()


def _results(stream, answer=None, unreadable=_plain_error):
    """``(problem, result)`` for each non-blank line of ``stream`` (as :func:`run_json_lines`
    reads it): ``problem`` the words of a line that is no JSON text (``line 3: not JSON: …``),
    None for a JSON line, whose result is ``answer``'s."""
    if answer is None:
        from scoring.api import score_json as answer

    binary = hasattr(stream, "readinto")
    for number, line in enumerate(_lines(stream, MAX_LINE_BYTES) if binary else stream, start=1):
        if isinstance(line, int) or (not binary and len(line) > MAX_LINE_BYTES):
            size = line if isinstance(line, int) else len(line.encode("utf-8", "surrogateescape"))
            problem = f"a line of {size:,} bytes, over the limit of {MAX_LINE_BYTES:,} bytes per line"
            yield f"line {number}: {problem}", unreadable(problem)
            continue
        # bytes that are not UTF-8 kept as surrogates, named by _line_problem
        text = (line.decode("utf-8", "surrogateescape") if binary else line).removeprefix("\ufeff")
        if not text.strip():
            continue
        obj, problem = _parsed_line(text)
        if problem is not None:
            yield f"line {number}: {problem}", unreadable(problem)
        else:
            yield None, answer(obj)


def _parsed_line(line: str) -> tuple[object, str | None]:
    """One non-blank JSON Lines line as ``(value, None)``, or ``(None, why it is no JSON)``."""
    bad = next((i for i, ch in enumerate(line) if "\udc80" <= ch <= "\udcff"), None)
    if bad is not None:         # a byte that is not UTF-8, kept by surrogateescape
        return None, f"not UTF-8 text: byte 0x{ord(line[bad]) - 0xDC00:02x} at column {bad + 1}"
    if "\x00" in line:          # binary data, not a JSON text (json would say "Expecting value")
        return None, f"not text: a NUL byte at column {line.index(chr(0)) + 1}"
    from vision.common.jsontext import load_json

    try:
        return load_json(line), None
    except ValueError as exc:
        return None, f"not JSON: {exc}"


def _not_json_lines(head: bytes) -> str | None:
    """Why a stream starting with ``head`` is no JSON Lines at all, or None: a photo or UTF-16
    text whose first bytes are no text (so no line of it can be answered: one message, not
    one error per line). Text that only starts as a format does (a line ``BMW``, ``%PDF``) and
    a NUL byte further on are judged line by line, as any bad line is."""
    from vision.common.filekind import not_text_reason

    why = not_text_reason(head)
    if why is None or why.startswith("binary data"):
        return None
    try:        # incremental: a character cut at the end of head is no fault
        codecs.getincrementaldecoder("utf-8")().decode(head)
    except UnicodeDecodeError:
        return why
    return why if b"\x00" in head else None


def run_json_file(verb: str, path: str | None, answer=None, unreadable=_plain_error) -> int:
    """Answer the JSON Lines in ``path`` (``None`` or ``-``: stdin) on stdout with ``answer``
    (see :func:`run_json_lines`). Returns the exit code: 2 if the file cannot be read or is
    plainly no JSON Lines text (a photo, UTF-16 text: one message, not one error result per
    line)."""

    def answer_all(fh, name: str) -> int:
        why = _not_json_lines(fh.peek(16)[:16])
        if why:
            photo = " (score a photo with `tilescope score` or `tilescope check PHOTO`)" \
                if why.endswith(("image, not JSON Lines text", "document, not JSON Lines text")) else ""
            print(f"tilescope {verb}: {name} is {why}{photo}", file=sys.stderr)
            return 2
        return _answer_file(verb, fh, name, answer, unreadable)

    if path in (None, "-"):
        if sys.stdin is None:
            print(f"tilescope {verb}: standard input is closed: give a FILE or --text", file=sys.stderr)
            return 2
        return answer_all(sys.stdin.buffer, "standard input")
    import os

    if os.path.isdir(path):         # said as `score FOLDER` says it, not "Is a directory"
        print(f"tilescope {verb}: {path}: is a folder, not an image file or JSON Lines file "
              f"(a folder of photos: tilescope batch {path} --out results.jsonl)", file=sys.stderr)
        return 2
    try:
        with open(path, "rb") as fh:
            return answer_all(fh, path)
    except OSError as exc:
        print(f"tilescope {verb}: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2


# bad lines held before the first JSON line: that many and none JSON is a file of another kind
HELD_BAD_LINES = 100


def _answer_file(verb: str, fh, name: str, answer, unreadable) -> int:
    """Answer the lines of ``fh`` on stdout; a line that is no JSON is answered once a JSON
    line shows the file is JSON Lines. Exit code 2 with one message when no line of it is JSON
    (a text file given by mistake: no error result per line), 0 with "no hand" said on stderr
    for a file without a line (an empty file of hands is no mistake)."""
    held: list[dict] = []
    first_problem, seen_json = None, False
    for problem, result in _results(fh, answer, unreadable):
        if seen_json:
            _write(sys.stdout, result)
        elif problem is None:
            seen_json = True
            for bad in held:
                _write(sys.stdout, bad)
            _write(sys.stdout, result)
        else:
            first_problem = first_problem or problem
            held.append(result)
            if len(held) >= HELD_BAD_LINES:
                break
    if seen_json:
        return 0
    if first_problem is not None:
        print(f"tilescope {verb}: {name} is not JSON Lines ({first_problem}; docs/hand-json.md)",
              file=sys.stderr)
        return 2
    print(f"tilescope {verb}: no hand in {name}", file=sys.stderr)
    return 0


def run(args) -> int:
    if args.text is not None:
        if args.file:
            print(f"tilescope hand: {both_file_and_text(args.file)}", file=sys.stderr)
            return 2
        return _run_text(args)
    if args.context:
        print("tilescope hand: --context goes with --text: each JSON Lines request carries its "
              "own keys", file=sys.stderr)
        return 2
    return run_json_file("hand", args.file)
