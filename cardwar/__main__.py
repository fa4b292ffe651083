"""``python -m cardwar``: the same as the ``cardwar`` command."""

from cardwar.cli import main

raise SystemExit(main())
