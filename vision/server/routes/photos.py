"""The photo routes: ``/api/read`` (the tiles), ``/api/score`` (the hand's value) and
``/api/check-photo`` (the referee's verdict), each as its CLI verb answers with ``--json``."""
from __future__ import annotations

from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.responses import JSONResponse


from .errors import ApiError
from vision.server.fields import photo_inputs, table_facts  # noqa: F401 - table_facts: public here
from .inputs import read_upload
from .models import ERRORS, ReadOut, ScoreOut
from .state import ServerState

_SET_HELP = "read with this named set (GET /api/sets; default: the server's own, serve --set)"
_TABLE_HELP = ('JSON object of what happened at the table: {"declared": "hu", "revealed": true, '
               '"discards": "19m5p", "tournament": false, "penalties": {...}}')


def install(app: FastAPI, state: ServerState) -> None:
    """Add the photo routes to ``app``."""

    @app.post("/api/read", response_model=None, responses={200: {"model": ReadOut}, **ERRORS},
              summary="Detect the tiles in a photo")
    async def api_read(request: Request, image: UploadFile = File(..., description="JPEG/PNG/WebP photo"),
                       set_name: str | None = Form(None, alias="set", description=_SET_HELP),):
        """The tiles in the photo: class, box (pixels of the image as read, whose size is
        ``image``), confidence, sideways."""
        data = await read_upload(image, request, state.limits.max_upload_bytes)

        def work():
            reader, _ = state.sets.reader_for(set_name)
            return reader.read(state.decode(data)).to_json()

        return JSONResponse(await state.workers.run(work))

    @app.post("/api/score", response_model=None, responses={200: {"model": ScoreOut}, **ERRORS},
              summary="Photo of a winning hand → its value")
    async def api_score(
        request: Request,
        image: UploadFile = File(..., description="JPEG/PNG/WebP photo of the hand"),
        context: str | None = Form(None, description='JSON object, e.g. {"ruleset": "riichi", '
                                                      '"win": "ron", "seat_wind": "S"}'),
        fixes: str | None = Form(None, description='JSON object {"3": "5p"}: tile 3 is really 5p'),
        melds: str | None = Form(None, description='JSON object {"9-11": "chi"}: tiles 9-11 are an '
                                                    'exposed chi ("concealed": part of the hand)'),
        win_tile: str | None = Form(None, description="the winning tile, when the photo does not show it apart"),
        set_name: str | None = Form(None, alias="set", description=_SET_HELP),
    ):
        """Recognised tiles, layout, the hand request and its score (``tilescope score --json``)."""
        data = await read_upload(image, request, state.limits.max_upload_bytes)
        inputs = photo_inputs(context, fixes, melds, win_tile)
        return JSONResponse(await state.workers.run(state.photo_json, "score_photo", data, inputs,
                                                    {}, set_name))

    @app.post("/api/check-photo", response_model=None, responses={200: {"model": ScoreOut}, **ERRORS},
              summary="Verdict on a disputed win, from a photo of the hand")
    async def api_check_photo(
        request: Request,
        image: UploadFile = File(..., description="JPEG/PNG/WebP photo of the hand"),
        context: str | None = Form(None, description="as for /api/score"),
        fixes: str | None = Form(None, description="as for /api/score"),
        melds: str | None = Form(None, description="as for /api/score"),
        win_tile: str | None = Form(None, description="as for /api/score"),
        table: str | None = Form(None, description=_TABLE_HELP),
        set_name: str | None = Form(None, alias="set", description="as for /api/score"),
    ):
        """``tilescope check PHOTO --json``: the photo read as ``/api/score`` reads it, then the
        referee's verdict in ``result`` (``ruling``, ``valid``, ``penalty``, ``explanation``).
        A ruling against the player on tiles the reader was unsure of is held back:
        ``ruling`` null and ``error`` "Cannot rule from this photo: …", naming the tiles."""
        data = await read_upload(image, request, state.limits.max_upload_bytes)
        inputs = photo_inputs(context, fixes, melds, win_tile)
        kw = table_facts(table)
        return JSONResponse(await state.workers.run(state.photo_json, "check_photo", data, inputs,
                                                    kw, set_name))
