"""``python -m mlestar_jupyter`` is the ``mlestar`` command."""

from .cli import main

raise SystemExit(main())
