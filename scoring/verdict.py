"""Verdicts on disputed wins, both rulesets: is this hu valid, and what is the penalty?

A referee gives the hand as a :class:`~scoring.hand.HandRequest` plus what happened at the
table: the player declared a win (``declared="hu"``), whether the hand was ``revealed``
(laid open), and for riichi the player's own ``discards`` (furiten). :func:`check` answers
with a :class:`Verdict`: the ruling, the penalty, the hand's value when it has one, and one
paragraph a player can read (the best reading, the fans or yaku found, why it falls short).

Rules (amounts are :class:`PenaltyOptions`, defaults from the seed rule texts):

- MCR (seed 000, §2.9 and §3.3; Green Book 2006): a complete hand worth at least 8 points
  without flowers is a valid win. A false hu with four sets and a pair (or another complete
  shape) under 8 points costs 10 points to each other player (30 in all) when the hand was
  revealed; a false hu with an invalid hand (wrong sets or wrong tile count) costs 20 to each
  (60 in all) when revealed. A false hu that was not revealed is a dead hand: the player
  plays on without the right to win, and nobody is paid.
- A wrong tile count (both rulesets) is ruled on only when the caller confirms that the player
  holds that count (``count_as_typed``); else :class:`CountError`: a typed or misread count is
  far likelier than a player declaring a win with 13 or 15 tiles.
- Riichi (seed 001): a complete hand with a yaku, not in furiten, is a valid win. Not a
  complete hand, no yaku, or a ron on a tile the player could not claim because one of the
  hand's waits is in their own discards (furiten) is chombo: the offender pays a reverse
  mangan tsumo (a non-dealer 4000 to the dealer and 2000 to each other player, 8000 in all;
  the dealer 4000 to each, 12000), or in tournament mode a standings penalty (20,000 points,
  as at WRC/EMA). Whether the hand was revealed does not change a riichi chombo.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Sequence

from .hand import WIN_KINDS, HandError, HandRequest, validate
from .hand import check as hand_check
from .hand import four_plain_fives
from .tiles import Tile, TileError, check_physical, parse_tiles, to_mpsz

VALID = "valid"
MCR_UNDER_MINIMUM = "false hu: under the minimum"
MCR_INVALID_HAND = "false hu: invalid hand"
MCR_DEAD_HAND = "false hu: dead hand"
RIICHI_NOT_COMPLETE = "chombo: not a complete hand"
RIICHI_NO_YAKU = "chombo: no yaku"
RIICHI_FURITEN = "chombo: furiten ron"


class CountError(HandError):
    """A declared hand whose tile count is not a hand's. Far more often a typing slip (or a
    misread photo) than what the player holds, so it is no ruling until the caller confirms
    the count (``count_as_typed``): a penalty must not rest on a slip of the keyboard."""

    def __init__(self, typed: int, melds: int) -> None:
        self.typed, self.melds = typed, melds
        super().__init__(self.words('"count_as_typed": true', how="given"))

    def words(self, confirm: str, how: str = "typed", hint: str = "") -> str:
        """The message, ``confirm`` naming the way to confirm the count (a flag, a key), ``how``
        the way the tiles came (typed, read from the photo) and ``hint`` a likelier slip."""
        want = 13 - 3 * self.melds
        n = f"{self.melds} meld{'s' if self.melds > 1 else ''}"
        besides, with_ = (f" besides {n}", f" with {n}") if self.melds else ("", "")
        return (f"{self.typed} tiles {how}{besides}; a hand{with_} has {want + 1} ({want} + the "
                f"winning tile){hint}: correct the hand, or, if the player holds {self.typed}, "
                f"confirm it ({confirm}) to rule on that count")


@dataclass(frozen=True, slots=True)
class PenaltyOptions:
    """Penalty amounts; defaults from the seed rule texts (see module docstring).

    ``mcr_under_minimum``: points a revealed false hu under the minimum pays each other player
    (10). ``mcr_invalid_hand``: the same for a revealed invalid hand (20).
    ``chombo_dealer_receives`` / ``chombo_non_dealer_receives``: what a non-dealer offender
    pays the dealer (4000) and each other non-dealer (2000); a dealer offender pays every
    player ``chombo_dealer_receives`` (reverse mangan tsumo). ``tournament_chombo``: the
    standings penalty in tournament mode (20000).
    """

    mcr_under_minimum: int = 10
    mcr_invalid_hand: int = 20
    chombo_dealer_receives: int = 4000
    chombo_non_dealer_receives: int = 2000
    tournament_chombo: int = 20000


@dataclass(frozen=True, slots=True)
class Verdict:
    """A ruling on a declared win.

    ``ruling``: one of the module constants (``valid``, ``false hu: ...``, ``chombo: ...``).
    ``valid``: the win stands. ``penalty``: None, or a dict with ``kind`` (``points``,
    ``reverse mangan``, ``standings``), ``total`` and who pays whom. ``result``: the hand's
    value as the spec's JSON result, when it could be valued. ``explanation``: one paragraph.
    ``error``: set (with ``ruling`` None) when no ruling can be made, saying why (a photo read
    too unsurely to rule against the player: ``vision.photo.held_ruling``).
    """

    ruleset: str | None
    ruling: str | None
    valid: bool
    explanation: str | None
    penalty: dict | None = None
    result: dict | None = None
    error: str | None = None

    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "ruling": self.ruling, "valid": self.valid,
                "penalty": self.penalty, "result": self.result, "explanation": self.explanation,
                "error": self.error}


# what a player may call when declaring a win: all are a win; ron and tsumo also say how
DECLARED_WINS = ("hu", "ron", "tsumo", "mahjong")


def check(req: HandRequest, declared: str = "hu", revealed: bool = True, discards: Sequence[Tile] = (),
          tournament: bool = False, options: PenaltyOptions | None = None, mcr_rules=None,
          count_as_typed: bool = False) -> Verdict:
    """Rule on a declared win.

    ``req``: the hand as declared (a HandRequest or a request dict). A wrong tile count
    raises :class:`CountError` unless ``count_as_typed`` confirms that the player holds those tiles: then it is a false win (a
    wrong number of tiles is a false hu, EMA MCR rules §2.9.2; a false mahjong, chombo, in
    riichi), and the explanation says the ruling rests on the count. ``declared``: what the
    player called; only ``"hu"`` (a win: ron/tsumo/hu/mahjong) is ruled on. ``revealed``: the hand was laid open (MCR penalties
    need it). ``discards``: the player's own discards (riichi furiten), Tile objects or mpsz
    text. ``tournament``: riichi
    chombo as a standings penalty. Raises HandError for an impossible request (five of a kind,
    contradictory flags, an unknown ``declared``).
    """
    if not isinstance(req, HandRequest):        # a request dict, or a TypeError saying what to pass
        from .request import as_request
        req = as_request(req, "check")
    if declared not in DECLARED_WINS:
        raise HandError(f"declared must be 'hu' (a declared win), got {declared!r}")
    if declared in WIN_KINDS and declared != req.win:
        # which way the win came is a fact the referee settles first; ruling on the other
        # one would value (or penalise) a different win than the one called
        raise HandError(f"declared {declared!r} but 'win' is {req.win!r}: a {declared} win is "
                        f"{'self-drawn' if declared == 'tsumo' else 'on a discard'}; give the same "
                        "for both (or declared 'hu')")
    if isinstance(discards, str):       # mpsz text, as the JSON key and vision.check_photo take
        try:
            discards = tuple(parse_tiles(discards))
        except TileError as exc:
            raise HandError(f"discards: {exc}") from None
    options = options or PenaltyOptions()
    try:
        validate(req)
        count_problem = None
    except HandError as exc:
        if not str(exc).startswith("wrong tile count"):
            raise
        count_problem = str(exc)
        hand_check(req, count=False)    # every other check still holds, confirmed or not
        if not count_as_typed:
            raise CountError(len(req.concealed) + 1, len(req.melds)) from None
    if discards:
        # the player's discards are tiles of the same set as the hand and the indicators
        seen = tuple(req.all_tiles) + tuple(discards) + req.dora_indicators + req.ura_dora_indicators
        try:
            check_physical(seen)
        except TileError as exc:
            raise HandError(f"discards: {exc}, counting the hand and the dora indicators") from None
        if req.ruleset == "riichi" and req.rules.aka:
            four_plain_fives(seen, "in the hand, indicators and discards")
    if req.ruleset == "mcr":
        return _check_mcr(req, revealed, count_problem, options, mcr_rules)
    return _check_riichi(req, discards, tournament, count_problem, options)


def _count_words(req: HandRequest) -> str:
    """Why a hand of the wrong size (confirmed with ``count_as_typed``) is no win, saying that
    the ruling rests on the confirmed count."""
    want = 14 - 3 * len(req.melds)
    melds = f" besides its {len(req.melds)} meld{'s' if len(req.melds) > 1 else ''}" if req.melds else ""
    return (f"it has {len(req.concealed) + 1} tiles{melds} where a hand has {want} (the count "
            "as given, confirmed as what the player holds: the ruling rests on it)")


def _hand_text(req: HandRequest) -> str:
    melds = "".join(f" +{m.type} {to_mpsz(m.tiles)}" for m in req.melds)
    how = "self-drawn" if req.win == "tsumo" else "on a discard"
    return f"{to_mpsz(req.concealed)} + {req.win_tile} ({how}){melds}"


# --- MCR -----------------------------------------------------------------------------------

def _mcr_penalty(each: int) -> dict:
    return {"kind": "points", "offender_pays_each": each, "total": 3 * each}


def _check_mcr(req: HandRequest, revealed: bool, count_problem: str | None,
               options: PenaltyOptions, rules) -> Verdict:
    from .mcr import NotCompleteError, describe, score_mcr

    hand = _hand_text(req)
    result = None
    if count_problem is None:
        try:
            result = score_mcr(req, rules)
        except NotCompleteError:
            problem = "its tiles are not four sets and a pair, nor any special hand (seven pairs, " \
                      "thirteen orphans, honors and knitted tiles, knitted straight)"
        else:
            problem = None
    else:
        problem = _count_words(req) + "; a hand with the wrong number of tiles is invalid (EMA MCR rules §2.9.2)"
    if result is not None and result.valid:
        fans = ", ".join(f"{f.name} {f.points}" + (f" x{f.count}" if f.count > 1 else "") for f in result.fans)
        return Verdict("mcr", VALID, True,
                       f"Valid win. {hand} reads as {describe(result.reading)}; fans: {fans}; "
                       f"{result.total_without_flowers} points without flowers, at least 8 needed, "
                       f"{result.total} in all.", None, result.to_json())
    if result is not None:
        fans = ", ".join(f"{f.name} {f.points}" + (f" x{f.count}" if f.count > 1 else "")
                         for f in result.fans if f.name != "Flower Tiles")
        why = (f"{hand} is a complete hand ({describe(result.reading)}) but its best reading scores only "
               f"{result.total_without_flowers} point{'' if result.total_without_flowers == 1 else 's'} without flowers ({fans}); a win needs 8, and "
               f"flowers never count toward the minimum (Green Book; EMA MCR rules §2.9).")
        if not revealed:
            return Verdict("mcr", MCR_DEAD_HAND, False,
                           f"False hu. {why} The hand was not revealed, so it is a dead hand: the player "
                           f"plays on but cannot win this hand, and no penalty is paid (EMA MCR rules §3.3).",
                           None, result.to_json())
        each = options.mcr_under_minimum
        return Verdict("mcr", MCR_UNDER_MINIMUM, False,
                       f"False hu. {why} The hand was revealed: the player pays {each} points to each "
                       f"other player, {3 * each} in all (EMA MCR rules §3.3).", _mcr_penalty(each), result.to_json())
    why = f"{hand} is not a winning hand: {problem}."
    if not revealed:
        return Verdict("mcr", MCR_DEAD_HAND, False,
                       f"False hu. {why} The hand was not revealed, so it is a dead hand: the player plays "
                       f"on but cannot win this hand, and no penalty is paid (EMA MCR rules §3.3).")
    each = options.mcr_invalid_hand
    return Verdict("mcr", MCR_INVALID_HAND, False,
                   f"False hu. {why} The hand was revealed: the player pays {each} points to each other "
                   f"player, {3 * each} in all (EMA MCR rules §3.3).", _mcr_penalty(each))


# --- riichi --------------------------------------------------------------------------------

def _chombo(req: HandRequest, tournament: bool, options: PenaltyOptions) -> tuple[dict, str]:
    if tournament:
        pts = options.tournament_chombo
        return ({"kind": "standings", "points": pts, "total": pts},
                f"In tournament mode the offender loses {pts:,} points in the standings (WRC/EMA).")
    d, n = options.chombo_dealer_receives, options.chombo_non_dealer_receives
    if req.seat_wind == "E":
        return ({"kind": "reverse mangan", "offender_pays_each": d, "total": 3 * d},
                f"The offender is the dealer and pays a reverse mangan: {d} to each player, {3 * d} in all.")
    return ({"kind": "reverse mangan", "offender_pays_dealer": d, "offender_pays_each_non_dealer": n,
             "total": d + 2 * n},
            f"The offender pays a reverse mangan: {d} to the dealer and {n} to each other player, "
            f"{d + 2 * n} in all.")


def _check_riichi(req: HandRequest, discards: Sequence[Tile], tournament: bool,
                  count_problem: str | None, options: PenaltyOptions) -> Verdict:
    """A riichi win declared, ruled in the order a referee asks: is the hand complete, is it
    furiten (a ron only), has it a yaku; then its value."""
    from .api import score_hand

    hand = _hand_text(req)
    problem = _riichi_incomplete(req, count_problem)
    if problem is not None:
        pen, how = _chombo(req, tournament, options)
        return Verdict("riichi", RIICHI_NOT_COMPLETE, False,
                       f"Chombo. {hand} is not a winning hand: {problem}. Declaring a win with it is "
                       f"chombo (EMA/WRC riichi rules). {how}", pen)
    result = score_hand(req).to_json()
    if result.get("error"):
        raise HandError(result["error"])
    from .riichi.limits import yaku_value_words
    # a yakuman by name ("kokushi musou, yakuman"), not as 13 han
    yaku = ", ".join(f"{y['name']}, {yaku_value_words(y['han'])}" if y["han"] >= 13 else f"{y['name']} {y['han']}"
                     for y in result.get("yaku", [])) or "none"
    if req.win == "ron":
        furiten = _riichi_furiten(req, discards, tournament, options, hand, yaku, result)
        if furiten is not None:
            return furiten
    if not result["valid"]:
        pen, how = _chombo(req, tournament, options)
        return Verdict("riichi", RIICHI_NO_YAKU, False,
                       f"Chombo. {hand} is a complete hand but has no yaku (dora are not yaku), so it "
                       f"is not a win (EMA/WRC riichi rules). {how}", pen, result)
    return _riichi_valid(req, discards, hand, yaku, result)


def _riichi_incomplete(req: HandRequest, count_problem: str | None) -> str | None:
    """Why the declared hand is not a winning shape, or None when it is complete."""
    from .decompose import is_complete
    from .tiles import counts34

    if count_problem is not None:
        # seed 001: too many or too few tiles is a dead hand in play, and a win declared with
        # them a false mahjong (« Mah-jong invalide »), chombo
        return _count_words(req)
    if is_complete(counts34(req.hand_tiles), len(req.melds)):
        return None
    return "its tiles are not four sets and a pair, seven pairs or thirteen orphans"


def _riichi_furiten(req: HandRequest, discards: Sequence[Tile], tournament: bool,
                    options: PenaltyOptions, hand: str, yaku: str, result: dict) -> Verdict | None:
    """The chombo verdict of a ron whose waits include a tile of the player's own discards
    (furiten); None when none does."""
    from .decompose import waits

    hand_waits = waits(req.concealed, req.melds)
    seen = {t.kind for t in discards}
    in_discards = [k for k in hand_waits if k in seen]
    if not in_discards:
        return None
    pen, how = _chombo(req, tournament, options)
    names = ", ".join(str(Tile(k)) for k in in_discards)
    all_w = ", ".join(str(Tile(k)) for k in hand_waits)
    return Verdict("riichi", RIICHI_FURITEN, False,
                   f"Chombo. {hand} is complete (yaku: {yaku}), but the hand waits on {all_w} and "
                   f"the player's own discards hold {names}: the hand is furiten and cannot win by "
                   f"ron (EMA/WRC riichi rules). {how}", pen, result)


def _riichi_valid(req: HandRequest, discards: Sequence[Tile], hand: str, yaku: str,
                  result: dict) -> Verdict:
    """The verdict of a valid win: its yaku, dora, value and payment, and what the referee
    must still check (furiten beyond the discards given, liability)."""
    from .riichi.limits import liability_note, value_words

    value = value_words(result)
    dora = result.get("dora") or {}
    extra = ", ".join(f"{name} {dora[key]}" for key, name in
                      (("dora", "dora"), ("aka", "aka dora"), ("ura", "ura dora")) if dora.get(key))
    notes = ""
    if req.win == "ron":
        # what the referee must still ask: furiten a photo or a discard list cannot show
        notes = (" Furiten was checked against the player's own discards only: not a winning "
                 "tile passed since their last discard, nor one passed after riichi."
                 if discards else " Furiten was not checked: no discards were given.")
    pao = liability_note(req, [y["name"] for y in result.get("yaku", [])])
    if pao:
        notes += f" Note: {pao[0].upper()}{pao[1:]}."
    return Verdict("riichi", VALID, True,
                   f"Valid win. {hand}: yaku {yaku}{'; ' + extra if extra else ''}; {value}; the winner receives "
                   f"{result['payment']['total']}.{notes}", None, result)


# --- JSON ----------------------------------------------------------------------------------

TABLE_KEYS = ("declared", "revealed", "discards", "tournament", "penalties", "count_as_typed")


def split_table_keys(obj: dict) -> tuple[dict, dict]:
    """Split a check request into the hand request and the table keys (``declared``,
    ``revealed``, ``discards`` (mpsz), ``tournament``, ``penalties`` (PenaltyOptions fields),
    ``count_as_typed`` (a wrong tile count is what the player holds: rule on it)).
    Raises HandError for a wrong type."""
    hand = {k: v for k, v in obj.items() if k not in TABLE_KEYS}
    table = {k: obj[k] for k in TABLE_KEYS if k in obj}
    kw: dict[str, Any] = {}
    if "declared" in table:
        if not isinstance(table["declared"], str):
            raise HandError("declared must be a string ('hu')")
        kw["declared"] = table["declared"]
    for key in ("revealed", "tournament", "count_as_typed"):
        if key in table:
            if not isinstance(table[key], bool):
                raise HandError(f"{key} must be true or false")
            kw[key] = table[key]
    if "discards" in table:
        if not isinstance(table["discards"], str):
            raise HandError("discards must be an mpsz string, e.g. '19m5p'")
        try:
            kw["discards"] = tuple(parse_tiles(table["discards"]))
        except TileError as exc:
            raise HandError(f"discards: {exc}") from None
    if "penalties" in table:
        pen = table["penalties"]
        names = {f.name for f in fields(PenaltyOptions)}
        if not isinstance(pen, dict) or set(pen) - names:
            raise HandError(f"penalties must be an object with keys among {', '.join(sorted(names))}")
        if any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in pen.values()):
            raise HandError("penalty amounts must be non-negative integers")
        kw["options"] = PenaltyOptions(**pen)
    return hand, kw


def check_json(obj: Any) -> dict:
    """Rule on one decoded JSON check request (a hand request plus the table keys); returns the
    verdict dict. Never raises: any problem becomes a verdict's keys with ``ruling`` null,
    ``valid`` false and ``error`` saying what is wrong."""
    from .request import parse_request
    try:
        if not isinstance(obj, dict):
            parse_request(obj)          # raises, naming what was sent instead of an object
        hand, kw = split_table_keys(obj)
        req = parse_request(hand)
        return check(req, **kw).to_json()
    except HandError as exc:
        return no_ruling(obj, str(exc))
    except Exception as exc:  # a bug must not stop a JSON Lines run; say what happened
        return no_ruling(obj, f"internal error while checking: {type(exc).__name__}: {exc}")


def no_ruling(obj: Any, error: str) -> dict:
    """The answer to a check request that could not be ruled on: a verdict's keys (so that a
    reader of the answers finds the same ones on every line), ``error`` set."""
    ruleset = obj.get("ruleset") if isinstance(obj, dict) else None
    return {"ruleset": ruleset if ruleset in ("riichi", "mcr") else None, "ruling": None,
            "valid": False, "penalty": None, "result": None, "explanation": None, "error": error}
