"""JSON text from a user (a JSON Lines line, ``--context``, a form field) decoded with a one-line
reason when it cannot be, never a traceback: json's own message, a number of thousands of
digits (Python refuses to convert it), nesting deeper than Python's recursion allows."""
from __future__ import annotations

import json
from typing import Any


class _Refused(ValueError):
    """JSON that Python's json reads but JSON does not allow (a key twice, NaN)."""


def _no_constant(name: str) -> Any:
    # Python's json reads NaN, Infinity and -Infinity, which JSON does not have
    raise _Refused(f"{name} is not a JSON value")


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict:
    # json keeps the last of two equal keys without a word: {"score": 5, "score": 1} is 1
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise _Refused(f"key {twice!r} is given twice in one object")
    return out


def _no_lone_surrogate(value: Any) -> None:
    # "\ud800" alone is valid JSON but no text: Python reads it into a str that cannot be
    # written as UTF-8 (a game file's line, an answer), so it is refused as it is read
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise _Refused(f"\\u{ord(item[exc.start]):04x} alone is no character (a lone "
                               "surrogate)") from None


def load_json(text: str) -> Any:
    """The value of JSON ``text``. Raises ValueError whose message is the reason it is not
    JSON (``Expecting value at column 9``), an object names a key twice, or it cannot be
    decoded; callers say what was read."""
    text = text.rstrip()        # a line's own end is no second line of the JSON
    if not text:
        raise ValueError("empty: no JSON value at all")
    try:
        value = json.loads(text, object_pairs_hook=_no_repeated_keys, parse_constant=_no_constant)
        if "\\u" in text:
            _no_lone_surrogate(value)
        return value
    except _Refused as exc:
        raise ValueError(str(exc)) from None
    except json.JSONDecodeError as exc:
        # json's own messages may end in "at" ("Invalid control character at")
        where = f"line {exc.lineno} column {exc.colno}" if exc.lineno > 1 else f"column {exc.colno}"
        raise ValueError(f"{exc.msg.removesuffix(' at')} at {where}") from None
    except RecursionError:
        raise ValueError("nested thousands deep, more than can be read") from None
    except ValueError:          # an integer of more digits than Python converts (4300)
        raise ValueError("a number with thousands of digits, more than can be read") from None


def small_int(text: str, max_digits: int = 6) -> int | None:
    """``text`` (spaces around allowed) as a non-negative int when it is ASCII digits only, at
    most ``max_digits`` of them; else None. ``str.isdigit`` also takes ``²`` and ``٢`` (which
    ``int`` refuses or reads as another script's digit) and any number of digits (Python
    refuses to convert more than 4300): a tile number, a webcam index are small ASCII numbers."""
    text = text.strip()
    if not text or len(text) > max_digits or not all("0" <= c <= "9" for c in text):
        return None
    return int(text)
