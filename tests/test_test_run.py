"""The test run itself (issue 40, finding 8): a missing Chromium is said once, at the end of
the run, ``-q`` included, with how to get it; the README's test command says so too."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_a_missing_browser_is_said_once_at_the_end_of_a_quiet_run(tmp_path):
    # a PATH without chromium: the browser modules skip, and the run says why, once
    env = {**os.environ, "PATH": os.path.dirname(sys.executable)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "tests/test_browser_newcomer.py", "tests/test_waits_browser.py"],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    lines = run.stdout.splitlines()
    said = [x for x in lines if x.startswith("browser tests skipped")]
    assert said == ["browser tests skipped (2 modules): chromium and chromedriver are not "
                    "installed (bash .ci/install_browser.sh installs them)"], run.stdout
    assert run.returncode in (0, 5) and "2 skipped" in lines[-1]     # 5: every module skipped


def test_the_readme_test_command_says_how_to_get_the_browser():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set-up: two commands")[1].split("\n## ")[0]
    commands = setup.split("```")[1].strip().splitlines()
    assert commands == ['pip install . && tilescope score vision/samples/riichi_open_red.jpg --win ron --seat S --dora 1p',
                        'pip install ".[dev]" && python -m pytest -q']          # still two
    assert "bash .ci/install_browser.sh" in setup
