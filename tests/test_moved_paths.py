"""The module paths before issue 41 (``vision.pipeline``, ``vision.report``, … as the README and
notebooks of 0.1 used them) still import for one release: the same module as the new path, with a
DeprecationWarning that names it."""
import importlib
import sys
import warnings

import pytest

from vision.common.moved import MOVED, new_path


def _fresh(name: str) -> None:
    sys.modules.pop(name, None)


@pytest.mark.parametrize("old", ["vision.pipeline", "vision.report", "vision.annotate",
                                 "vision.detections", "vision.imageio"])
def test_an_old_path_warns_and_gives_the_new_module(old):
    _fresh(old)
    with pytest.warns(DeprecationWarning, match=f"{old} has moved to {new_path(old)}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new_path(old))


def test_a_module_of_a_moved_package_is_loaded_once():
    _fresh("vision.routes.site")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = importlib.import_module("vision.routes.site")
    assert old is importlib.import_module("vision.server.routes.site")


def test_the_old_names_of_the_programs_still_give_their_names():
    # vision.server, vision.cli, … are packages now; what the module of that name held is still there
    from vision.cli import COMMANDS, main
    from vision.server import Limits, create_app  # noqa: F401 - importable is the test

    assert callable(main) and "score" in COMMANDS


def test_every_moved_path_names_a_module_that_exists():
    for old in MOVED:
        assert importlib.util.find_spec(new_path(f"vision.{old}")) is not None, old
