"""Which offline site ``tilescope serve`` serves at /phone/ (vision/cli/commands/serve.py):
``--site DIR``, else the checkout's web/dist — the package's own checkout (an editable
install) or, for a copy installed with ``pip install .``, the folder the server is started in."""
from __future__ import annotations

from pathlib import Path

import pytest

from vision.cli.commands import serve
from vision.server.routes import site


def built(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in ("index.html", "sw.js", "worker.js"):
        (folder / name).write_text("")
    return folder


def test_an_installed_copy_serves_the_site_built_in_the_folder_it_is_started_in(tmp_path, monkeypatch):
    monkeypatch.setattr(site, "SITE_DIRS", (tmp_path / "nowhere" / "web" / "dist", Path("web") / "dist"))
    monkeypatch.chdir(tmp_path)
    assert serve._site_dir(None) == (None, None)          # nothing built: no site, no error
    dist = built(tmp_path / "web" / "dist")
    assert serve._site_dir(None) == (str(dist.resolve()), None)


def test_a_site_named_must_be_built(tmp_path):
    assert serve._site_dir("none") == (None, None)
    where, problem = serve._site_dir(str(tmp_path))
    assert where is None and "is not a built offline site" in problem
    dist = built(tmp_path / "dist")
    assert serve._site_dir(str(dist)) == (str(dist), None)


@pytest.mark.parametrize("name", ["index.html", "sw.js", "worker.js"])
def test_each_missing_file_is_named(tmp_path, name):
    dist = built(tmp_path / "dist")
    (dist / name).unlink()
    assert f"no {name}" in site.site_problem(dist)
