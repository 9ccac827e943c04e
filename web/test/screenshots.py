"""The offline site's screenshots in docs/ at a phone's 390 x 844 CSS px, taken with the network
off: the capture screen, a photo's result, a tile being corrected, and the table's ledger.

    python web/test/screenshots.py [--site web/dist] [--out docs]

Needs the built site (``cd web && npm ci && npm run build``) and Chromium (``.ci/install_browser.sh``).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from browsing import chromium, tap_tile  # noqa: E402
from test_site_offline import (PREFIX, a_game_kept_in_the_browser, network, score_sample,  # noqa: E402
                               static_server, wait_kept, wait_ready)

EVENTS = [  # a few hands of a riichi game, as docs/game-json.md writes them
    {"type": "ron", "discarder": "Cai", "winners": [{"player": "Ann", "han": 3, "fu": 40}]},
    {"type": "tsumo", "player": "Dan", "han": 2, "fu": 30},
]


def shot(d, out: Path, name: str) -> None:
    time.sleep(0.4)                 # the last paint
    d.save_screenshot(str(out / name))
    print(f"wrote {out / name}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", default=str(REPO / "web" / "dist"))
    ap.add_argument("--out", default=str(REPO / "docs"))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from selenium.webdriver.common.by import By

    with tempfile.TemporaryDirectory(prefix="tilescope-shots-") as root:
        os.symlink(Path(args.site).resolve(), Path(root) / PREFIX)
        with static_server(Path(root)) as served, chromium(phone=True) as d:
            site = f"{served.url}/{PREFIX}/"
            d.get(site)
            wait_ready(d)
            wait_kept(d)
            network(d, online=False)        # everything below comes from the phone alone
            served.stop()
            d.get(site)
            wait_ready(d)
            shot(d, out, "phone-capture.png")

            score_sample(d)
            for _ in range(200):        # the verdict is asked for after the value
                if "being ruled" not in d.find_element(By.ID, "verdict").text:
                    break
                time.sleep(0.2)
            d.execute_script("document.getElementById('result-section').scrollIntoView({block: 'start'})")
            shot(d, out, "phone-result.png")

            data = d.execute_script("return state.data")
            tap_tile(d, data["tiles"][0]["box"])   # the picker open on the first tile
            time.sleep(0.5)
            shot(d, out, "phone-correction.png")
            d.execute_script("document.getElementById('picker').close()")

            a_game_kept_in_the_browser(d, site)     # started, Bob's riichi, the page reloaded
            game_id = d.execute_async_script(
                "const done = arguments[0]; fetch('/api/games').then(r => r.json())"
                ".then(g => done(g.games[0].id))")
            for ev in EVENTS:
                got = d.execute_async_script(
                    "const [id, ev, done] = arguments; fetch('/api/games/' + id + '/events', "
                    "{method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(ev)})"
                    ".then(r => r.json()).then(done)", game_id, ev)
                assert "error" not in got, got
            d.execute_script("openGame(arguments[0])", game_id)
            time.sleep(1.0)
            d.execute_script("window.scrollTo(0, 0)")
            shot(d, out, "phone-ledger.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
