"""``python -m cardwar.cli``: the same as ``cardwar``."""

from cardwar.cli import main

raise SystemExit(main())
