"""Engine benchmarks: ``python bench/engine.py`` from the repository root.

Sections: the claim prover (against the brute-force oracle), then playouts.
"""

from __future__ import annotations

import sys
from pathlib import Path

# the oracle lives in tests/; the repository root makes ``tests.engine.oracle`` importable
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import playouts as playouts_bench  # noqa: E402
from bench import prover as prover_bench  # noqa: E402


def main() -> None:
    """Run every section and print its figures."""
    out = sys.stdout
    out.write(f"Python {sys.version.split()[0]} ({sys.implementation.name})\n\n")
    figures = prover_bench.run(out)
    prover_bench.summary(figures, out)

    out.write("\n")
    games = playouts_bench.run(out)
    playouts_bench.summary(games, out)


if __name__ == "__main__":
    main()
