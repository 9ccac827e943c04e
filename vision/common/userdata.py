"""Where tilescope keeps what a user makes (set profiles, the table mode's games):
``$TILESCOPE_DATA/<kind>`` when that is set (tests, a shared folder), else the platform's user
data folder (platformdirs: ``~/.local/share/tilescope`` on Linux)."""
from __future__ import annotations

import os
from pathlib import Path


def user_folder(kind: str) -> Path:
    """The folder of one kind of user data, e.g. ``user_folder("sets")``; not created here."""
    root = os.environ.get("TILESCOPE_DATA")
    if root:
        return Path(root) / kind
    from platformdirs import user_data_path

    return user_data_path("tilescope", appauthor=False) / kind
