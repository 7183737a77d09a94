#!/usr/bin/env bash
# Debian's PostgreSQL server with pgvector, for the scale-out run (`make scale-out`).
#
# Debian's own `postgresql` package; pgvector from `postgresql-<major>-pgvector` where the release has it.
# Debian 12 (bookworm) has none: there pgvector is built from Debian's own source package (pgvector 0.8.0,
# as packaged for Debian 13) against the server's headers. Nothing outside Debian's archive is fetched.
set -euo pipefail

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
PGVECTOR_VERSION=0.8.0
POOL=http://deb.debian.org/debian/pool/main/p/pgvector

export DEBIAN_FRONTEND=noninteractive
if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq postgresql >/dev/null
fi
major=$(ls /usr/lib/postgresql | sort -n | tail -1)
if [ -f "/usr/share/postgresql/$major/extension/vector.control" ]; then
    echo "PostgreSQL $major with pgvector is installed"
    exit 0
fi
if apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1; then
    $SUDO apt-get install -y -qq "postgresql-$major-pgvector" >/dev/null
else
    $SUDO apt-get install -y -qq "postgresql-server-dev-$major" build-essential curl >/dev/null
    build=$(mktemp -d)
    trap 'rm -rf "$build"' EXIT
    curl -fsS "$POOL/pgvector_$PGVECTOR_VERSION.orig.tar.gz" | tar -xz -C "$build"
    make -s -C "$build/pgvector-$PGVECTOR_VERSION" PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" >/dev/null
    $SUDO make -s -C "$build/pgvector-$PGVECTOR_VERSION" PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" install >/dev/null
fi
echo "PostgreSQL $major with pgvector $PGVECTOR_VERSION is installed"
