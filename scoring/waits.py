"""A hand in play: its shanten, and for a waiting hand each wait with what the win would be worth.

:func:`hand_waits` takes the concealed tiles (13, or 14 with the tile just drawn, less 3 per
meld), the melds, the table context (the fields of :class:`~scoring.hand.HandRequest` other
than the hand and the win: ruleset, winds, riichi, dora indicators, rules...) and the player's
own discards, and returns a :class:`WaitsReport` (``.to_json()``: ``docs/waits-json.md``):

- 13 tiles: the shanten (:mod:`scoring.shanten`); tenpai, each wait with the copies not yet
  visible and its value by ron and by tsumo, each exactly what :func:`scoring.api.score_hand`
  says of the completed hand; not tenpai, the tiles that bring it closer;
- 14 tiles: each discard with the shanten it leaves and its accepting tiles, and for a discard
  that leaves the hand tenpai its waits valued as above (the discarded tile joins the discards:
  throwing a tile the hand then waits on is furiten).

Riichi: a hand is furiten when one of its waits is among the player's own discards (it cannot
win by ron, only by tsumo); a wait whose ron has no yaku (a closed hand without riichi needs
riichi or tsumo) says so. MCR: the shanten over every MCR shape (:mod:`scoring.mcr.shanten`),
the waits of every shape (:func:`scoring.mcr.shapes.waits`, knitted hands included) and the
points of each win; one under the 8-point minimum is no win. A wait whose four copies are all
in sight (hand, melds, indicators, discards) has no copy left (``Wait.no_copy_left``), whatever
its values (the scorer's refusal when winning on it would make a fifth copy), and says so. A
furiten hand marks each wait (``Wait.furiten``): its ron value is kept, but no ron is paid.
The winning tile is valued as a plain tile (a red five adds one han more under ``rules.aka``),
but as the red five when the hand holds the three plain fives of its suit.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Sequence

from .hand import HandError, HandRequest, Meld, _as_tiles, four_plain_fives, validate_meld
from .shanten import COMPLETE, TENPAI, Accept, accepting, shanten
from .tiles import NUM_KINDS, Tile, TileError, check_physical, counts34, tile

NO_YAKU = "no yaku"                 # a win without yaku: no win (riichi)
UNDER_MINIMUM = "under 8 points"    # MCR: a win under the minimum is no win
NO_COPY_LEFT = "no copy left: all four are in sight, so no win can take this tile"
FURITEN_NO_RON = "furiten: no ron"  # the words each wait's ron says when the hand is furiten
# riichi asked for a hand that cannot declare it: said, not refused, as the shanten and the tiles
# that help are still what the player asked for (and riichi changes no value shown)
RIICHI_NOT_TENPAI = ("riichi: the hand is not tenpai (nor is it after any discard), so it cannot "
                     "declare riichi; the riichi asked for changes no value here")
# fields of a HandRequest that a hand in play cannot know yet (how it will be won)
_WIN_FIELDS = ("concealed", "melds", "win_tile", "win")


@dataclass(frozen=True, slots=True)
class Wait:
    """One tile that completes a tenpai hand: its ``kind``, the copies ``left`` (not visible),
    and the result of winning on it by ``ron`` and by ``tsumo`` (each the
    :func:`scoring.api.score_hand` result dict of the completed hand)."""

    kind: int
    left: int
    ron: dict
    tsumo: dict
    riichi_helps: bool = False      # a closed hand without riichi: riichi would be a yaku
    furiten: bool = False           # riichi: the hand is furiten, so this ron would not be paid

    @property
    def no_copy_left(self) -> bool:
        """Every copy is in sight: no win can take this tile, whatever its values say."""
        return self.left == 0

    def to_json(self) -> dict:
        return {"tile": str(tile(self.kind)), "left": self.left, "no_copy_left": self.no_copy_left,
                "furiten": self.furiten, "ron": self.ron, "tsumo": self.tsumo, "note": self.note}

    @property
    def note(self) -> str | None:
        """What a player must know before winning on it, in words; None when both wins count.
        No copy left comes first: it rules out both wins, whatever their values."""
        if self.no_copy_left:
            return NO_COPY_LEFT
        ron, tsumo = self.ron.get("valid"), self.tsumo.get("valid")
        if ron and tsumo:
            return None
        why = NO_YAKU if "han" in self.ron else UNDER_MINIMUM
        if not ron and not tsumo:
            return f"{why} on this wait: neither ron nor tsumo is a win"
        if not ron:
            return f"{why} by ron: only tsumo wins" + (
                " (or declare riichi)" if why == NO_YAKU and self.riichi_helps else "")
        return f"{why} by tsumo: only ron wins"


@dataclass(frozen=True, slots=True)
class DiscardChoice:
    """One discard of a 14-tile hand: the ``tile`` thrown, the ``shanten`` left, the tiles that
    then bring it closer (``accept``), and when it leaves the hand tenpai, ``waits`` valued as
    :class:`Wait` and ``furiten`` (a wait among the discards, this tile included)."""

    tile: Tile
    shanten: int
    accept: tuple[Accept, ...]
    waits: tuple[Wait, ...] = ()
    furiten: tuple[int, ...] = ()

    def to_json(self) -> dict:
        out = {"discard": str(self.tile), "shanten": self.shanten,
               "accept": [{"tile": str(tile(a.kind)), "left": a.left} for a in self.accept],
               "accept_left": sum(a.left for a in self.accept)}
        if self.shanten == TENPAI:
            out["waits"] = [w.to_json() for w in self.waits]
            out["furiten"] = bool(self.furiten)
        return out


@dataclass(frozen=True, slots=True)
class WaitsReport:
    """What :func:`hand_waits` found (see the module docstring). ``accept``: for 13 tiles not
    yet tenpai, the tiles that bring it closer. ``furiten``: the waits among the player's
    discards (riichi). ``discards_given``: whether the player's discards were known (furiten
    is checked only then)."""

    ruleset: str
    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    shanten: int
    waits: tuple[Wait, ...] = ()
    accept: tuple[Accept, ...] = ()
    furiten: tuple[int, ...] = ()
    discards: tuple[DiscardChoice, ...] = ()
    discards_given: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def tiles(self) -> int:
        return len(self.concealed) + 3 * len(self.melds)

    def to_json(self) -> dict:
        from .tiles import to_mpsz
        out: dict[str, Any] = {
            "ruleset": self.ruleset, "concealed": to_mpsz(self.concealed),
            "melds": [{"type": m.type, "tiles": to_mpsz(m.tiles, sort=False)} for m in self.melds],
            "tiles": self.tiles, "shanten": self.shanten,
        }
        if self.tiles == 13:
            out["tenpai"] = self.shanten == TENPAI
            out["waits"] = [w.to_json() for w in self.waits]
            out["waits_left"] = sum(w.left for w in self.waits)
            out["furiten"] = bool(self.furiten) if self.discards_given or self.furiten else None
            out["accept"] = [{"tile": str(tile(a.kind)), "left": a.left} for a in self.accept]
            out["accept_left"] = sum(a.left for a in self.accept)
        else:
            out["complete"] = self.shanten == COMPLETE
            out["discards"] = [d.to_json() for d in self.discards]
        out["notes"] = list(self.notes)
        out["error"] = None
        return out


_TABLE_FIELDS = frozenset(f.name for f in fields(HandRequest)) - set(_WIN_FIELDS)


def _context(context: dict | None) -> dict:
    """The table's facts as HandRequest fields; indicators may be mpsz text ("3s")."""
    if context is not None and not isinstance(context, dict):
        raise HandError(f"context must be a dict of HandRequest fields, got {type(context).__name__}")
    ctx = dict(context or {})
    for name in ctx:
        if name in _WIN_FIELDS:
            raise HandError(f"context: {name!r} is the hand or the win, not the table")
        if name not in _TABLE_FIELDS:
            raise HandError(f"context: unknown key {name!r} (the table's keys: "
                            f"{', '.join(sorted(_TABLE_FIELDS))})")
    for name in ("dora_indicators", "ura_dora_indicators"):
        if name in ctx:
            ctx[name] = _as_tiles(name, ctx[name])
    return ctx


def _as_melds(melds) -> tuple[Meld, ...]:
    """``melds`` as a tuple of Meld; HandError naming what to pass for anything else (a
    string would otherwise count its characters as melds)."""
    if not isinstance(melds, (list, tuple)) or not all(isinstance(m, Meld) for m in melds):
        raise HandError("melds must be a sequence of scoring.hand.Meld, e.g. (Meld('pon', "
                        f"'777z'),), got {type(melds).__name__}")
    return tuple(melds)


def _check_visible(hand: Sequence[Tile], melds: Sequence[Meld], ctx: dict, discards: Sequence[Tile]) -> None:
    """Raise HandError when the melds are not legal or the visible tiles need more than one set."""
    for i, m in enumerate(melds):
        validate_meld(m, i)
    seen = list(hand) + [t for m in melds for t in m.tiles] + list(discards)
    for name in ("dora_indicators", "ura_dora_indicators"):
        seen += list(ctx.get(name) or ())
    if any(t.is_flower for t in hand):
        raise HandError("flowers are not part of the hand; give their number in 'flowers' (MCR)")
    flower = next((t for t in discards if t.is_flower), None)
    if flower is not None:      # a flower is set aside and replaced, never discarded
        raise HandError(f"discards: {flower} is a flower; flowers are set aside, never discarded")
    if ctx.get("ruleset", "riichi") == "mcr":
        for name in ("dora_indicators", "ura_dora_indicators"):
            if ctx.get(name):   # the scorer refuses them too, but not on a wait it never scores
                raise HandError(f"{name}: MCR has no dora (a riichi field); give seen tiles as discards")
    try:
        check_physical(seen)
    except TileError as exc:
        raise HandError(f"{exc}, counting the hand, melds, indicators and discards") from None
    rules = ctx.get("rules")
    if ctx.get("ruleset", "riichi") == "riichi" and (rules is None or rules.aka):
        four_plain_fives(seen, "in the hand, melds, indicators and discards")


def _counts(tiles: Sequence[Tile]) -> list[int]:
    return counts34(tiles)


def hand_waits(concealed: Sequence[Tile], melds: Sequence[Meld] = (), context: dict | None = None,
               discards: Sequence[Tile] = (), discards_given: bool | None = None) -> WaitsReport:
    """Shanten, waits and their values, or the discards table, of a hand in play.

    ``concealed``: 13 or 14 tiles less 3 per meld (Tile objects or mpsz text). ``melds``:
    :class:`scoring.hand.Meld` values (``Meld("pon", "777z")``). ``context``: HandRequest fields for the
    table (``ruleset``, ``seat_wind``, ``round_wind``, ``riichi``, ``dora_indicators``,
    ``rules``...; not the hand nor the win). ``discards``: the player's own discards (furiten;
    they and the indicators count as visible tiles). Raises HandError for a wrong tile count,
    an illegal meld, more copies of a tile than a set holds, or a context the scorer refuses.
    """
    concealed, melds = _as_tiles("concealed", concealed), _as_melds(melds)
    ctx = _context(context)
    discards = _as_tiles("discards", discards)
    given = bool(discards) if discards_given is None else discards_given
    ruleset = ctx.get("ruleset", "riichi")
    if len(melds) > 4:
        raise HandError(f"{len(melds)} melds; a hand has at most 4 sets")
    want = 13 - 3 * len(melds)
    if len(concealed) not in (want, want + 1):
        raise HandError(f"{len(concealed)} concealed tiles with {len(melds)} meld(s): a hand in play "
                        f"has {want} (waiting) or {want + 1} (with the tile just drawn)")
    _check_visible(concealed, melds, ctx, discards)
    seen = _counts(list(concealed) + [t for m in melds for t in m.tiles] + list(discards)
                   + list(ctx.get("dora_indicators") or ()) + list(ctx.get("ura_dora_indicators") or ()))
    held = _counts(list(concealed) + [t for m in melds for t in m.tiles])
    counts = _counts(concealed)
    n = len(melds)
    if len(concealed) == want:
        s, waits, accept, furiten = _thirteen(concealed, melds, ctx, discards, counts, held, seen)
        notes = _notes(ruleset, s, waits, furiten, given)
        if s > TENPAI and ctx.get("riichi", "none") != "none":
            notes += (RIICHI_NOT_TENPAI,)
        return WaitsReport(ruleset, concealed, melds, s, waits, accept, furiten, (), given, notes)
    s = _shanten_of(ruleset)(counts, n)
    choices = []
    for k in range(NUM_KINDS):
        if not counts[k]:
            continue
        # throw a plain tile of the kind and keep a red five
        thrown = next((t for t in concealed if t.kind == k and not t.red), None) or \
            next(t for t in concealed if t.kind == k)
        rest = list(concealed)
        rest.remove(thrown)
        after = tuple(discards) + (thrown,)
        held[k] -= 1
        s13, waits, accept, furiten = _thirteen(tuple(rest), melds, ctx, after, _counts(rest), held, seen)
        held[k] += 1
        choices.append(DiscardChoice(thrown, s13, accept, waits, furiten))
    choices.sort(key=lambda d: (d.shanten, -sum(a.left for a in d.accept), d.tile.kind))
    notes = ("complete hand: score it with `tilescope hand` (the last tile written wins)",) if s == COMPLETE else ()
    if ctx.get("riichi", "none") != "none" and all(d.shanten > TENPAI for d in choices):
        notes += (RIICHI_NOT_TENPAI,)
    return WaitsReport(ruleset, concealed, melds, s, (), (), (), tuple(choices), given, notes)


def _shanten_of(ruleset: str):
    if ruleset == "mcr":
        from .mcr.shanten import mcr_shanten
        return mcr_shanten
    return shanten


def _thirteen(concealed, melds, ctx, discards, counts, held, seen):
    """(shanten, waits valued, accepting tiles, furiten kinds) of a 13-tile hand."""
    n = len(melds)
    ruleset = ctx.get("ruleset", "riichi")
    if ruleset == "mcr":
        from .mcr.shanten import mcr_accepting, mcr_shanten
        from .mcr.shapes import waits as mcr_waits
        s = mcr_shanten(counts, n)
        if s != TENPAI:
            return s, (), mcr_accepting(counts, n, seen, held, s), ()
        kinds = mcr_waits(counts, n, held)
    else:
        s = shanten(counts, n)
        if s != TENPAI:
            return s, (), accepting(counts, n, seen, held, s), ()
        kinds = [a.kind for a in accepting(counts, n, seen, held, s)]
    furiten = ()
    if ruleset == "riichi":
        thrown = {t.kind for t in discards}
        furiten = tuple(k for k in kinds if k in thrown)
    waits = tuple(_valued(concealed, melds, ctx, k, max(0, 4 - seen[k]), bool(furiten)) for k in kinds)
    accept = tuple(Accept(w.kind, w.left) for w in waits)
    return s, waits, accept, furiten


def _valued(concealed, melds, ctx, kind: int, left: int, furiten: bool = False) -> Wait:
    from .api import score_hand
    win_tile = tile(kind)
    out = []
    plain = [t for t in concealed + tuple(x for m in melds for x in m.tiles) if t.kind == kind]
    if kind in (4, 13, 22) and len(plain) == 3 and not any(t.red for t in plain):
        win_tile = tile(kind, red=True)     # three plain fives held: the fourth is the red one
    for how in ("ron", "tsumo"):
        req = HandRequest(**ctx, concealed=concealed, melds=melds, win_tile=win_tile, win=how)
        result = score_hand(req).to_json()
        # every copy visible (indicators, discards): no win can take it, and the scorer says
        # why (five copies); any other refusal is the context's fault and stops the report
        if result.get("error") and left:
            raise HandError(result["error"])
        out.append(result)
    ron, tsumo = out
    dama = all(not m.is_open for m in melds) and ctx.get("riichi", "none") == "none"
    return Wait(kind, left, ron, tsumo, "han" in ron and dama, furiten)


def _notes(ruleset: str, s: int, waits: Sequence[Wait], furiten: Sequence[int], given: bool) -> tuple[str, ...]:
    notes = []
    if s == TENPAI and not waits:
        notes.append("tenpai in shape only: every tile it waits on is already held four times")
    if s == TENPAI and ruleset == "riichi":
        if furiten:
            notes.append("furiten: the player's discards hold " + ", ".join(str(tile(k)) for k in furiten)
                         + "; no ron on any wait, only tsumo")
    return tuple(notes)
