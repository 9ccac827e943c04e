"""The JSON side of a hand request (``docs/hand-json.md``): dict <-> :class:`HandRequest`.

Pydantic checks the shape (every spec field, types strict, extra keys an error); tiles are
parsed with :mod:`scoring.tiles`. Errors come out as one :class:`HandError` with a readable
message, never a pydantic dump. Only the JSON boundary uses pydantic; the scoring path works on
the plain dataclasses.
"""
from __future__ import annotations

from json import dumps as json_dumps
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from .hand import HandError, HandRequest, Meld, RiichiRules
from .tiles import Tile, TileError, parse_tile, parse_tiles, quoted, to_mpsz


def _json_integer(value: Any) -> Any:
    """One rule for every number of a request: a count is written as a JSON integer, so
    ``2.0`` is refused as ``1.5`` is (the spec says ints; a strict ``int`` refuses 2.0 but a
    ``Literal[2, 4]`` takes it, as 2.0 == 2)."""
    if isinstance(value, float):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


_Int = Annotated[int, BeforeValidator(_json_integer)]
_MAX_ERRORS = 3         # problems named in one message: 100,000 unknown keys are not 2 MB of text


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)   # "from" only by its JSON name


def _meld_word(value: Any) -> Any:
    return MELD_WORDS.get(value, value) if isinstance(value, str) else value


class _MeldModel(_Strict):
    type: Annotated[Literal["chi", "pon", "daiminkan", "kakan", "ankan"], BeforeValidator(_meld_word)]
    tiles: str
    called: str | None = None
    from_: Literal["left", "across", "right"] | None = Field(default=None, alias="from")


class _RulesModel(_Strict):
    aka: bool = True
    open_tanyao: bool = True
    kiriage: bool = False
    double_yakuman: bool = False
    kazoe: Literal["yakuman", "sanbaiman", "none"] = "yakuman"
    double_wind_pair_fu: Annotated[Literal[2, 4], BeforeValidator(_json_integer)] = 4


class _RequestModel(_Strict):
    ruleset: Literal["riichi", "mcr"]
    concealed: str
    melds: list[_MeldModel] = []
    win_tile: str
    win: Literal["tsumo", "ron"]
    seat_wind: Literal["E", "S", "W", "N"] = "E"
    round_wind: Literal["E", "S", "W", "N"] = "E"
    last_wall_tile: bool = False
    replacement_tile: bool = False
    robbing_kong: bool = False
    riichi: Literal["none", "riichi", "double"] = "none"
    ippatsu: bool = False
    tenhou: bool = False
    chiihou: bool = False
    dora_indicators: str = ""
    ura_dora_indicators: str = ""
    honba: _Int = Field(default=0, ge=0)        # at most MAX_COUNTERS: scoring.hand.check
    riichi_sticks: _Int = Field(default=0, ge=0)
    rules: _RulesModel = _RulesModel()
    flowers: _Int = Field(default=0, ge=0, le=8)
    last_copy: bool = False
    win_tile_shown: bool = True


# rules a caller may reach for that tilescope does not model (scoring/riichi/RULES.md, "Not
# modelled"): said so, rather than a bare "unknown key" that reads like a typing slip
NOT_MODELLED = {
    "pao": "pao (liability payments)", "sekinin_barai": "pao (liability payments)",
    "renhou": "renhou", "nagashi": "nagashi mangan", "nagashi_mangan": "nagashi mangan",
    "open_riichi": "open riichi", "paarenchan": "paarenchan",
}


# the command line's words for request keys, which a caller of the JSON side guesses first
CLI_NAMES = {
    "dora": "dora_indicators", "ura": "ura_dora_indicators", "ura_dora": "ura_dora_indicators",
    "seat": "seat_wind", "round": "round_wind", "sticks": "riichi_sticks",
    "kyoutaku": "riichi_sticks", "tsumi": "honba", "hand": "concealed", "tiles": "concealed",
    "win_kind": "win", "winning_tile": "win_tile",
}


def _explain(exc: ValidationError) -> str:
    parts = []
    errors = exc.errors()
    for err in errors[:_MAX_ERRORS]:
        loc = ".".join(str(p) for p in err["loc"]) or "request"
        if err["type"] == "extra_forbidden":
            key = str(err["loc"][-1]).lower() if err["loc"] else ""
            rule, meant = NOT_MODELLED.get(key), CLI_NAMES.get(key)
            parts.append(f"unknown key {quoted(loc)}" + (
                f": {rule} is not modelled by tilescope (scoring/riichi/RULES.md)" if rule
                else f" (the key is {meant!r})" if meant else ""))
        elif err["type"] == "missing":
            parts.append(f"missing key {quoted(loc)}")
        elif err["type"] in ("model_type", "model_attributes_type", "dict_type"):
            parts.append(f"{loc}: should be a JSON object")     # not pydantic's class name
        else:
            value = err.get("input")
            shown = f" (got {quoted(value)})" if not isinstance(value, (dict, list)) else ""
            parts.append(f"{loc if len(loc) <= 40 else quoted(loc)}: {err['msg']}{shown}")
    if len(errors) > _MAX_ERRORS:
        parts.append(f"and {len(errors) - _MAX_ERRORS:,} more")
    return "bad request: " + "; ".join(parts)


def json_kind(value: Any) -> str:
    """What a decoded JSON value was, in JSON's words (``null``, not ``NoneType``)."""
    if value is None or isinstance(value, bool):
        return json_dumps(value)
    return {list: "an array", str: "a string", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__)


def tiles_of(text: str, where: str) -> tuple[Tile, ...]:
    """mpsz text as Tile values; HandError naming ``where`` for a code that is no tile."""
    try:
        return tuple(parse_tiles(text))
    except TileError as exc:
        raise HandError(f"{where}: {exc}") from None


def melds_of(items) -> tuple[Meld, ...]:
    """Melds written as the request writes them (each with ``type``, ``tiles`` and ``called``
    as mpsz text and ``from_``) as Meld values; HandError naming ``melds.N.tiles`` or
    ``melds.N.called`` for a tile that is none."""
    melds = []
    for i, mm in enumerate(items):
        called = None
        if mm.called is not None:
            try:
                called = parse_tile(mm.called)
            except TileError as exc:
                raise HandError(f"melds.{i}.called: {exc}") from None
        melds.append(Meld(mm.type, tiles_of(mm.tiles, f"melds.{i}.tiles"), called, mm.from_))
    return tuple(melds)


def parse_request(obj: Any) -> HandRequest:
    """Build a :class:`HandRequest` from one decoded JSON request (a dict).

    Raises HandError with a readable message for a non-object, a missing or unknown key, a
    wrong type or value, or a bad tile code. Does not check that the hand is possible; call
    :func:`scoring.hand.validate` (``score_hand`` does).
    """
    if not isinstance(obj, dict):
        raise HandError(f"a request is a JSON object, got {json_kind(obj)}")
    try:
        m = _RequestModel.model_validate(obj)
    except ValidationError as exc:
        raise HandError(_explain(exc)) from None
    melds = melds_of(m.melds)
    try:
        win_tile = parse_tile(m.win_tile)
    except TileError as exc:
        raise HandError(f"win_tile: {exc}") from None
    return HandRequest(
        ruleset=m.ruleset,
        concealed=tiles_of(m.concealed, "concealed"),
        melds=tuple(melds),
        win_tile=win_tile,
        win=m.win,
        seat_wind=m.seat_wind,
        round_wind=m.round_wind,
        last_wall_tile=m.last_wall_tile,
        replacement_tile=m.replacement_tile,
        robbing_kong=m.robbing_kong,
        riichi=m.riichi,
        ippatsu=m.ippatsu,
        tenhou=m.tenhou,
        chiihou=m.chiihou,
        dora_indicators=tiles_of(m.dora_indicators, "dora_indicators"),
        ura_dora_indicators=tiles_of(m.ura_dora_indicators, "ura_dora_indicators"),
        honba=m.honba,
        riichi_sticks=m.riichi_sticks,
        rules=RiichiRules(**m.rules.model_dump()),
        flowers=m.flowers,
        last_copy=m.last_copy,
        win_tile_shown=m.win_tile_shown,
    )


_DEFAULTS = HandRequest(concealed=(), win_tile=Tile(0), win="tsumo")


def request_to_json(req: HandRequest) -> dict:
    """The spec's JSON object for ``req`` (tiles in written order; optional fields only when
    they differ from their defaults). ``parse_request(request_to_json(r)) == r``."""
    out: dict[str, Any] = {
        "ruleset": req.ruleset,
        "concealed": to_mpsz(req.concealed, sort=False),
        "melds": [],
        "win_tile": str(req.win_tile),
        "win": req.win,
        "seat_wind": req.seat_wind,
        "round_wind": req.round_wind,
    }
    for m in req.melds:
        d: dict[str, Any] = {"type": m.type, "tiles": to_mpsz(m.tiles, sort=False)}
        if m.called is not None:
            d["called"] = str(m.called)
        if m.from_ is not None:
            d["from"] = m.from_
        out["melds"].append(d)
    for name in ("last_wall_tile", "replacement_tile", "robbing_kong", "riichi", "ippatsu",
                 "tenhou", "chiihou", "honba", "riichi_sticks", "flowers", "last_copy",
                 "win_tile_shown"):
        value = getattr(req, name)
        if value != getattr(_DEFAULTS, name):
            out[name] = value
    for name in ("dora_indicators", "ura_dora_indicators"):
        value = getattr(req, name)
        if value:
            out[name] = to_mpsz(value, sort=False)
    if req.rules != RiichiRules():
        r = req.rules
        out["rules"] = {
            "aka": r.aka, "open_tanyao": r.open_tanyao, "kiriage": r.kiriage,
            "double_yakuman": r.double_yakuman, "kazoe": r.kazoe,
            "double_wind_pair_fu": r.double_wind_pair_fu,
        }
    return out


# a meld type by every name a player uses for it: `kan` is `daiminkan` (an open kan called
# from a discard) in typed hands, JSON requests, --meld and the API's melds alike
MELD_WORDS = {"chi": "chi", "pon": "pon", "kan": "daiminkan", "daiminkan": "daiminkan",
              "minkan": "daiminkan", "kakan": "kakan", "shouminkan": "kakan", "ankan": "ankan"}
_TEXT_MELDS = MELD_WORDS


def parse_text_hand(text: str, win_tile: str | None = None,
                    short_hand: bool = False) -> tuple[tuple[Tile, ...], tuple[Meld, ...], Tile]:
    """Read a hand typed by a person: ``"234m456p678s8s +pon 777z +ankan 0555p"``.

    The part before the first ``+`` is the concealed hand in mpsz; its **last written tile is
    the winning tile** unless ``win_tile`` is given (then every written tile is concealed).
    Each ``+TYPE TILES`` is a meld: ``chi``, ``pon``, ``kan`` (= ``daiminkan``, an open kan
    called from a discard), ``kakan`` (a pon upgraded by a drawn tile), ``ankan`` (closed
    kan). Returns ``(concealed, melds, win_tile)``; raises HandError naming a bad part.
    A hand one tile short (13 - 3 x melds written, no ``win_tile``) is taken for a hand typed
    without its winning tile and refused, unless ``short_hand`` (a verdict on a declared win,
    which may be short): its last tile is then the winning tile.
    """
    parts = text.split("+")
    head = parts[0].strip()
    try:
        tiles = list(parse_tiles(head))
    except TileError as exc:
        raise HandError(f"concealed part {head!r}: {exc}") from None
    if win_tile is not None:
        try:
            win = parse_tile(win_tile)
        except TileError as exc:
            raise HandError(f"winning tile: {exc}") from None
    elif not tiles:
        raise HandError("no concealed tiles: the hand starts with its concealed tiles, the last one the winning tile")
    melds = []
    for i, part in enumerate(parts[1:], 1):
        words = part.split(None, 1)
        if len(words) != 2 or words[0].lower() not in _TEXT_MELDS:
            raise HandError(
                f"meld {i} {('+' + part.strip())!r}: write +chi, +pon, +kan, +kakan or +ankan "
                "followed by its tiles, e.g. '+pon 777z'")
        try:
            mt = tuple(parse_tiles(words[1]))
        except TileError as exc:
            raise HandError(f"meld {i}: {exc}") from None
        melds.append(Meld(_TEXT_MELDS[words[0].lower()], mt))
    if win_tile is None:
        if len(tiles) == 13 - 3 * len(melds) and not short_hand:
            raise HandError(
                f"{len(tiles)} concealed tiles with {len(melds)} meld(s) is a hand without its winning "
                "tile: write the winning tile last, or name it separately (--win-tile)")
        win = tiles.pop()
    return tuple(tiles), tuple(melds), win


# ---- the Python constructors: request_from_text, request_from_json ----

_CHOICES = {"ruleset": ("riichi", "mcr"), "win": ("tsumo", "ron"), "seat_wind": tuple("ESWN"),
            "round_wind": tuple("ESWN"), "riichi": ("none", "riichi", "double")}
_SWITCHES = ("last_wall_tile", "replacement_tile", "robbing_kong", "ippatsu", "tenhou",
             "chiihou", "last_copy", "win_tile_shown")
_COUNTS = ("honba", "riichi_sticks", "flowers")      # their ranges: scoring.hand.check


def _check_table(table: dict[str, Any]) -> None:
    """Refuse a table fact of the wrong kind, named by its keyword (the JSON key's name):
    TypeError for a wrong type, HandError for a word that is not one of its choices."""
    for name, choices in _CHOICES.items():
        if table[name] not in choices:
            raise HandError(f"{name}: one of {', '.join(map(repr, choices))}, got {quoted(table[name])}")
    for name in _SWITCHES:
        if not isinstance(table[name], bool):
            raise TypeError(f"{name}: True or False, got {type(table[name]).__name__}")
    for name in _COUNTS:
        if not isinstance(table[name], int) or isinstance(table[name], bool):
            raise TypeError(f"{name}: a whole number, got {type(table[name]).__name__}")


def _rules(rules: Any) -> RiichiRules:
    """``rules`` as a :class:`RiichiRules`: one already, None (the defaults), or the JSON
    ``rules`` object (a dict, checked as ``docs/hand-json.md`` says)."""
    if rules is None:
        return RiichiRules()
    if isinstance(rules, RiichiRules):
        return rules
    if not isinstance(rules, dict):
        raise TypeError(f"rules: a RiichiRules or a dict such as {{'aka': False}}, got {type(rules).__name__}")
    try:
        return RiichiRules(**_RulesModel.model_validate(rules).model_dump())
    except ValidationError as exc:
        raise HandError(_explain(exc).replace("bad request: ", "rules: ", 1)) from None


def _indicators(value: Any, name: str) -> tuple[Tile, ...]:
    if isinstance(value, str):
        return tiles_of(value, name)
    if isinstance(value, (tuple, list)) and all(type(t) is Tile for t in value):
        return tuple(value)
    raise TypeError(f"{name}: tiles in mpsz such as '4m7z', got {type(value).__name__}")


def request_from_text(text: str, *, win: str, ruleset: str = "riichi", win_tile: str | None = None,
                      seat_wind: str = "E", round_wind: str = "E", riichi: str = "none",
                      dora_indicators: str = "", ura_dora_indicators: str = "",
                      honba: int = 0, riichi_sticks: int = 0, rules: RiichiRules | dict | None = None,
                      flowers: int = 0, last_wall_tile: bool = False, replacement_tile: bool = False,
                      robbing_kong: bool = False, ippatsu: bool = False, tenhou: bool = False,
                      chiihou: bool = False, last_copy: bool = False, win_tile_shown: bool = True,
                      short_hand: bool = False) -> HandRequest:
    """A :class:`HandRequest` from a hand typed as ``tilescope hand --text`` reads it.

    ``text``: ``"234m456p678s8s8s +pon 777z"``, the concealed tiles in mpsz with the winning
    tile written last (or named by ``win_tile``), then ``+chi``/``+pon``/``+kan``/``+kakan``/
    ``+ankan`` melds (:func:`parse_text_hand`). The keywords are the table facts, named and
    valued as the JSON request's keys (``docs/hand-json.md``): ``win`` (``"tsumo"`` or
    ``"ron"``, no default), ``seat_wind``, ``round_wind``, ``riichi``, ``dora_indicators``
    (mpsz text) … ``rules``: a :class:`RiichiRules` or the JSON ``rules`` object.
    ``short_hand``: as :func:`parse_text_hand` (a verdict on a hand one tile short).

    Raises HandError (a ValueError) naming a malformed hand or a bad value, TypeError naming
    a keyword of the wrong type (an unknown keyword: Python's own TypeError). Does not check
    that the hand is possible: :func:`scoring.score_hand` does.
    """
    if not isinstance(text, str):
        hint = "; a request dict goes to request_from_json" if isinstance(text, dict) else ""
        raise TypeError(f"request_from_text takes the hand as text such as "
                        f"'234m456p678s8s8s +pon 777z', got {type(text).__name__}{hint}")
    concealed, melds, win_at = parse_text_hand(text, win_tile, short_hand)
    table = dict(win=win, ruleset=ruleset, seat_wind=seat_wind, round_wind=round_wind,
                 riichi=riichi, honba=honba, riichi_sticks=riichi_sticks, flowers=flowers,
                 last_wall_tile=last_wall_tile, replacement_tile=replacement_tile,
                 robbing_kong=robbing_kong, ippatsu=ippatsu, tenhou=tenhou, chiihou=chiihou,
                 last_copy=last_copy, win_tile_shown=win_tile_shown)
    _check_table(table)
    return HandRequest(concealed=concealed, melds=melds, win_tile=win_at, rules=_rules(rules),
                       dora_indicators=_indicators(dora_indicators, "dora_indicators"),
                       ura_dora_indicators=_indicators(ura_dora_indicators, "ura_dora_indicators"),
                       **table)


def request_from_json(request: dict | str) -> HandRequest:
    """A :class:`HandRequest` from one JSON request (``docs/hand-json.md``): the decoded
    object (a dict) or its JSON text. Raises HandError naming a malformed request (as
    :func:`parse_request`), TypeError for anything but a dict or a str."""
    if isinstance(request, (str, bytes)):
        from json import JSONDecodeError, loads
        try:
            request = loads(request)
        except JSONDecodeError as exc:
            raise HandError(f"not JSON: {exc}") from None
        if not isinstance(request, dict):
            raise HandError(f"a request is a JSON object, got {json_kind(request)}")
    elif not isinstance(request, dict):
        raise TypeError(f"request_from_json takes a request dict or its JSON text "
                        f"(docs/hand-json.md), got {type(request).__name__}")
    return parse_request(request)


def as_request(req: Any, who: str) -> HandRequest:
    """``req`` as a :class:`HandRequest` for the Python function ``who``: one already, or a
    request dict (:func:`parse_request`: HandError naming a malformed key); TypeError saying
    what to pass for anything else."""
    if isinstance(req, HandRequest):
        return req
    if isinstance(req, dict):
        return parse_request(req)
    raise TypeError(f"{who} takes a HandRequest or a request dict (docs/hand-json.md), got "
                    f"{type(req).__name__} (scoring.request_from_text reads a typed hand)")
