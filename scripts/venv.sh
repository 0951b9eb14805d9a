#!/usr/bin/env bash
# Creates or reuses .venv and installs the project with the given extra ("test", "run", ...).
# Reinstalls only when pyproject.toml changed, so a second run starts at once.
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-}"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=".venv/.installed-${extra:-base}"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ -z "$extra" ]; then
  # Every extra installs the project too: a .venv made for the tests serves scripts/run as is.
  for other in .venv/.installed-*; do
    if [ -f "$other" ] && [ "$(cat "$other")" = "$want" ]; then
      exit 0
    fi
  done
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  if [ -n "$extra" ]; then
    .venv/bin/python -m pip install --quiet -e ".[$extra]"
  else
    .venv/bin/python -m pip install --quiet -e .
  fi
  echo "$want" > "$stamp"
fi
