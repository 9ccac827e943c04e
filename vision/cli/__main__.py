"""``python -m vision.cli``: the ``tilescope`` command."""
from vision.cli.dispatch import main

if __name__ == "__main__":
    raise SystemExit(main())
