"""The verbs of the ``tilescope`` command line, one module each (``vision.cli.dispatch`` wires them)."""
from __future__ import annotations

import re


def doc_epilog(doc: str) -> str:
    """A command module's docstring (after its first line) as ``--help`` text: reST's ``::``
    and ``:mod:`a.b``` made plain, and a note that the examples' ``#`` notes are not JSON."""
    body = doc.split("\n", 2)[2].replace("::\n", ":\n")
    body = re.sub(r":mod:`([\w.]+)`", lambda m: m.group(1).replace(".", "/") + ".py", body)
    body = body.replace("``", "")
    return ("JSON formats and rules:\n" + body.rstrip()
            + "\n\nThe # notes in the examples are not JSON: leave them out of a real file.")
