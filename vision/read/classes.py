"""The detector's 46 classes, in the order of the model's outputs.

Tile codes in mpsz (``0m 0p 0s`` are red fives), flowers/seasons ``1f``..``8f`` and ``back``
(a face-down tile, as in a closed kan). Sideways tiles are geometry, not classes.
"""
TILE_CLASSES: tuple[str, ...] = tuple(
    [f"{n}{s}" for s in "mps" for n in range(1, 10)]
    + [f"{n}z" for n in range(1, 8)]
    + ["0m", "0p", "0s"]
    + [f"{n}f" for n in range(1, 9)]
    + ["back"]
)
assert len(TILE_CLASSES) == 46
CLASS_INDEX = {name: i for i, name in enumerate(TILE_CLASSES)}
