"""The ``cardwar`` command line: play, bench (and later train, tournament, serve)."""
