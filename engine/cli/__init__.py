"""Command-line tools over the engine (``python -m engine claims``, ``compare``, ...)."""
