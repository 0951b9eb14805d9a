"""``python -m engine``: the engine's command line (see engine/cli/main.py)."""

from engine.cli.main import main

raise SystemExit(main())
