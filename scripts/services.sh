#!/usr/bin/env bash
# Makes sure the real components the tests use are there: PostgreSQL and Redis running on
# 127.0.0.1, Debian's chromium and dovecot installed. Starts or installs what it can; otherwise
# exits 1 and says exactly what is missing (the tests never skip silently).
set -uo pipefail

missing=()

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
if ! pg_up; then
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    for version in $(ls /etc/postgresql); do
      pg_ctlcluster --skip-systemctl-redirect "$version" main start >/dev/null 2>&1 || true
    done
    for _ in $(seq 1 30); do pg_up && break; sleep 0.5; done
  fi
  pg_up || missing+=("PostgreSQL on 127.0.0.1:5432 (start it with: pg_ctlcluster --skip-systemctl-redirect \$(ls /etc/postgresql) main start)")
fi

redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }
if ! redis_up; then
  if command -v redis-server >/dev/null; then
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
      --maxmemory-policy noeviction >/dev/null 2>&1 || true
    for _ in $(seq 1 30); do redis_up && break; sleep 0.2; done
  fi
  redis_up || missing+=("Redis on 127.0.0.1:6379 (start it with: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save \"\" --appendonly no)")
fi

if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's chromium for the browser tests (once per machine)..." >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 || true
  fi
  command -v chromium >/dev/null || missing+=("Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
fi

# Debian's dovecot: the play-by-reply tests start their own IMAP server from it (in a temporary
# folder, on a free port); the system's dovecot service is never started.
if ! command -v dovecot >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's dovecot-imapd for the IMAP tests (once per machine)..." >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dovecot-imapd) >/dev/null 2>&1 || true
  fi
  command -v dovecot >/dev/null || missing+=("Debian's dovecot (apt-get install dovecot-imapd) for the IMAP tests")
fi

# npm fetches axe-core for the accessibility check of the browser tests (tests/browser/conftest.py).
if ! command -v npm >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's npm for the accessibility check (once per machine)..." >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm) >/dev/null 2>&1 || true
  fi
  command -v npm >/dev/null || missing+=("npm, to fetch axe-core from the npm registry (apt-get install npm)")
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "The tests need real components that are not available:" >&2
  for m in "${missing[@]}"; do echo "  - $m" >&2; done
  exit 1
fi
