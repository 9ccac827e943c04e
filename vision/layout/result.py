"""The parse's result: :class:`Layout`, the hand as it lies in the photo.

Made by :func:`vision.layout.parse_layout`; read by the corrections, the scorer's request, the
report and the annotated photo.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from vision.read.detections import Detection
from .groups import Group, LayoutWarning
from .request import TileRequest, build_request


@dataclass(slots=True)
class Layout:
    """The parsed hand.

    ``groups``: concealed, win, melds, dora, flower and loose groups (in that order).
    ``order``: every detection in reading order; ``--fix N=TILE`` refers to ``order[N-1]``.
    ``hand``: the tiles as a request's tile part (:class:`TileRequest`; ``win_tile`` when
    known, ``dora_indicators`` when a dora row was seen (riichi), ``flowers`` count (MCR));
    :attr:`tile_request` is its JSON.
    ``win_candidates``: tiles that could be the winning tile when it was not set apart.
    ``upside_down``: the rows were read right-to-left in image coordinates (a photo taken
    from across the table). ``direction``: the reading direction in degrees, -180..180
    (image coordinates, x right, y down: 0 = left to right, 90 = top to bottom).
    ``declared``: the groups the user declared (``--meld``, :func:`vision.layout.declare_groups`), kept
    through every re-reading (:func:`vision.layout.reparse_fixed`).
    """

    groups: list[Group]
    order: list[Detection]
    hand: TileRequest
    warnings: list[LayoutWarning] = field(default_factory=list)
    win_candidates: list[str] = field(default_factory=list)
    upside_down: bool = False
    direction: float = 0.0
    rows: int = 0
    ruleset: str = "riichi"
    source: list[int] = field(default_factory=list)
    row_numbers: list[list[int]] = field(default_factory=list)
    meld_repairs: dict[int, str] = field(default_factory=dict)
    declared: dict[tuple[int, int], str] = field(default_factory=dict)

    @property
    def tile_request(self) -> dict:
        """:attr:`hand` as the tile keys of a hand request (``docs/hand-json.md``)."""
        return self.hand.to_json()

    def hand_for_win(self, win: str, shown: bool = True) -> TileRequest:
        """The hand with ``win`` as the winning tile (``--win-tile``): that tile is taken out of
        the concealed part (plus the tile set apart, if any). ``shown`` False: it was not set
        apart (MCR's ``win_tile_shown: false``). Raises ValueError if the hand holds no such
        tile."""
        return build_request(self.groups, self.ruleset, win, shown)

    def request_for_win(self, win: str, shown: bool = True) -> dict:
        """:meth:`hand_for_win` as the tile keys of a hand request."""
        return self.hand_for_win(win, shown).to_json()

    def number(self, det: Detection) -> int:
        """1-based reading-order number of ``det``; KeyError when it is not in this layout."""
        for i, d in enumerate(self.order):
            if d is det:
                return i + 1
        raise KeyError("detection not in this layout")

    def group_of(self, kind: str) -> list[Group]:
        """The groups of one kind ("concealed", "win", "meld", "dora", "flower", "loose")."""
        return [g for g in self.groups if g.kind == kind]

    def to_json(self) -> dict:
        """The layout for ``--json``: groups by tile number, the tiles in reading order, rows."""
        groups = []
        for g in self.groups:
            entry = {"kind": g.kind, "tiles": [self.number(d) for d in g.detections],
                     "mpsz": g.mpsz()}
            if g.kind == "meld":
                entry.update({"type": g.meld_type, "called": g.called, "from": g.from_})
            groups.append(entry)
        return {
            "groups": groups,
            "order": [d.tile for d in self.order],
            "win_tile_shown": self.hand.win_tile_shown and self.hand.win_tile is not None,
            "win_candidates": list(self.win_candidates),
            "upside_down": self.upside_down,
            "direction_deg": round(self.direction, 1),
            "rows": self.rows,
            "row_tiles": [[self.order[n - 1].tile for n in row] for row in self.row_numbers],
        }


def tiles_add_up(layout: Layout) -> bool:
    """No ``tile_count`` warning: the tiles seen make as many as a winning hand has."""
    return not any(w.code == "tile_count" for w in layout.warnings)
