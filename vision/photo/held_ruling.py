"""``tilescope check PHOTO``: a misread tile must not cost a player a penalty.

:func:`unsure_ruling` replaces a ruling against the player (chombo, false hu, no yaku,
furiten, under the MCR minimum) by "Cannot rule from this photo" when the photo's reading is in
doubt: most tiles read unsurely, the reader's next guesses make a winning hand, a tile of the
hand read under ``LOW_CONFIDENCE`` could change the ruling, or the layout itself is in doubt
(:func:`layout_doubts`). A ron on a surely read tile from the player's own discards is chombo
whatever the other tiles are.
"""
from __future__ import annotations

from scoring.verdict import Verdict

from vision.read.detections import Detections
from .joint_fix import concealed_row_sorted
from .judging import Judgement, failed
from vision.layout import LOW_CONFIDENCE, Layout, LayoutWarning


def _value_text(judgement: Judgement) -> str:
    """A scored hand's value in a few words: ``2 han 30 fu, 2000``, ``yakuman (kokushi
    musou), 32000`` or ``27 points``."""
    if hasattr(judgement, "han"):           # scoring.riichi.RiichiResult
        from scoring.riichi.limits import value_words
        # value_words words the spec's JSON result (tilescope hand's report shares it)
        return f"{value_words(judgement.to_json())}, {judgement.payment.total}"
    return f"{judgement.total} points"      # scoring.mcr.McrResult


def in_doubt(d) -> bool:
    """A face-up tile read under ``LOW_CONFIDENCE`` whose doubt could change a ruling: not a
    five that is surely a five, red or plain (its confidence and its twin's next-guess share
    together reach ``LOW_CONFIDENCE``) — red or not, a five makes the same sets, the same
    waits and the same yaku; only its dora differ."""
    sure = d.confidence
    if d.tile[0] in "05" and d.tile[1:] in ("m", "p", "s"):
        twin = ("0" if d.tile[0] == "5" else "5") + d.tile[1]
        sure += sum(p for alt, p in d.alternatives if alt == twin)
    return d.tile != "back" and sure < LOW_CONFIDENCE


def _furiten_whatever_the_tiles(layout: Layout, verdict: Verdict, read: dict, discards: frozenset) -> bool:
    """A furiten ruling on a ron whose winning tile, set apart in the photo and read surely
    (``read``: the reader's own detections by box), is itself in the player's discards."""
    from scoring.tiles import parse_tiles
    from scoring.verdict import RIICHI_FURITEN

    win = next((g.detections[0] for g in layout.groups if g.kind == "win" and g.detections), None)
    if verdict.ruling != RIICHI_FURITEN or win is None:
        return False
    seen = read.get(win.box, win)
    return not in_doubt(seen) and parse_tiles(seen.tile)[0].kind in discards


def layout_doubts(layout: Layout, warnings: list, confirmed: bool) -> list[str]:
    """What in the photo's layout, surely read tiles or not, a ruling against the player may
    rest on: a tile count that does not add up (a tile cut off, hidden or doubled), a meld
    taken as called with no turned tile seen, and — unless the referee has confirmed tiles
    (``confirmed``: fixes given) — a concealed row not in the order players lay a winning hand
    in (a tile under glare or a thumb read surely as another)."""
    doubts = [w.message + (": count the hand's tiles at the table and rule with `tilescope check "
                           "--text`" if w.code == "tile_count" else
                           " (or --meld N-M=TYPE with its type if it was called)")
              for w in warnings if w.code in ("tile_count", "meld_without_sideways")]
    if not confirmed and layout.order and not concealed_row_sorted(layout):
        doubts.append("the concealed tiles as read are not in the order a winning hand is laid "
                      "in, so one may be misread however sure the reader was (glare, a thumb): "
                      "look at each, and confirm them with --fix N=TILE")
    return doubts


def unsure_ruling(layout: Layout, verdict: Judgement, unsure_photo: LayoutWarning | None,
                  re_read, reader_saw: Detections | None = None,
                  discards: frozenset = frozenset(), doubts: list[str] = ()) -> Verdict | None:
    """``tilescope check PHOTO``: a misread tile must not cost a player a penalty. A verdict
    that the win does not stand is no ruling when the reader was unsure of most of the photo's
    tiles (``unsure_photo``), or, for a hand that is no win at all (chombo, a false hu:
    ``verdict.result`` is None), when ``re_read()`` (``vision.photo.corrections.winning_re_reading``, called only
    then) makes a winning hand of it, or, for any verdict against the player (no yaku, under
    the MCR minimum, furiten too), when a tile of the hand was read under ``LOW_CONFIDENCE``
    and its doubt could change the ruling (:func:`in_doubt`), as the reader read it
    (``reader_saw``: a tile an automatic correction re-read has confidence 1.0 in ``layout``).
    ``doubts`` (:func:`layout_doubts`): the layout's own doubts, which hold a ruling back too.
    One ruling stands whatever the other tiles are: a ron on a surely read winning tile that is
    in the player's own discards (``discards``, tile kinds) is chombo — the true hand, if
    complete with that tile, waits on it and is furiten; if not, it is no win.
    Returns the verdict that replaces it (``ruling``/``penalty``/``result`` None, ``valid``
    false, ``error`` and ``explanation`` naming the tiles to look at and the ``--fix``
    answers), or None when the verdict stands. (Long: one branch per reason to hold a ruling
    back, in the order they are weighed; each branch words its own explanation.)"""
    if not isinstance(verdict, Verdict) or failed(verdict) or verdict.valid is not False:
        return None
    as_read = f"as read ({verdict.ruling})"
    why = None
    if unsure_photo is not None:
        why = (f"{as_read}, but {unsure_photo.message.split(':')[0]}; check every tile (--fix) "
               "or take the photo again")
    else:
        no_win = verdict.result is None
        found = re_read() if no_win else None
        read = {d.box: d for d in (reader_saw.tiles if reader_saw is not None else ())}
        low = [(layout.number(d), read.get(d.box, d)) for g in layout.groups
               if g.kind in ("concealed", "win", "meld") for d in g.detections
               if in_doubt(read.get(d.box, d))]
        if found is not None:
            new_layout, score = found.layout, found.result
            numbers = found.warnings[-1].tiles            # the re-reading's `corrected` note
            was = ", ".join(f"{n} as {layout.order[n - 1].tile} ({layout.order[n - 1].confidence:.2f})"
                            for n in numbers)
            undo = " ".join(f"--fix {n}={layout.order[n - 1].tile}" for n in numbers)
            fixes = " ".join(f"--fix {n}={new_layout.order[n - 1].tile}" for n in numbers)
            why = (f"{as_read} the hand is not a winning hand, but the reader was unsure of "
                   f"tile{'s' if len(numbers) > 1 else ''} {was}, and its next guesses make a "
                   f"winning hand ({_value_text(score)}). Look at the tiles: pass {undo} if they "
                   f"are as read, {fixes} if not")
        elif low and _furiten_whatever_the_tiles(layout, verdict, read, discards):
            why = None
        elif low:
            named = ", ".join(f"{n} as {d.tile} ({d.confidence:.2f})" for n, d in sorted(low))
            what = "the hand is not a winning hand" if no_win else "the win does not stand"
            confirm = " ".join(f"--fix {n}={d.tile}" for n, d in sorted(low))
            why = (f"{as_read} {what}, but the reader was unsure of "
                   f"tile{'s' if len(low) > 1 else ''} {named}. Look at "
                   f"{'them' if len(low) > 1 else 'it'}: pass {confirm} if "
                   f"{'they are' if len(low) > 1 else 'it is'} as read, --fix N=TILE for a misread one")
        elif doubts and not _furiten_whatever_the_tiles(layout, verdict, read, discards):
            what = "the hand is not a winning hand" if no_win else "the win does not stand"
            why = f"{as_read} {what}, but " + "; and ".join(doubts)
    if why is None:
        return None
    return Verdict(verdict.ruleset, None, False, f"Cannot rule from this photo: {why}.", error=why)
