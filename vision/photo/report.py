"""Readable text for a scored hand, a verdict and a photo: what was seen, how it was grouped,
the value, the warnings.

Pure formatting over plain values (no OpenCV), shared by the commands and the photo report:
:func:`format_report` is the value of a hand (yaku / fans, fu, payment) as ``tilescope hand``
prints it, :func:`format_verdict` a ruling as ``tilescope check`` prints it, and
:func:`photo_report` a photo as ``tilescope score`` prints it, using both, so a typed hand and
a photographed one read the same. It imports no command module (``vision.cli.commands`` imports
it).
"""
from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING

from scoring.tiles import TileError, parse_tile, to_mpsz, to_unicode

if TYPE_CHECKING:       # annotations only: ``tilescope hand`` formats its reports without the layout
    from vision.layout import Group, Layout, LayoutWarning

_KIND_NAMES = {"concealed": "concealed", "win": "winning tile", "meld": "meld",
               "dora": "dora row", "flower": "flowers", "loose": "not counted"}


def _glyphs(codes: list[str]) -> str:
    out = []
    for c in codes:
        try:
            out.append(parse_tile(c).glyph)
        except TileError:
            out.append("\U0001F02B")      # a tile back
    return "".join(out)


def _numbers(layout: Layout, g: Group) -> str:
    nums = [layout.number(d) for d in g.detections]
    # runs of consecutive numbers: a group the user declared (--meld) need not be one run
    runs: list[list[int]] = []
    for n in sorted(nums):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ",".join(f"{r[0]}" if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def group_lines(layout: Layout, win_tile: str | None = None) -> list[str]:
    """One line per group: its kind, the reading-order numbers (for ``--fix N=TILE``), mpsz and
    Unicode tiles, and for melds the type, called tile and who it came from. ``win_tile``: the
    winning tile actually scored (``--win-tile``); when it is not the tile set apart, that tile
    is labelled ``set apart`` rather than ``winning tile``."""
    lines = []
    width = max([6] + [len(_numbers(layout, g)) for g in layout.groups])
    for g in layout.groups:
        text = g.mpsz()
        kind = _KIND_NAMES[g.kind]
        if g.kind == "win" and win_tile and _same_tile(g.tiles[0], win_tile) is False:
            kind = "set apart"
        if g.kind == "flower":
            # by name, as players call them (Plum, Spring), each code kept for --fix N=TILE
            text = ", ".join(_flower_name(c) for c in g.tiles)
        if g.kind == "meld":
            text = f"{g.meld_type} {text}"
            if g.called:
                text += f", called {g.called}" + (f" from {g.from_}" if g.from_ else "")
                if g.from_ and not any(d.sideways for d in g.detections):
                    # no turned tile was seen: a chi comes from the left by rule, a pon or
                    # kan's discarder is a guess from the tiles' shapes (layout._infer_called)
                    text += " (by rule)" if g.meld_type == "chi" else " (guessed)"
        lines.append(f"  {kind:<13} {_numbers(layout, g):<{width}} {text:<34} {_glyphs(g.tiles)}")
    return lines


def _flower_name(code: str) -> str:
    """``Plum (1f)`` for a flower's code (scoring.tiles.FLOWER_NAMES); the code alone if unknown."""
    try:
        return f"{parse_tile(code).name} ({code})"
    except TileError:
        return code


def _same_tile(a: str, b: str) -> bool | None:
    """Whether two tile codes name the same tile (a red five is its own tile); None if unknown."""
    try:
        return parse_tile(a) == parse_tile(b)
    except TileError:
        return None


def warning_lines(warnings: list[LayoutWarning]) -> list[str]:
    """``  ! message  (fix: --fix 3=5p)`` per warning; the fix is not repeated when the message
    already names it."""
    return [f"  ! {w.message}" + (f"  (fix: {w.fix})" if w.fix and w.fix not in w.message else "")
            for w in warnings]


def _hand_line(req) -> str:
    """The hand of a ``scoring.hand.HandRequest`` in one line, tiles in the order laid."""
    melds = "".join(f"  +{m.type} {to_mpsz(m.tiles, sort=False)}" for m in req.melds)
    return f"Hand:  {to_mpsz(req.concealed, sort=False)} + {req.win_tile}{melds}"


# A correction can turn the reading direction; the tiles keep their first numbers so that a
# --fix read off the report names the same tile (vision.layout.reparse_fixed).
NUMBERED_AS_FIRST_READ = (", tiles numbered as first read, the other way round (--fix uses "
                          "these numbers)")


def _numbered_backwards(layout: Layout) -> bool:
    """The hand's tiles, in the order the layout reads them, carry falling numbers."""
    seq = [layout.number(d) for g in layout.groups if g.kind in ("concealed", "win", "meld")
           for d in g.detections]
    return len(seq) > 1 and seq[0] > seq[-1]


_RULE_WORDS = {("aka", False): "no red fives", ("open_tanyao", False): "no open tanyao",
               ("kiriage", True): "kiriage mangan", ("double_yakuman", True): "double yakuman",
               ("kazoe", "sanbaiman"): "kazoe sanbaiman", ("kazoe", "none"): "counted han uncapped (26 a double yakuman)",
               ("double_wind_pair_fu", 2): "double-wind pair 2 fu"}


def _rules_text(rules) -> str:
    """The table rules a request plays under (``scoring.hand.RiichiRules``) where they differ
    from the defaults, in words (``no red fives, kiriage mangan``): a referee sees what the
    value was worked out under."""
    if rules is None:
        return ""
    chosen = [(f.name, getattr(rules, f.name)) for f in fields(rules)]
    return ", ".join(_RULE_WORDS[rule] for rule in chosen if rule in _RULE_WORDS)


# ---- the value of a hand (typed or photographed) and a verdict ----

def format_report(req, result: dict) -> str:
    """A readable report of one scored hand (``result`` is the spec's JSON result)."""
    melds = "".join(f"  +{m.type} {to_mpsz(m.tiles)}" for m in req.melds)
    lines = [
        f"Hand:  {to_mpsz(req.concealed)} + {req.win_tile}{melds}",
        f"       {to_unicode(sorted(req.concealed, key=lambda t: t.kind))} {req.win_tile.glyph}"
        + "".join(f" {to_unicode(m.tiles)}" for m in req.melds),
        f"Win:   {req.win} on {req.win_tile} ({req.win_tile.name}), seat {req.seat_wind}, round {req.round_wind}"
        + (" (dealer)" if req.is_dealer and req.ruleset == "riichi" else ""),
    ]
    if "han" in result:           # riichi
        if not result["valid"]:
            lines.append(f"NOT A VALID WIN: {result.get('reason')}")
        from scoring.riichi.limits import value_words, yaku_value_words
        for y in result["yaku"]:
            lines.append(f"  {y['name']:<28} {yaku_value_words(y['han']):>6}")
        d = result["dora"]
        for key, name in (("dora", "dora"), ("aka", "aka dora (red fives)"), ("ura", "ura dora")):
            if d[key]:             # a kind that adds nothing is left out, as yaku are
                lines.append(f"  {name:<28} {d[key]:>2} han")
        if req.ura_dora_indicators and req.riichi == "none":
            lines.append("  (ura dora indicators given, not counted: ura dora need riichi)")
        raw = sum(f["fu"] for f in result["fu_breakdown"])
        if not any(y["han"] >= 13 for y in result["yaku"]):   # a yakuman is valued without fu
            lines.append(f"Fu:    {result['fu']}" + (f" ({raw} rounded up)" if raw != result["fu"] else ""))
            for f in result["fu_breakdown"]:
                lines.append(f"  {f['reason']:<36} {f['fu']:>3}")
        if result["valid"]:
            lines.append(f"Value: {value_words(result)}")
            from scoring.riichi.limits import liability_note
            note = liability_note(req, [y["name"] for y in result["yaku"]])
            if note:
                lines.append(f"Note:  {note}")
    else:                         # MCR or another ruleset: fans / points
        if not result.get("valid"):
            lines.append(f"NOT A VALID WIN: {result.get('reason')}")
        for fan in result.get("fans", []):
            count = f" x{fan['count']}" if fan.get("count", 1) != 1 else ""
            lines.append(f"  {fan['name']:<32} {fan['points']:>3}{count}")
        if "total" in result:
            lines.append(f"Total: {result['total']} point{'' if result['total'] == 1 else 's'}")
    pay = result.get("payment")
    if pay:
        lines.append(payment_line(pay))
    return "\n".join(lines)


def payment_line(pay: dict, label: str = "Payment") -> str:
    """``Payment: from dealer 500, from non-dealer 300; total 1100`` from a result's payment
    dict (its keys in words)."""
    parts = [f"{k.replace('non_dealer', 'non-dealer').replace('_', ' ')} {v}"
             for k, v in pay.items() if k != "total"]
    return f"{label}: {', '.join(parts)}; total {pay['total']}"


def format_verdict(verdict) -> str:
    """A readable verdict: the ruling, the penalty and the explanation paragraph."""
    lines = [f"Ruling: {verdict.ruling.upper()}" + ("" if verdict.valid else " (the win does not stand)")]
    pen = verdict.penalty
    if pen:
        parts = [f"{k.replace('non_dealer', 'non-dealer').replace('_', ' ')} {v}" for k, v in pen.items()
                 if k not in ("kind", "total", "points")]
        lines.append(f"Penalty ({pen['kind']}): {', '.join(parts)}; {pen['total']} in all" if parts
                     else f"Penalty ({pen['kind']}): {pen['total']} points")
    res = verdict.result
    if verdict.valid and res and res.get("payment"):
        lines.append(payment_line(res["payment"]))
    lines.append("")
    lines.append(verdict.explanation)
    return "\n".join(lines)


# ---- a photo ----

def photo_report(photo, source: str = "photo", context_notes: list[str] | None = None) -> str:
    """The ``tilescope score`` report for a :class:`vision.photo.pipeline.PhotoResult`.

    ``source``: the photo's name for the first line. ``context_notes``: defaults that were
    assumed (``win: tsumo (default)``), printed so a wrong assumption is seen.
    """
    from scoring.verdict import Verdict

    lay = photo.layout
    hand = photo.request.hand if photo.request is not None else None
    det = photo.detections
    # a tile corrected from the reader's next guesses counts: its confidence is then the fix's
    corrected = {n for w in photo.warnings if w.code == "corrected" for n in w.tiles}
    low = sum(1 for n, d in enumerate(lay.order, start=1)
              if d.tile != "back" and (d.confidence < 0.6 or n in corrected))
    lines = [
        f"{source}: {det.width}x{det.height} px, {len(lay.order)} tiles read"
        + (f" ({low} uncertain)" if low else "")
        + (", photo taken from across the table (rows read right to left)" if lay.upside_down else "")
        + (NUMBERED_AS_FIRST_READ if _numbered_backwards(lay) else ""),
    ]
    lines += group_lines(lay, str(hand.win_tile) if hand is not None else None)
    if context_notes:
        lines.append("Assumed: " + "; ".join(context_notes))
    rules = _rules_text(hand.rules if hand is not None else None)
    if rules:
        lines.append(f"Table rules: {rules}")
    lines.append("")
    result = photo.result
    if isinstance(result, Verdict) and result.ruling:       # tilescope check PHOTO
        # the ruling first: a chombo must not read as the payment above it
        lines.append(format_verdict(result))
        if hand is not None:
            lines.append("")
            text = format_report(hand, result.result) if result.result else _hand_line(hand)
            if result.valid is False:
                text = text.replace("\nPayment: ", "\nPayment if the win stood: ")
            lines.append(text)
    elif hand is not None and not result.error:
        lines.append(format_report(hand, result.to_json()))
    elif isinstance(result, Verdict):            # check PHOTO that could not rule (held_ruling)
        lines.append(f"Cannot rule from this photo: {result.error}")
    else:
        lines.append(f"Cannot score: {result.error}")
    if photo.warnings:
        lines.append("")
        lines.append("Warnings:")
        lines += warning_lines(photo.warnings)
    return "\n".join(lines)
