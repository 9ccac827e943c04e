"""The user's corrections to a photo's reading, parsed: fixed tiles and declared groups.

Two spellings, one module:

- the command line's ``--fix N=TILE`` and ``--meld N-M=TYPE`` items (:func:`parse_fixes`,
  :func:`parse_melds`), as ``tilescope score`` and ``tilescope check PHOTO`` take them;
- the JSON form fields ``fixes`` and ``melds`` of the HTTP API (:func:`fixes_from_json`,
  :func:`melds_from_json`), which also take the command line's items.
- the Python arguments ``fixes={3: '5p'}`` and ``melds={(9, 11): 'chi'}`` of
  :func:`vision.score_photo` (:func:`fixes_from_python`, :func:`melds_from_python`; the
  pipeline's messages in their words: :func:`in_python_words`).

Both give ``{tile number (1-based): tile code}`` and ``{(first, last): type}``; the tiles and
types are checked against the photo later (:func:`vision.layout.check_declared`). A malformed
entry raises :class:`FixSpecError`, whose message is in the words of the form it came in
(``--fix 3=5p`` on the command line, ``fixes {"3": "5p"}`` over HTTP: :func:`in_api_words`).

Pure Python: no OpenCV, no CLI or server module.
"""
from __future__ import annotations

import re
from typing import Any

from scoring.tiles import quoted

from vision.common.jsontext import small_int

MAX_CODE = 8       # characters of a tile code or a winning tile sent in a form field


class FixSpecError(ValueError):
    """A fix or a declared group the user must correct. ``code``: the API's short name for it
    (``bad_fixes``, ``bad_melds``)."""

    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.code = code


# ---- the command line's items ----

def parse_fixes(items: list[str]) -> dict[int, str]:
    """``["3=5p", "7=0m"]`` → ``{3: "5p", 7: "0m"}``. Raises FixSpecError for a malformed item."""
    out: dict[int, str] = {}
    for item in items:
        text, sep, tile = item.partition("=")
        n = small_int(text)
        if not sep or n is None or not tile.strip():
            raise FixSpecError(f"--fix {item}: expected N=TILE, e.g. --fix 3=5p", "bad_fixes")
        if n in out and out[n] != tile.strip():
            raise FixSpecError(f"--fix {item}: tile {n} is already fixed to {out[n]}", "bad_fixes")
        out[n] = tile.strip()
    return out


def parse_melds(items: list[str]) -> dict[tuple[int, int], str]:
    """``["9-11=chi", "12-14=concealed"]`` → ``{(9, 11): "chi", (12, 14): "concealed"}``
    (``N=TYPE`` alone is one tile, for ``concealed``). Raises FixSpecError for a malformed item;
    the types and sizes are checked against the photo's tiles later
    (:func:`vision.layout.check_declared`)."""
    out: dict[tuple[int, int], str] = {}
    for item in items:
        span, sep, kind = item.partition("=")
        first, dash, last = span.strip().partition("-")
        first, last = small_int(first), small_int(last if dash else first)
        if not sep or not kind.strip() or first is None or last is None:
            raise FixSpecError(f"--meld {item}: expected N-M=TYPE, e.g. --meld 9-11=chi", "bad_melds")
        span = (first, last)
        if span in out:
            raise FixSpecError(f"--meld {item}: tiles {span[0]}-{span[1]} are already declared "
                               f"{out[span]}", "bad_melds")
        out[span] = kind.strip().lower()     # kan = daiminkan: vision.layout.check_declared
    return out


# ---- the HTTP API's form fields ----

# the command line's options as an API caller writes them (a message names what was sent)
_API_WORDS = (
    # an error names the option it is about before ": ", whatever the value sent ("5p?", "a b")
    (re.compile(r"^--fix (\d+)=(.*?): "), r'fixes {"\1": "\2"}: '),
    (re.compile(r"^--meld (\d+(?:-\d+)?)=(.*?): "), r'melds {"\1": "\2"}: '),
    (re.compile(r"^--meld ([^=:]*)=(.*?): "), r'melds {"\1": "\2"}: '),
    (re.compile(r"^--win-tile (.*?): "), r'win_tile "\1": '),
    (re.compile(r"--fix (\d+)=(\w+)"), r'fixes {"\1": "\2"}'),
    (re.compile(r"--fix N=TILE"), r'fixes {"N": "TILE"}'),
    (re.compile(r"--meld (\d+(?:-\d+)?)=(\w+)"), r'melds {"\1": "\2"}'),
    (re.compile(r"--meld (\d+(?:-\d+)?)\b(?!=)"), r'melds "\1"'),
    (re.compile(r"--win-tile (\w+)"), r'win_tile "\1"'),
)


def in_api_words(message: str) -> str:
    """A pipeline error naming ``--fix 3=5p``, ``--meld 9-11=chi`` or ``--win-tile 4m`` with the
    form fields the API caller sent instead (``fixes {"3": "5p"}``…)."""
    for pattern, words in _API_WORDS:
        message = pattern.sub(words, message)
    return message


def fixes_from_json(value) -> dict[int, str]:
    """Fixes as sent by the page or a script → ``{tile number (1-based): tile code}``.

    Accepts ``{"3": "5p"}``, ``[[3, "5p"]]`` or ``["3=5p"]`` (the CLI's ``--fix`` form).
    Raises FixSpecError (``bad_fixes``) naming the bad entry.
    """
    items: list[tuple[Any, Any]]
    if value is None:
        return {}
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = []
        for entry in value:
            if isinstance(entry, str) and "=" in entry:
                items.append(tuple(entry.split("=", 1)))
            elif isinstance(entry, (list, tuple)) and len(entry) == 2:
                items.append((entry[0], entry[1]))
            else:
                raise FixSpecError(f"fix {quoted(entry)} is not 'N=TILE' or [N, TILE]", "bad_fixes")
    else:
        raise FixSpecError("fixes must be an object {tile number: tile code}", "bad_fixes")
    out: dict[int, str] = {}
    for key, tile in items:
        if isinstance(key, str):
            n = small_int(key)
        elif isinstance(key, int) and not isinstance(key, bool) and key < 10**6:  # true is not tile 1
            n = key
        else:
            n = None
        if n is None:
            raise FixSpecError(f"fix key {quoted(key)} is not a tile number", "bad_fixes")
        # a tile code is a few characters ('5p', 'none'): a longer one would be echoed back
        # by every message about it
        if n < 1 or not isinstance(tile, str) or len(tile.strip()) > MAX_CODE:
            raise FixSpecError(f"fix {quoted(key)}: {quoted(tile)} needs a tile number >= 1 and "
                               "a tile code such as '5p'", "bad_fixes")
        if n in out and out[n] != tile.strip():
            raise FixSpecError(f"tile {n} is fixed twice ({out[n]} and {tile.strip()})", "bad_fixes")
        out[n] = tile.strip()
    return out


def melds_from_json(value) -> dict[tuple[int, int], str]:
    """Declared groups as sent by a script → ``{(first, last): type}`` (``--meld``).

    Accepts ``{"9-11": "chi"}`` or ``["9-11=chi"]`` (the CLI's form). Raises FixSpecError
    (``bad_melds``) naming the bad entry in the API's words; types and sizes are checked
    against the photo's tiles by the pipeline."""
    if value is None:
        return {}
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        items = [f"{k}={v}" for k, v in value.items()]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = value
    else:
        raise FixSpecError('melds must be an object such as {"9-11": "chi"}', "bad_melds")
    long = next((item for item in items if len(item) > 4 * MAX_CODE), None)
    if long is not None:        # its every message would repeat it: "9-11=concealed" is short
        raise FixSpecError(f"melds: {quoted(long)} is not tiles and a type such "
                           'as {"9-11": "chi"}', "bad_melds")
    try:
        return parse_melds(items)
    except FixSpecError as exc:
        raise FixSpecError(in_api_words(str(exc)), exc.code) from None


# ---- a Python caller's arguments (vision.score_photo(..., fixes=..., melds=...)) ----

def _number(value: Any) -> int | None:
    """A tile number as a Python caller writes it: an int (not a bool: True is not tile 1)
    or its digits."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return small_int(value) if isinstance(value, str) else None


def fixes_from_python(value: Any) -> dict[int, str] | None:
    """``fixes`` as :func:`vision.score_photo` takes them, ``{3: '5p'}``, checked for shape:
    TypeError or ValueError naming ``fixes`` for anything else (a list, a key that is no
    tile number). The tile codes and numbers are checked against the photo later."""
    if not value:
        if value is None or isinstance(value, dict):
            return None
    if not isinstance(value, dict):
        raise TypeError(f"fixes: a dict {{tile number: tile code}}, e.g. {{3: '5p'}}, "
                        f"got {type(value).__name__}")
    out: dict[int, str] = {}
    for key, tile in value.items():
        n = _number(key)
        if n is None:
            raise ValueError(f"fixes: key {quoted(key)} is not a tile number (1-based, as the "
                             "report numbers the tiles), e.g. {3: '5p'}")
        if not isinstance(tile, str):
            raise TypeError(f"fixes: tile {n}: a tile code such as '5p', got {type(tile).__name__}")
        out[n] = tile
    return out


def melds_from_python(value: Any) -> dict[tuple[int, int], str] | None:
    """``melds`` as :func:`vision.score_photo` takes them, ``{(9, 11): 'chi'}``, checked for
    shape: TypeError or ValueError naming ``melds`` for anything else. The types and sizes
    are checked against the photo later (:func:`vision.layout.check_declared`)."""
    if not value:
        if value is None or isinstance(value, dict):
            return None
    if not isinstance(value, dict):
        raise TypeError(f"melds: a dict {{(first, last): type}}, e.g. {{(9, 11): 'chi'}}, "
                        f"got {type(value).__name__}")
    out: dict[tuple[int, int], str] = {}
    for span, kind in value.items():
        ends = tuple(_number(n) for n in span) if isinstance(span, (tuple, list)) else ()
        if len(ends) != 2 or None in ends:
            raise ValueError(f"melds: key {quoted(span)} is not (first, last) tile numbers, "
                             "e.g. {(9, 11): 'chi'}")
        if not isinstance(kind, str):
            raise TypeError(f"melds: {ends}: a type such as 'chi', got {type(kind).__name__}")
        out[ends] = kind
    return out


# the command line's options as a Python caller writes the arguments
_PYTHON_WORDS = (
    (re.compile(r"--fix (\d+)=([^\s:]*)"), r"fixes {\1: '\2'}"),
    (re.compile(r"--fix N=TILE"), "fixes {N: 'TILE'}"),
    (re.compile(r"--meld (\d+)-(\d+)=([^\s:]*)"), r"melds {(\1, \2): '\3'}"),
    (re.compile(r"--meld (\d+)-(\d+)\b(?!=)"), r"melds {(\1, \2): ...}"),
    (re.compile(r"--win-tile ([^\s:]*)"), r"win_tile '\1'"),
)


def in_python_words(message: str) -> str:
    """A pipeline error naming ``--fix 3=5p``, ``--meld 9-11=chi`` or ``--win-tile 4m`` with
    the arguments a Python caller passed instead (``fixes {3: '5p'}``…)."""
    for pattern, words in _PYTHON_WORDS:
        message = pattern.sub(words, message)
    return message
