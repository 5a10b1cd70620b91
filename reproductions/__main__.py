"""``python -m reproductions``: the reproduction framework's command line (:mod:`reproductions.framework.cli`)."""

from reproductions.framework.cli import app

app(prog_name="python -m reproductions")
