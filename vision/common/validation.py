"""Pydantic's judgement of a user's JSON said one line per problem, and the field types shared
by the table, game and knockout documents (CLI and HTTP alike)."""
from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints, ValidationError

# "Ann " is Ann: a trailing space must not make a second player (or team)
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


def format_validation_error(exc: ValidationError) -> str:
    """One line per problem: 'where: what'."""
    lines = []
    for err in exc.errors():
        # list positions counted from 1, as a scorekeeper counts players and games
        where = ".".join(f"#{p + 1}" if isinstance(p, int) else "(name)" if p == "[key]"
                         else str(p) or '""' for p in err["loc"]) or "(document)"
        lines.append(f"  {where}: {err['msg']}")
    return "\n".join(lines)
