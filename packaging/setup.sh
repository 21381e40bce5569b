#!/usr/bin/env bash
# One-command set-up for Paraphrase Studio on a fresh Debian/Ubuntu machine.
#   bash packaging/setup.sh app    install everything, open the app on the bundled demo
#   bash packaging/setup.sh test   install everything, run the test suite
# System packages (installed with apt-get, through sudo when not root):
#   Boost, zlib, cmake, g++  - to build KenLM's lmplz/build_binary on first use
#   Qt's xcb libraries, Xvfb - to show the PySide6 window (and test it headless)
#   postgresql (test only)   - the study store's tests also run on a local PostgreSQL server
#   openjdk-17-jre-headless (test only) - the Spark engine's tests run real Spark (pyspark comes with .[test])
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
case "$mode" in app|test) ;; *) echo "usage: bash packaging/setup.sh app|test" >&2; exit 2 ;; esac

SYSTEM_PACKAGES=(
  cmake g++ make
  libboost-program-options-dev libboost-system-dev libboost-thread-dev libboost-test-dev
  zlib1g-dev libbz2-dev liblzma-dev
  xvfb xauth libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0
  libxcb-xkb1 libxcb-render-util0 libxcb-image0 libegl1 libgl1 libfontconfig1 libdbus-1-3
)

[ "$mode" = test ] && SYSTEM_PACKAGES+=(postgresql openjdk-17-jre-headless)
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)

missing=()
for package in "${SYSTEM_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing system packages: ${missing[*]}"
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
# pip hides setup.py's own warning when the install succeeds: say it here.
python3 -c "import sys; from parastudio.core.engine.decoders import compiled_search; sys.exit(not compiled_search.available())" ||
  echo "setup: WARNING: the compiled search cores were not built (no C++ compiler, or offline without the kenlm" \
       "source); the beam decoder and MCPG run their Python searches: same results, several to many times slower." >&2

# A local PostgreSQL server for the store's tests; they skip if it cannot start.
start_test_postgres() {
  local version
  version=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)
  [ -n "$version" ] || return 1
  "${as_root[@]}" pg_ctlcluster "$version" main start 2>/dev/null || true
  "${as_root[@]}" pg_ctlcluster "$version" main status >/dev/null 2>&1 || return 1
  # The researcher's role owns the test studies and invites their members (CREATEROLE, issue 38); ending a test
  # database whose members are still connected needs pg_signal_backend.
  "${as_root[@]}" su postgres -c "psql -qtAc \"SELECT 1 FROM pg_roles WHERE rolname='parastudio'\" | grep -q 1 ||
    psql -qc \"CREATE ROLE parastudio LOGIN CREATEDB PASSWORD 'parastudio'\"" >/dev/null || return 1
  "${as_root[@]}" su postgres -c "psql -q -v ON_ERROR_STOP=1 -c 'SET client_min_messages TO warning' \
    -c 'ALTER ROLE parastudio CREATEDB CREATEROLE' -c 'GRANT pg_signal_backend TO parastudio'" >/dev/null || return 1
  enable_test_tls || echo "setup: the test PostgreSQL server offers no TLS; the TLS test will be skipped"
  export PARASTUDIO_TEST_POSTGRES_URL="postgresql+psycopg://parastudio:parastudio@localhost/postgres"
}

# TLS on the test server, as a judge's server on another machine would offer it (issue 38): a self-signed
# certificate of its own when the cluster has none.
enable_test_tls() {
  local on data
  on=$("${as_root[@]}" su postgres -c "psql -tAc 'SHOW ssl'") || return 1
  [ "$on" = on ] && return 0
  command -v openssl >/dev/null || return 1
  data=$("${as_root[@]}" su postgres -c "psql -tAc 'SHOW data_directory'") || return 1
  "${as_root[@]}" su postgres -c "openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=localhost \
    -keyout '$data/parastudio-test.key' -out '$data/parastudio-test.crt' && chmod 600 '$data/parastudio-test.key' &&
    psql -q -v ON_ERROR_STOP=1 -c \"ALTER SYSTEM SET ssl_cert_file = '$data/parastudio-test.crt'\" \
      -c \"ALTER SYSTEM SET ssl_key_file = '$data/parastudio-test.key'\" -c 'ALTER SYSTEM SET ssl = on' \
      -c 'SELECT pg_reload_conf()'" >/dev/null 2>&1 || return 1
  sleep 1
  [ "$("${as_root[@]}" su postgres -c "psql -tAc 'SHOW ssl'")" = on ]
}

if [ "$mode" = test ]; then
  start_test_postgres || echo "setup: PostgreSQL did not start; the PostgreSQL store tests will be skipped"
  export QT_QPA_PLATFORM=offscreen
  python3 -m ruff check --quiet . || { echo "setup: ruff found the problems above" >&2; exit 1; }
  exec python3 -m pytest -q -p no:cacheprovider tests
fi

# The demo table's binary form (81 MiB, not in the bundle): written once, so the Scorer and generate open the
# table in a few hundredths of a second instead of about 12 s (README, "Tables that open at once").
demo_table=evaldata/demo/paraphrase-table.gz
if [ ! -f "$demo_table.pstable" ] || [ "$demo_table" -nt "$demo_table.pstable" ]; then
  python3 -m parastudio table binarize "$demo_table" || echo "setup: the demo table's binary form was not written; it opens from text"
fi

if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "setup: no display found; opening the app on a virtual screen (xvfb-run)"
  exec xvfb-run -a -s "-screen 0 1280x800x24" python3 -m parastudio app "${@:2}"
fi
exec python3 -m parastudio app "${@:2}"
