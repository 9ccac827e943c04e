"""Endpoints of ``tilescope serve`` kept apart from vision/server.py, one module per family;
each has ``install(app, deps)``, called once from :func:`vision.server.create_app`."""
