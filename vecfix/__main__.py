"""``python -m vecfix``: the command line."""

from .cli import main

raise SystemExit(main())
