"""A scored hand said in one line, for a live banner (the overlay, the stream window, batch
summaries)."""
from __future__ import annotations


def summarize(result: dict | None) -> str:
    """One line for a banner: '3 han 40 fu · 5200' / '17 points · 41' / the error or reason."""
    if not result:
        return "not scored"
    if result.get("error"):
        # the command line's advice ("pass --fix N=TILE …") is no use on a live banner
        reason = result["error"].split(" (see the warnings")[0].split(" — ")[0].split("; pass ")[0]
        return f"not scored: {reason}"
    if result.get("valid") is False:
        return f"no valid win: {result.get('reason', '')}".rstrip(": ")
    pay = (result.get("payment") or {}).get("total")
    if "fans" in result:
        value = f"{result.get('total')} points"
    elif result.get("limit"):
        value = f"{result['limit']} ({result.get('han')} han)"
    else:
        value = f"{result.get('han')} han {result.get('fu')} fu"
    return f"{value} · {pay}" if pay is not None else value
