"""Test-run hooks: the browser tests' skip reason said once at the end of every run, ``-q``
included (a module skipped for a missing Chromium was a bare "s" before)."""
from __future__ import annotations

# the start of need_browser()'s reasons (tests/browsing.py): the skips said in the summary
BROWSER_REASONS = ("chromium and chromedriver are not installed", "selenium is not installed",
                   "uvicorn (the 'serve' extra) is not installed",
                   "the offline site is not built")     # tests/test_site_*.py


def browser_skip_line(reports) -> str | None:
    """One line for the browser test modules skipped in ``reports`` (pytest's skip reports),
    with the reason and how to get the browser; None when none was."""
    reasons, modules = [], 0
    for report in reports:
        longrepr = getattr(report, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")
        reason = reason.removeprefix("Skipped: ")
        if any(reason.startswith(r) for r in BROWSER_REASONS):
            modules += 1
            if reason not in reasons:
                reasons.append(reason)
    if not modules:
        return None
    return (f"browser tests skipped ({modules} module{'' if modules == 1 else 's'}): "
            f"{'; '.join(reasons)}")


def pytest_terminal_summary(terminalreporter) -> None:
    line = browser_skip_line(terminalreporter.stats.get("skipped", []))
    if line:
        terminalreporter.write_line(line, yellow=True)
