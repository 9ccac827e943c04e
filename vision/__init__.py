"""tilescope's vision side: detector, layout parser, photo → score pipeline, CLI and server."""
