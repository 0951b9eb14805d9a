#!/usr/bin/env bash
# Creates or reuses .venv and installs the locked dependencies of the given extra ("test", or
# none for what serving needs): requirements/<extra>.txt, exact versions with hashes, written by
# scripts/lock. Reinstalls only when that file (or pyproject.toml) changed, so a second run
# starts at once.
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-base}"
python="${PYTHON:-python3}"
project_hash() {
  # pyproject.toml's [project] (dependencies, extras), not its tool settings.
  "$python" -c 'import hashlib, json, tomllib
with open("pyproject.toml", "rb") as f:
    project = tomllib.load(f)["project"]
print(hashlib.sha256(json.dumps(project, sort_keys=True).encode()).hexdigest())'
}
if [ "$extra" = --project-hash ]; then
  project_hash
  exit 0
fi
if [ "$(cat requirements/project.sha256 2>/dev/null)" != "$(project_hash)" ]; then
  echo "pyproject.toml's [project] changed since the lock was made: run scripts/lock" >&2
  exit 2
fi
lock_hash() {
  cat "requirements/$1.txt" pyproject.toml | sha256sum | cut -d' ' -f1
}
if [ ! -f "requirements/$extra.txt" ]; then
  echo "no lock for '$extra': requirements/$extra.txt (scripts/lock writes it)" >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
# The engine's hot modules compiled by mypyc, once per change of engine/ (engine/native.py).
# Without a C compiler the engine runs its pure-Python modules: the same moves, slower.
build_engine() {
  .venv/bin/python scripts/build_engine.py \
    || echo "the engine was not compiled: the computer opponent plays at a third of its speed" >&2
}
# Every extra's lock holds the base one's versions (one resolution): a .venv made for the tests
# serves scripts/run as is.
for stamp in .venv/.installed-*; do
  other="${stamp#.venv/.installed-}"
  if [ -f "$stamp" ] && { [ "$extra" = base ] || [ "$other" = "$extra" ]; } \
    && [ -f "requirements/$other.txt" ] && [ "$(cat "$stamp")" = "$(lock_hash "$other")" ]; then
    build_engine
    exit 0
  fi
done
rm -f .venv/.installed-*
.venv/bin/python -m pip install --quiet --require-hashes --no-deps -r "requirements/$extra.txt"
.venv/bin/python -m pip install --quiet --no-deps -e .
lock_hash "$extra" > ".venv/.installed-$extra"
build_engine
