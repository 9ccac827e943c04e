"""The installed distribution must carry every subpackage: a plain ``packages = [...]`` list in
pyproject once shipped ``vision`` without ``vision.cli.commands`` and every verb failed after
``pip install .`` while the tests (run from the checkout) passed."""
import tomllib
from pathlib import Path

from setuptools import find_packages

REPO = Path(__file__).resolve().parents[1]


def test_every_package_under_scoring_and_vision_is_installed():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    include = config["packages"]["find"]["include"]
    shipped = set(find_packages(where=str(REPO), include=include))
    on_disk = {
        ".".join(p.parent.relative_to(REPO).parts)
        for top in ("scoring", "vision")
        for p in (REPO / top).rglob("__init__.py")
    }
    assert on_disk <= shipped
    assert {"vision.cli.commands", "scoring.riichi", "scoring.mcr"} <= shipped
    assert not any(name.startswith("datasets") for name in shipped)


def test_every_cli_verb_module_exists():
    from vision.cli.dispatch import COMMANDS

    for verb, (module, _) in COMMANDS.items():
        path = REPO / (module.replace(".", "/") + ".py")
        assert path.exists(), f"tilescope {verb}: {path} missing"


def test_both_packages_say_they_are_typed():
    # PEP 561: without py.typed in the installed package a type checker ignores its hints
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    for top in ("scoring", "vision"):
        assert (REPO / top / "py.typed").exists()
        assert "py.typed" in config["package-data"][top]


def test_the_moved_data_files_are_installed():
    # issue 41: the web pages moved with the server (vision/server/web); weights and samples stay
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for package, patterns in config.items():
        for pattern in patterns:
            assert list((REPO / package.replace(".", "/")).glob(pattern)), (package, pattern)
    assert "web/*" in config["vision.server"]
