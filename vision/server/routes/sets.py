"""The set-profile routes (``docs/sets.md``): ``/api/set/learn`` (a set from a photo of its
tiles), ``/api/sets`` (the named sets), ``/api/set/add`` and ``/api/set/undo`` (one corrected
tile's picture added to a set, and taken back). Sets are named, never files, over HTTP."""
from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.responses import JSONResponse

from scoring.tiles import quoted
from vision.layout.fixspec import MAX_CODE

from vision.server.set_answers import learned_answer, set_counts, sheet_kinds, sheet_refused

from .errors import ApiError
from .inputs import PhotoInputs, photo_inputs, read_upload
from .models import ERRORS, SetChangeOut, SetLearnOut, SetsOut
from .state import ServerState

def install(app: FastAPI, state: ServerState) -> None:
    """Add the set routes to ``app``: learning a set and listing them, then the corrections
    of a photo added to a set and taken back."""
    _install_learning(app, state)
    _install_corrections(app, state)


def _install_learning(app: FastAPI, state: ServerState) -> None:
    """``/api/set/learn`` and ``/api/sets``."""

    @app.post("/api/set/learn", response_model=None, responses={200: {"model": SetLearnOut}, **ERRORS},
              summary="Teach a set from a photo of its tiles")
    async def api_set_learn(
        request: Request,
        image: UploadFile = File(..., description="photo of one set's tiles, face up, in rows"),
        name: str = Form(..., description="the set's name (letters, digits, _ - .); added to "
                                          "when it exists"),
        tiles: str | None = Form(None, description="the tiles in reading order (rows top to "
                                                   "bottom, each left to right), mpsz; default "
                                                   "the reference sheet of docs/sets.md"),
        trust_order: bool = Form(False, description="learn a sheet even when most of its tiles "
                                                    "read as other kinds than named"),
    ):
        """``tilescope set learn PHOTO --name NAME``: one reference per tile of the photo, added
        to the named set of the server's data folder. The tiles found must be as many as
        ``tiles`` names (else 422 ``tile_count``), and a sheet whose tiles mostly read as other
        kinds than named is refused (422 ``out_of_order``) unless ``trust_order``; both errors
        carry ``found``, the tiles found in reading order. A tile the reader names otherwise is
        learned as named and listed in ``disagreements``; two that each read as the other's
        kind (swapped on the table?) are also listed in ``swaps``."""
        data = await read_upload(image, request, state.limits.max_upload_bytes)
        path = state.sets.path(name)
        kinds = sheet_kinds(tiles)
        source = Path(image.filename or "").name[:60] or "upload"
        return JSONResponse(await state.workers.run(
            _learn, state, data, name, path, kinds, f"web {source}", trust_order))

    @app.get("/api/sets", response_model=SetsOut, responses={200: {"model": SetsOut}},
             summary="The named sets")
    async def api_sets():
        """The named sets of the server's data folder, each with its size (``tilescope set
        list``), and the set photos are read with when a request names none."""
        return JSONResponse(await state.workers.run(_listed, state, typed=True))


def _install_corrections(app: FastAPI, state: ServerState) -> None:
    """``/api/set/add`` and ``/api/set/undo``."""

    @app.post("/api/set/add", response_model=None, responses={200: {"model": SetChangeOut}, **ERRORS},
              summary="Add a corrected tile of a photo to a set")
    async def api_set_add(
        request: Request,
        image: UploadFile = File(..., description="the photo, as sent to /api/score"),
        name: str = Form(..., description="the set to add to (made when new)"),
        n: int = Form(..., description="the tile's number, as /api/score's answer numbers it"),
        tile: str = Form(..., description="what the tile really is: a tile code such as '5p'"),
        context: str | None = Form(None, description="as sent to /api/score (tile numbers depend on it)"),
        fixes: str | None = Form(None, description="as for /api/score"),
        melds: str | None = Form(None, description="as for /api/score"),
        win_tile: str | None = Form(None, description="as for /api/score"),
        set_name: str | None = Form(None, alias="set", description="the set the photo was read "
                                                                   "with (default: the set added to, "
                                                                   "if it exists)"),
    ):
        """``--fix N=TILE --learn NAME``: the photo is read as ``/api/score`` reads it (the same
        fields; an answer given a moment ago is not read again) and tile ``n``'s picture is added
        to the named set as ``tile``. Answers the set's new size; ``/api/set/undo`` takes it
        back."""
        from vision.read.classes import CLASS_INDEX

        data = await read_upload(image, request, state.limits.max_upload_bytes)
        path = state.sets.path(name)
        code = tile.strip()
        if code not in CLASS_INDEX:
            raise ApiError(422, "bad_tile", f"tile {quoted(code[:MAX_CODE])} is not a tile code "
                                            "such as '5p', '7z', '0p', '1f' or 'back'")
        inputs = photo_inputs(context, fixes, melds, win_tile)
        read_with = set_name or (name if path.exists() else None)
        return JSONResponse(await state.workers.run(
            _add, state, data, inputs, read_with, name, path, n, code))

    @app.post("/api/set/undo", response_model=None, responses={200: {"model": SetChangeOut}, **ERRORS},
              summary="Drop the last reference added to a set")
    async def api_set_undo(
        request: Request,
        name: str = Form(..., description="the set"),
        expect: int | None = Form(None, description="the size /api/set/add answered: the undo is "
                                                    "refused (409) when the set changed since"),
    ):
        """Undo of ``/api/set/add``: the set without its last reference."""
        return JSONResponse(await state.workers.run(_undo, state, name, expect, typed=True))


def set_answer(ts, **more) -> dict:
    """A set's name and size, as every set route answers it (and ``more``)."""
    return set_counts(more.pop("name", ts.name), len(ts), len(ts.held()), **more)


def _learn(state: ServerState, data: bytes, name: str, path: Path, kinds: list, source: str,
           trust_order: bool) -> dict:
    """``/api/set/learn``'s work: the sheet learned into the named set, which is saved."""
    from vision.read.set_learning import learn_sheet
    from vision.read.tileset import SetError

    reader = state.sets.base_reader()
    img = state.decode(data)
    with state.sets.writing(path):
        _, into = state.sets.load(name, model=reader.model_id)
        state.sets.room(into, len(kinds))
        try:
            learned = learn_sheet(reader, img, kinds, into=into if len(into) else None,
                                  name=name, source=source, trust_order=trust_order)
        except SetError as exc:
            raise sheet_refused(exc) from None
        state.sets.save(learned.tileset, path)
    ts = learned.tileset
    return learned_answer(ts.name, len(ts), len(ts.held()), len(kinds), learned.disagreements,
                          learned.swaps)


def _listed(state: ServerState) -> dict:
    """``/api/sets``' answer."""
    from vision.read.tileset import SetError, listed

    out = []
    for name, ts in listed():
        out.append({"name": name, "error": str(ts)} if isinstance(ts, SetError)
                   else set_answer(ts, name=name))
    own = getattr(state.reader, "tileset", None)
    return {"sets": out, "server_set": getattr(own, "name", None)}


def _add(state: ServerState, data: bytes, inputs: PhotoInputs, read_with: str | None, name: str,
         path: Path, n: int, code: str) -> dict:
    """``/api/set/add``'s work: the photo read as ``/api/score`` reads it, and tile ``n``'s
    picture added to the named set as ``code``."""
    from vision.read.set_learning import learn_tile
    from vision.read.tileset import SetError

    reader = state.sets.base_reader()
    photo, img = state.photo_run("score_photo", data, inputs, {}, read_with)
    order = photo.layout.order
    d = order[n - 1] if 0 < n <= len(order) else None
    if d is None or (n in inputs.fixes and d.tile != code):
        same = [t for t in order if t.tile == code and t.confidence == 1.0]
        d = same[0] if len(same) == 1 else None
    if d is None:
        raise ApiError(422, "no_such_tile", f"the photo has no tile {n} (it has "
                                            f"{len(order)}): nothing was added")
    with state.sets.writing(path):
        _, ts = state.sets.load(name, model=reader.model_id)
        state.sets.room(ts, 1)
        try:
            ts = learn_tile(reader, img, d, code, ts, f"web fix {n}={code}")
        except SetError as exc:
            raise ApiError(422, "set_error", str(exc)) from None
        state.sets.save(ts, path)
    return set_answer(ts, tile=code, n=n)


def _undo(state: ServerState, name: str, expect: int | None) -> dict:
    """``/api/set/undo``'s work: the named set without its last reference, saved."""
    with state.sets.writing(state.sets.path(name)):
        path, ts = state.sets.load(name)
        if not len(ts):
            raise ApiError(422, "empty_set", f"set {quoted(name)} holds no reference to drop")
        if expect is not None and expect != len(ts):
            raise ApiError(409, "set_changed", f"set {quoted(name)} holds {len(ts)} "
                                               f"references, not {expect}: it changed "
                                               "since, and nothing was dropped")
        dropped = ts.kinds[-1]
        ts = ts.without_last(1)
        state.sets.save(ts, path)
    return set_answer(ts, tile=dropped)
