"""``tilescope waits``: a hand in play, its shanten, waits and what each win would be worth.

- ``--text "123456789m1122p"``: 13 tiles (less 3 per ``+meld``): the shanten; tenpai, each
  wait with the copies not yet seen and its value by ron and by tsumo under the table flags
  (``--riichi``, ``--dora``, ``--seat``, ``--round``...), furiten against ``--discards``, and
  "no yaku" said plainly. 14 tiles (the tile just drawn): each discard with the shanten it
  leaves and the tiles that then help (kinds and copies left), waits valued for a discard
  that leaves the hand tenpai.
- ``PHOTO``: the same for the hand read from a photo (13 or 14 tiles, melds as the layout
  groups them, the dora row when one is seen), after the tiles read, numbered as ``tilescope
  score`` numbers them: ``--fix N=TILE`` and ``--meld N-M=TYPE`` correct the reading.

``--json`` prints the result of ``docs/waits-json.md``. Exit codes: 0 done, 1 a photo whose
tiles make no hand, 2 bad usage, a missing or unreadable photo, a ``--fix``/``--meld`` that does
not fit it, or a malformed or impossible hand (message on stderr).
"""
from __future__ import annotations

import argparse
import json
import sys

HELP = "shanten, waits and their values for a hand in play (--text or a photo)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from .hand import TEXT_SYNTAX, add_table_arguments
    from .score import add_correction_arguments

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = TEXT_SYNTAX.replace("the LAST tile written being the winning tile,\n", "13 or 14 of them,\n") \
        .replace("8s wins (a pair wait)", "a hand and a pon").split("  meld types")[0]
    parser.add_argument("photo", nargs="?", metavar="PHOTO", help="a photo of the hand in play")
    parser.add_argument("--text", metavar="HAND", help="the hand typed: 13 or 14 tiles less 3 per +meld")
    parser.add_argument("--json", action="store_true", help="print the JSON result (docs/waits-json.md)")
    parser.add_argument("--discards", default="", metavar="TILES",
                        help="the player's own discards, mpsz (riichi furiten; counted as seen)")
    add_table_arguments(parser, "each wait is valued both by ron and by tsumo", win_default="ron")
    g = parser.add_argument_group("reading a photo")
    g.add_argument("--weights", metavar="PATH", help="detector weights (default the bundled model)")
    g.add_argument("--set", metavar="NAME|FILE", help="read with a learned tile set (tilescope set)")
    add_correction_arguments(g)


def context_from_flags(args) -> dict:
    """The table context (HandRequest fields other than the hand and the win) of the flags."""
    from scoring.hand import RiichiRules
    from scoring.tiles import parse_tiles
    from .hand import riichi_from_flags

    ctx = {"ruleset": args.ruleset or "riichi", "seat_wind": args.seat or "E",
           "round_wind": args.round or "E", "last_wall_tile": args.last_tile,
           "replacement_tile": args.replacement, "robbing_kong": args.robbing_kong,
           "riichi": riichi_from_flags(args), "ippatsu": args.ippatsu, "tenhou": args.tenhou,
           "chiihou": args.chiihou, "dora_indicators": tuple(parse_tiles("".join(args.dora or ()))),
           "ura_dora_indicators": tuple(parse_tiles("".join(args.ura or ()))),
           "honba": args.honba or 0, "riichi_sticks": args.sticks or 0,
           "flowers": args.flowers or 0, "last_copy": args.last_copy}
    rules = RiichiRules(aka=not args.no_aka, open_tanyao=not args.no_open_tanyao, kiriage=args.kiriage,
                        double_yakuman=args.double_yakuman, kazoe=args.kazoe,
                        double_wind_pair_fu=args.double_wind_fu)
    if rules != RiichiRules():
        ctx["rules"] = rules
    if ctx["ruleset"] == "mcr":     # riichi fields left at their defaults: the scorer refuses others
        for name, default in (("riichi", "none"), ("ippatsu", False), ("tenhou", False),
                              ("chiihou", False), ("dora_indicators", ()), ("ura_dora_indicators", ()),
                              ("honba", 0), ("riichi_sticks", 0)):
            if ctx[name] == default:
                del ctx[name]
    return ctx


def _text_hand(text: str):
    from scoring.request import parse_text_hand

    # every written tile is in the hand: a winning tile named apart keeps parse_text_hand from
    # taking the last one (a hand in play has no winning tile yet; this one is not used)
    concealed, melds, _ = parse_text_hand(text, win_tile="1z")
    return concealed, melds


def _split(pay: dict) -> str:
    """A tsumo's payment as players say it: ``1300/2600`` (non-dealers/dealer), ``2600 all``."""
    if "from_each" in pay:
        return f"{pay['from_each']} all"
    if "from_dealer" in pay:
        return f"{pay['from_non_dealer']}/{pay['from_dealer']}"
    return ""


def _value(result: dict) -> str:
    """One win in a few words: ``3900 (2 han 40 fu: ittsu)``, ``no yaku``, MCR points; a tsumo
    with its split, ``5200 = 1300/2600 (...)``."""
    if "han" in result:
        from scoring.riichi.limits import value_words
        if not result.get("valid"):
            return "no yaku"
        d = result.get("dora") or {}
        words = value_words(result)
        # a yakuman's value already names its yakuman: naming them again repeated the line
        names = [y["name"] for y in result["yaku"] if y["han"] < 13 or y["name"] not in words]
        yaku = ", ".join(names + [f"{name} {d[key]}" for key, name in
                                  (("dora", "dora"), ("aka", "aka"), ("ura", "ura")) if d.get(key)])
        split = _split(result["payment"])
        return (f"{result['payment']['total']}" + (f" = {split}" if split else "")
                + f" ({words}" + (f": {yaku}" if yaku else "") + ")")
    total = result.get("total_without_flowers", result.get("total"))
    fans = ", ".join(f["name"] + (f" x{f['count']}" if f.get("count", 1) > 1 else "") for f in result.get("fans", ()))
    return f"{total} points" + (f" ({fans})" if fans else "") + ("" if result.get("valid") else ": under 8, no win")


def _wait_line(w, indent: str) -> str:
    """One wait: its copies left, then its ron and tsumo values, or why it cannot be won."""
    from scoring.tiles import tile
    from scoring.waits import FURITEN_NO_RON

    head = f"{indent}{tile(w.kind)!s:<3} {w.left} left   "
    if w.no_copy_left:
        return head + "no copy left: all four are in sight, no win on it"
    ron = FURITEN_NO_RON if w.furiten else _value(w.ron)
    return head + f"ron {ron}   tsumo {_value(w.tsumo)}"


def _tiles_left(accept) -> str:
    from scoring.tiles import tile
    return " ".join(f"{tile(a.kind)}({a.left})" for a in accept) + f"  = {sum(a.left for a in accept)} tiles"


def _words(s: int) -> str:
    return {-1: "complete", 0: "tenpai"}.get(s, f"{s}-shanten")


def format_report(report) -> str:
    """The readable report of a :class:`scoring.waits.WaitsReport`."""
    from scoring.tiles import to_mpsz, to_unicode, tile

    melds = "".join(f"  +{m.type} {to_mpsz(m.tiles)}" for m in report.melds)
    glyphs = "  ".join([to_unicode(sorted(report.concealed, key=lambda t: t.kind))]
                       + [to_unicode(m.tiles) for m in report.melds])
    lines = [f"Hand:    {to_mpsz(report.concealed)}{melds}  ({report.tiles} tiles)",
             f"         {glyphs}",
             f"Shanten: {report.shanten} ({_words(report.shanten)})"]
    if report.tiles == 13:
        if report.waits:
            lines.append(f"Waits:   {' '.join(str(tile(w.kind)) for w in report.waits)}  "
                         f"({sum(w.left for w in report.waits)} tiles left)")
            for w in report.waits:
                lines.append(_wait_line(w, "  "))
                if w.note and not w.no_copy_left:
                    lines.append(f"          {w.note}")
        elif report.accept:
            lines.append(f"Helps:   {_tiles_left(report.accept)}")
        if report.ruleset == "riichi" and report.shanten == 0:
            lines.append("Furiten: " + ("yes" if report.furiten else "no" if report.discards_given
                                        else "not checked (no --discards)"))
    else:
        lines.append("Discards (best first):")
        for d in report.discards:
            line = f"  {d.tile!s:<3} -> {_words(d.shanten):<11} {_tiles_left(d.accept)}"
            if d.furiten:
                line += "  FURITEN"
            lines.append(line)
            for w in d.waits:
                lines.append(_wait_line(w, "        wait ")
                             + (f"   ({w.note})" if w.note and not w.no_copy_left else ""))
    lines += [f"Note:    {n}" for n in report.notes]
    return "\n".join(lines)


def _photo_layout(args, image):
    """The layout of the hand read from ``image`` (``args.photo`` loaded), ``--fix`` and
    ``--meld`` applied; PhotoError when a fix or meld does not fit, FixSpecError for a
    malformed one."""
    from vision.layout.fixspec import parse_fixes, parse_melds
    from vision.photo.pipeline import layout_in_play

    fixes, melds = parse_fixes(args.fix), parse_melds(args.meld)
    return layout_in_play(image, ruleset=args.ruleset or "riichi", weights=args.weights,
                          tile_set=args.set, fixes=fixes or None, melds=melds or None)


def _photo_lines(args, image, layout, warnings) -> list[str]:
    """The tiles read under the header ``tilescope score`` prints (the file's name, the size
    read), one line per group with their reading-order numbers (the N of ``--fix N=TILE``),
    and the layout's warnings, each fix said once."""
    import os

    from .score import _read_smaller
    from vision.photo.report import group_lines, warning_lines

    name = "standard input" if args.photo == "-" else os.path.basename(args.photo)
    h, w = image.shape[:2]
    lines = [f"{name}{_read_smaller(args.photo, image)}: {w}x{h} px, {len(layout.order)} tiles read"] \
        + group_lines(layout)
    if warnings:
        lines += ["Warnings:"] + warning_lines(warnings)
    return lines


def _flag_words(message: str) -> str:
    """A scoring message naming request fields, in this command's flag words."""
    return message.replace("dora_indicators:", "--dora:").replace("ura_dora_indicators:", "--ura:") \
        .replace("give seen tiles as discards", "give seen tiles with --discards")


def run(args) -> int:
    from scoring.hand import HandError
    from scoring.tiles import TileError, parse_tiles
    from scoring.waits import hand_waits
    from .hand import context_into_args
    from vision.read.imageio import load_image
    from vision.photo.pipeline import hand_in_play

    if (args.text is None) == (args.photo is None):
        print("tilescope waits: give a PHOTO or --text, one of the two", file=sys.stderr)
        return 2
    if args.text is not None and (args.fix or args.meld):
        print(f"tilescope waits: {'--fix' if args.fix else '--meld'} corrects a photo's reading; "
              "with --text, type the hand as it is", file=sys.stderr)
        return 2
    warnings, photo_lines = [], []
    win_flag = args.win               # --context's win is no flag typed: no note for it
    try:
        context_into_args(args)
        ctx = context_from_flags(args)
        discards = tuple(parse_tiles(args.discards))
        if args.text is not None:
            concealed, melds = _text_hand(args.text)
        else:
            try:
                # a missing or unreadable file, or a --fix/--meld the photo has no place for:
                # bad input (2), as `tilescope score` says
                image = load_image(args.photo)
                layout = _photo_layout(args, image)
            except ValueError as exc:       # FixSpecError, ImageError, PhotoError
                print(f"tilescope waits: {exc}", file=sys.stderr)
                return 2
            try:
                concealed, melds, dora, warnings = hand_in_play(layout)
            except ValueError as exc:       # PhotoError: tiles read that make no hand
                print(f"tilescope waits: {exc}", file=sys.stderr)
                return 1
            photo_lines = _photo_lines(args, image, layout, warnings)
            if dora and not ctx.get("dora_indicators") and ctx["ruleset"] == "riichi":
                ctx["dora_indicators"] = dora
        report = hand_waits(concealed, melds, ctx, discards, discards_given=bool(args.discards))
    except (HandError, TileError) as exc:
        print(f"tilescope waits: {_flag_words(str(exc))}", file=sys.stderr)
        return 2
    if win_flag:
        print("tilescope waits: note: each wait is valued both by ron and by tsumo; --win changes nothing",
              file=sys.stderr)
    if args.json:
        out = report.to_json()
        if args.photo is not None:
            out["warnings"] = [w.to_json() for w in warnings]
        print(json.dumps(out, ensure_ascii=False))
    else:
        from .hand import assumed_line
        args.win = "ron"            # both are shown: nothing assumed about the win
        line = assumed_line(args, report.ruleset)
        text = "\n".join(photo_lines + ([""] if photo_lines else []) + ([line] if line else [])
                         + [format_report(report)])
        print(text)
    return 0
