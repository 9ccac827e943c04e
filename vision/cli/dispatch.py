"""The ``tilescope`` command: one verb per task, each in ``vision/cli/commands/<verb>.py``.

Each command module defines ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int`` (the exit code). Modules are imported only when their verb runs, so
``tilescope hand`` never loads OpenCV or onnxruntime.
"""
from __future__ import annotations

import argparse
import os
import importlib
import re
import sys

# verb -> (module, one-line help). Kept here so `tilescope --help` needs no imports.
COMMANDS: dict[str, tuple[str, str]] = {
    "hand": ("vision.cli.commands.hand", "score typed hands (JSON Lines or --text), riichi or MCR"),
    "waits": ("vision.cli.commands.waits", "hand in play -> shanten, waits and their values (--text or photo)"),
    "check": ("vision.cli.commands.check", "verdict on a disputed win (false hu, chombo, furiten)"),
    "read": ("vision.cli.commands.read", "detect the tiles in a photo"),
    "score": ("vision.cli.commands.score", "photo of a winning hand -> its value (the main job)"),
    "set": ("vision.cli.commands.set", "learn your tile set from one photo of it (then read with --set)"),
    "serve": ("vision.cli.commands.serve", "HTTP API and web page"),
    "stream": ("vision.cli.commands.stream", "live hand value on video / OBS overlay"),
    "batch": ("vision.cli.commands.batch", "score folders of photos and hours of video (all cores, Ray)"),
    "table": ("vision.cli.commands.table", "MCR table points of one table (EMA MCR rules)"),
    "gouji": ("vision.cli.commands.gouji", "Gouji team match scoring"),
    "xiangqi": ("vision.cli.commands.xiangqi", "Xiangqi knockout: bracket by lots, byes, forfeits, places 1-3"),
    "game": ("vision.cli.commands.game", "a riichi game's or an MCR session's ledger, hand to hand (JSON Lines of events)"),
}

# Top-level modules of optional extras -> the extra that installs them.
OPTIONAL_EXTRAS = {"fastapi": "serve", "uvicorn": "serve", "multipart": "serve", "websockets": "serve",
                   "starlette": "serve"}


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line naming the problem, then the
    ``--help`` to read, exit code 2 (argparse's own print the whole usage block first). Its
    subparsers (``tilescope set learn``) are of this class too: argparse makes them of the
    parent's class."""

    def error(self, message: str):
        print(f"{self.prog}: {_several_photos(self.prog, message) or _plain(message)} "
              f"({self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


# verbs that read one photo: more photos go to `tilescope batch`
_ONE_PHOTO = ("tilescope score", "tilescope read", "tilescope check", "tilescope waits")


def _several_photos(prog: str, message: str) -> str | None:
    """``score a.jpg b.jpg``: the words pointing to ``batch`` when what argparse could not
    place is more photos, else None."""
    from vision.common.filekind import PHOTO_SUFFIXES

    extra = message.removeprefix("unrecognized arguments: ").split()
    if prog not in _ONE_PHOTO or not message.startswith("unrecognized arguments: ") or not all(
            os.path.splitext(w)[1].lower() in PHOTO_SUFFIXES or os.path.isdir(w) for w in extra):
        return None
    return (f"{prog.split()[1]} reads one photo, and {' '.join(extra)} "
            f"{'is' if len(extra) == 1 else 'are'} more: score several with tilescope batch "
            "PHOTO... --out results.jsonl")


_CHOICE = re.compile(r"argument (?P<arg>\S+): invalid choice: (?P<got>.+?) \(choose from (?P<ok>.*)\)$")


def _plain(message: str) -> str:
    """argparse's message in fewer words: ``--seat: 'X' is not one of E, S, W, N``."""
    choice = _CHOICE.match(message)
    if choice:
        ok = ", ".join(c.strip().strip("'") for c in choice["ok"].split(","))
        return f"{choice['arg']}: {choice['got']} is not one of {ok}"
    return message.removeprefix("argument ")


def main(argv: list[str] | None = None) -> int:
    """The ``tilescope`` command: run the verb ``argv`` names (default ``sys.argv[1:]``).
    Returns the exit code: 0 done, 1 a photo or hand that could not be scored (a verb's own
    meaning, in its --help), 2 bad input or usage, 130 interrupted."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="tilescope",
        description="Photograph a mahjong hand and get its value (riichi or MCR). "
        "Run `tilescope VERB --help` for a verb's options, `tilescope --version` for the version.",
    )
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    for verb, (_, help_) in COMMANDS.items():
        sub.add_parser(verb, help=help_, add_help=False)
    if argv[:1] == ["--version"]:
        from importlib.metadata import PackageNotFoundError, version

        try:
            print(f"tilescope {version('tilescope')}")
        except PackageNotFoundError:        # run from a checkout that was never installed
            print("tilescope (not installed)")
        return 0
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        if argv and argv[0] not in ("-h", "--help"):
            print(f"tilescope: unknown command {argv[0]!r}: one of {', '.join(COMMANDS)} (tilescope --help)",
                  file=sys.stderr)
            return 2
        parser.print_help()
        return 0
    try:
        return _run_verb(argv)
    except KeyboardInterrupt:
        # Ctrl-C while the verb's modules still load (OpenCV, onnxruntime: a second or two)
        # or its arguments are read: the same quiet 130 as during the run, never a traceback.
        return 130


def _run_verb(argv: list[str]) -> int:
    """Import ``argv[0]``'s module, read its arguments and run it; its exit code."""
    verb = argv[0]
    module_name, help_ = COMMANDS[verb]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        # Only a missing optional extra is the user's to fix; anything else is a broken install.
        if exc.name in OPTIONAL_EXTRAS:
            print(f"tilescope {verb}: needs {exc.name!r}: pip install 'tilescope[{OPTIONAL_EXTRAS[exc.name]}]'",
                  file=sys.stderr)
            return 2
        raise
    verb_parser = OneLineParser(prog=f"tilescope {verb}", description=module.HELP)
    module.add_arguments(verb_parser)
    words = argv[1:]
    if verb in ("hand", "check", "score", "stream", "waits", "batch"):
        from vision.cli.commands.hand import riichi_words
        words = riichi_words(words)      # --riichi double = --double-riichi, on every verb
    args = verb_parser.parse_args(words)
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `tilescope read … | head` closes the pipe early: not an error of ours.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
