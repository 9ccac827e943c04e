"""The HTTP server's parts, one job each, assembled by :func:`vision.server.app.create_app`.

- :mod:`.state`: the one value the routes share (limits, the reader, the worker threads, the
  memo of readings, the set profiles' storage); :mod:`.workers`, :mod:`.readings`,
  :mod:`.setstore` are its parts.
- :mod:`.inputs`: a request's body and form fields, read and checked (:class:`.errors.ApiError`).
- :mod:`.guard`: the middleware that bounds bodies and photos in flight; :mod:`.errors`: the
  error answers' one shape; :mod:`.models`: the documented answer shapes (OpenAPI).
- The routes, each module with ``install(app, state)``: :mod:`.photos` (``/api/read``,
  ``/api/score``, ``/api/check-photo``), :mod:`.sets` (``/api/set/*``, ``/api/sets``),
  :mod:`.typed` (``/api/hand``, ``/api/check``), :mod:`.waits` (``/api/waits``), :mod:`.game`
  (the table mode: ``/api/games…``, ``/table``), :mod:`.site` (``/api/health``, the page).

A new route module is one more ``install(app: FastAPI, state: ServerState) -> None`` (import
``ServerState`` from :mod:`.state`, never from ``vision.server.app``: that would be an import
circle) and one line in ``create_app``. Blocking work runs through ``await
state.workers.run(fn, *args, typed=True)`` (``typed``: the typed hands' thread; without it a
photo thread), a JSON body is read with :func:`.inputs.strict_body`, errors are raised as
:class:`.errors.ApiError`, and ``responses={..., **models.ERRORS}`` documents them. A route
that takes a photo adds its path to :data:`.guard.PHOTO_PATHS`.
"""
