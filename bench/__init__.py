"""Benchmarks, never run by the tests: each is ``python -m bench.NAME`` from the repository root.

``bench.report`` is how they report (a table, or with ``--json`` one JSON object a line);
``bench.bench_stack`` what the mail benches set up (a database, a counting SMTP server, the
worker and its environment). The figures that code comments rely on are in docs/architecture.md.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The repository root: where the benches' subprocesses run and the Procfile is read."""
