#!/usr/bin/env bash
# `npm run setup:test`: what the full `npm test` needs on this machine besides node_modules, and the setup step of
# .ci/run. Idempotent: it checks first and only does what is missing, so on a ready machine it changes nothing.
#   - Debian's chromium (browser tests) with fonts-noto-cjk (without a CJK font the Chinese pages and
#     `npm run docs:screenshots` draw boxes), and prometheus (its promtool checks the metrics and exported rules), from
#     Debian's packages, with their services kept from starting (nothing downloads a browser of its own)
#   - a JDK (Debian's openjdk-17-jdk-headless) when javac is missing: the Java emitter test compiles emitters/java
#   - Debian's prometheus-alertmanager (service kept from starting): tests/integration/alertmanager.test.ts runs
#     its own Alertmanager on a free port and sends it dupscope's alerts
#   - the local PostgreSQL, Redis, RabbitMQ and MariaDB running (started as the machine starts them; MariaDB is
#     the application database `dupscope probe` reads in tests/integration/probe.test.ts)
#   - RabbitMQ's rabbitmq_event_exchange and rabbitmq_shovel plugins, and tracing on vhost / (tracing is per node
#     and vhost and not persistent: a node restart switches it off, so every run checks it)
#   - the test database: the one TEST_DATABASE_URL names on the local server, else `test`
#   - a Citus test cluster: Citus built from vendor/citus into PostgreSQL 15 when citus.so is missing (with
#     Debian's postgresql-server-dev-15 and the -dev packages its configure needs), then a coordinator on
#     127.0.0.1:5441 and workers on 5442-5443, each its own data directory under /var/lib/dupscope-citus, run as
#     postgres, with database `test` holding the extension and the two workers registered. Without the tarball
#     it says how to get Citus and leaves the cluster out.
# Installing and starting need root; without it, a machine that lacks something gets one line saying so.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup:test: %-12s %s\n' "$1" "$2"; }
fail() { echo "setup:test: $*" >&2; exit 1; }
started=$(date +%s)
done_list=()

wait_for() { # wait_for <what> <command…>: up to 30 s
  local what=$1; shift
  for _ in $(seq 1 30); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  fail "$what did not come up within 30 s"
}

for tool in pg_isready psql redis-cli redis-server rabbitmq-diagnostics rabbitmq-plugins rabbitmqctl; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool not found: the tests use this machine's PostgreSQL, Redis and RabbitMQ (Debian's postgresql, redis-server, rabbitmq-server)"
done

# --- what is missing -------------------------------------------------------------------------------------------
chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
packages=()
[ -x "$chromium" ] || packages+=(chromium)
cjk_font() { [ -n "$(fc-list :lang=zh family 2>/dev/null)" ]; }
cjk_font || packages+=(fonts-noto-cjk)
command -v promtool >/dev/null 2>&1 || packages+=(prometheus)
command -v javac >/dev/null 2>&1 || packages+=(openjdk-17-jdk-headless)
command -v prometheus-alertmanager >/dev/null 2>&1 || packages+=(prometheus-alertmanager)

# The Citus cluster: these values are also in scripts/citus-cluster.mjs, which the tests find it through.
CITUS_TARBALL=vendor/citus/citus-12.1.12.tar.gz
CITUS_SHA256=a5eb52cdd9f45e078510a8b96ae674a7e5b284b55431c8b0ecdc57573725d2c9
CITUS_HOME=/var/lib/dupscope-citus
CITUS_NODES=(coordinator:5441 worker1:5442 worker2:5443)
CITUS_DB=test
PG15=/usr/lib/postgresql/15/bin
citus=absent # absent: no way to get it here; build: from the tarball; installed: citus.so is there
citus_why=
if [ ! -x "$PG15/pg_config" ]; then
  citus_why="PostgreSQL 15's server is missing ($PG15): the vendored Citus 12.1 is built for Debian's postgresql-15"
elif [ -f "$("$PG15/pg_config" --pkglibdir)/citus.so" ]; then
  citus=installed
elif [ -f "$CITUS_TARBALL" ]; then
  sum=$(sha256sum "$CITUS_TARBALL" | cut -d' ' -f1)
  [ "$sum" = "$CITUS_SHA256" ] || fail "$CITUS_TARBALL has sha256 $sum, not $CITUS_SHA256 (vendor/citus/README.md): not building it"
  citus=build
  # libcurl is left out (configure --without-libcurl): Citus uses it only to send usage statistics
  for pkg in postgresql-server-dev-15 liblz4-dev libzstd-dev libkrb5-dev libssl-dev libicu-dev build-essential; do
    [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ] || packages+=("$pkg")
  done
else
  citus_why="$CITUS_TARBALL is missing: restore it (git checkout -- vendor/citus), or install Citus' own package postgresql-15-citus-12.1 (https://docs.citusdata.com/en/stable/installation/multi_node_debian.html), then run npm run setup:test again"
fi
citus_psql() { # citus_psql <port> <database> <sql…>: one value per line
  local port=$1 db=$2; shift 2
  psql -h 127.0.0.1 -p "$port" -U postgres -d "$db" -v ON_ERROR_STOP=1 -qtA "${@/#/-c}"
}
citus_ready() { # every node answers and the coordinator's test database sees both workers active
  local node
  for node in "${CITUS_NODES[@]}"; do pg_isready -q -h 127.0.0.1 -p "${node##*:}" || return 1; done
  [ "$(citus_psql "${CITUS_NODES[0]##*:}" "$CITUS_DB" 'SELECT count(*) FROM citus_get_active_worker_nodes()' 2>/dev/null)" = 2 ]
}

pg_up() { pg_isready -h 127.0.0.1 -p 5432; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping; }
mariadb_up() { mariadb-admin --protocol=tcp -h 127.0.0.1 -P 3306 -u root ping; }
rabbit_up() { rabbitmq-diagnostics -q check_running; }
PLUGINS=(rabbitmq_event_exchange rabbitmq_shovel)
missing_plugins() { # the plugins of PLUGINS the running node does not have enabled
  local enabled
  enabled=$(rabbitmq-plugins -q list --enabled --minimal 2>/dev/null) || { echo "${PLUGINS[*]}"; return; }
  local p out=()
  for p in "${PLUGINS[@]}"; do grep -qx "$p" <<<"$enabled" || out+=("$p"); done
  echo "${out[*]}"
}
tracing_on() { rabbitmqctl -q list_vhosts name tracing 2>/dev/null | grep -q $'^/\ttrue$'; }

pg_running=yes; pg_up >/dev/null 2>&1 || pg_running=no
redis_running=yes; redis_up >/dev/null 2>&1 || redis_running=no
mariadb_running=yes; mariadb_up >/dev/null 2>&1 || mariadb_running=no
rabbit_running=yes; rabbit_up >/dev/null 2>&1 || rabbit_running=no
# RabbitMQ's CLI needs the Erlang cookie, which only root and rabbitmq read: answering on 5672 is all others see
rabbit_listening() { (exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null; }
rabbit_unknown=no
[ "$rabbit_running" = yes ] || ! rabbit_listening || rabbit_unknown=yes
plugins_missing="${PLUGINS[*]}"; tracing=off
if [ "$rabbit_running" = yes ]; then
  plugins_missing=$(missing_plugins)
  tracing_on && tracing=on
fi

if [ "$(id -u)" != 0 ]; then
  needs=()
  [ ${#packages[@]} -eq 0 ] || needs+=("install ${packages[*]}")
  [ "$pg_running" = yes ] || needs+=("start PostgreSQL")
  [ "$redis_running" = yes ] || needs+=("start Redis")
  [ "$mariadb_running" = yes ] || needs+=("start MariaDB")
  if [ "$rabbit_unknown" = yes ]; then
    needs+=("check RabbitMQ's plugins and tracing: rabbitmqctl needs the Erlang cookie")
  else
    [ "$rabbit_running" = yes ] || needs+=("start RabbitMQ")
    [ -z "$plugins_missing" ] || needs+=("enable $plugins_missing")
    [ "$tracing" = on ] || needs+=("rabbitmqctl trace_on -p /")
  fi
  [ "$citus" != build ] || needs+=("build Citus from $CITUS_TARBALL")
  [ "$citus" = absent ] || citus_ready || needs+=("start the Citus test cluster")
  if [ ${#needs[@]} -gt 0 ]; then
    fail "run as root: sudo npm run setup:test (to $(IFS=';'; echo "${needs[*]}" | sed 's/;/; /g'))"
  fi
fi

# --- Debian's packages -----------------------------------------------------------------------------------------
if [ ${#packages[@]} -gt 0 ]; then
  say packages "installing ${packages[*]} from Debian's packages (their services are not started)…"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq -o DPkg::Lock::Timeout=600
  # policy-rc.d exit 101: no service may start while installing (prometheus' own would otherwise)
  policy=/usr/sbin/policy-rc.d
  if [ -e "$policy" ]; then cp -p "$policy" "$policy.setup-test"; fi
  trap 'if [ -e "$policy.setup-test" ]; then mv -f "$policy.setup-test" "$policy"; else rm -f "$policy"; fi' EXIT
  printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy"
  # slim Debian images leave out /usr/share/man, and the JDK's postinst fails on the man page alternatives without it
  if [[ " ${packages[*]} " == *" openjdk-17-jdk-headless "* ]]; then mkdir -p /usr/share/man/man1; fi
  # another apt run (unattended upgrades, a second setup) may hold the lock: wait for it rather than fail
  apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${packages[@]}" >/dev/null
  if [ -e "$policy.setup-test" ]; then mv -f "$policy.setup-test" "$policy"; else rm -f "$policy"; fi
  trap - EXIT
  done_list+=("installed ${packages[*]}")
fi
[ -x "$chromium" ] || fail "$chromium is still missing after installing chromium"
cjk_font || fail "no CJK font after installing fonts-noto-cjk (fc-list :lang=zh is empty)"
command -v promtool >/dev/null 2>&1 || fail "promtool is still missing after installing prometheus"
command -v javac >/dev/null 2>&1 || fail "javac is still missing after installing openjdk-17-jdk-headless"
command -v prometheus-alertmanager >/dev/null 2>&1 || fail "prometheus-alertmanager is still missing after installing it"
say chromium "$([[ " ${packages[*]} " == *" chromium "* ]] && echo installed || echo present) ($chromium)"
say cjk-font "$([[ " ${packages[*]} " == *" fonts-noto-cjk "* ]] && echo installed || echo present) ($(fc-list :lang=zh family | head -n 1))"
say promtool "$([[ " ${packages[*]} " == *" prometheus "* ]] && echo installed || echo present) ($(command -v promtool))"
say javac "$([[ " ${packages[*]} " == *" openjdk-17-jdk-headless "* ]] && echo installed || echo present) ($(command -v javac))"
say alertmanager "$([[ " ${packages[*]} " == *" prometheus-alertmanager "* ]] && echo installed || echo present) ($(command -v prometheus-alertmanager))"

# --- services, started as the machine starts them --------------------------------------------------------------
if [ "$pg_running" = no ]; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
  wait_for PostgreSQL pg_up
  done_list+=("started PostgreSQL")
fi
say PostgreSQL "$([ "$pg_running" = no ] && echo started || echo running) (127.0.0.1:5432)"

if [ "$redis_running" = no ]; then
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for Redis redis_up
  done_list+=("started Redis")
fi
say Redis "$([ "$redis_running" = no ] && echo started || echo running) (127.0.0.1:6379)"

if [ "$mariadb_running" = no ]; then
  command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || fail "mariadbd not found: the probe tests use this machine's MariaDB (Debian's mariadb-server)"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  wait_for MariaDB mariadb_up
  done_list+=("started MariaDB")
fi
say MariaDB "$([ "$mariadb_running" = no ] && echo started || echo running) (127.0.0.1:3306)"

if [ "$rabbit_running" = no ]; then
  rabbit_listening || rabbitmq-server -detached # a node that listens is still booting
  wait_for RabbitMQ rabbit_up
  done_list+=("started RabbitMQ")
  plugins_missing=$(missing_plugins)
  tracing_on && tracing=on
fi
say RabbitMQ "$([ "$rabbit_running" = no ] && echo started || echo running) (127.0.0.1:5672)"

if [ -n "$plugins_missing" ]; then
  # shellcheck disable=SC2086 # a list of plugin names
  rabbitmq-plugins enable -q $plugins_missing >/dev/null
  done_list+=("enabled $plugins_missing")
fi
say plugins "$([ -n "$plugins_missing" ] && echo "enabled $plugins_missing" || echo "enabled already") (${PLUGINS[*]})"

if [ "$tracing" = off ]; then
  rabbitmqctl -q trace_on -p / >/dev/null
  done_list+=("switched tracing on for /")
fi
say tracing "$([ "$tracing" = off ] && echo "switched on" || echo "on already") (vhost /)"

# --- the test database -----------------------------------------------------------------------------------------
db=test
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  case "$TEST_DATABASE_URL" in
    *@127.0.0.1:5432/* | *@localhost:5432/* | *//127.0.0.1:5432/* | *//localhost:5432/*) db=${TEST_DATABASE_URL##*/}; db=${db%%\?*} ;;
    *) db= ;;
  esac
fi
if [ -z "$db" ]; then
  say database "TEST_DATABASE_URL names another server: its database is left to you"
elif [[ ! "$db" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
  fail "database name \"$db\" from TEST_DATABASE_URL: letters, digits and _ only"
else
  pg=(psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA)
  if [ "$("${pg[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" = 1 ]; then
    say database "$db exists"
  else
    "${pg[@]}" -c "CREATE DATABASE \"$db\""
    done_list+=("created database $db")
    say database "$db created"
  fi
fi

# --- the Citus test cluster ------------------------------------------------------------------------------------
joined() { local sep=$1 out=$2 item; shift 2; for item; do out+="$sep$item"; done; echo "$out"; }
# runuser keeps the working directory, which postgres may not read (initdb and pg_ctl warn then): start from one it owns
as_postgres() { (cd "$CITUS_HOME" && runuser -u postgres -- "$@"); }
if [ "$citus" = absent ]; then
  say Citus "not set up: $citus_why"
else
  citus_so="$("$PG15/pg_config" --pkglibdir)/citus.so"
  if [ "$citus" = build ]; then
    say Citus "building $CITUS_TARBALL (one to four minutes on 2 cores)…"
    build_started=$(date +%s)
    build_dir=$(mktemp -d)
    tar xzf "$CITUS_TARBALL" -C "$build_dir"
    if ! (cd "$build_dir/citus-src" && ./configure PG_CONFIG="$PG15/pg_config" --without-libcurl && make -j2 && make install) >"$build_dir/build.log" 2>&1; then
      tail -n 30 "$build_dir/build.log" >&2
      fail "building Citus failed (the whole log: $build_dir/build.log)"
    fi
    rm -rf "$build_dir"
    [ -f "$citus_so" ] || fail "$citus_so is still missing after make install"
    done_list+=("built and installed Citus in $(( $(date +%s) - build_started )) s")
  fi
  citus_version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$("$PG15/pg_config" --sharedir)/extension/citus.control")
  say Citus "$([ "$citus" = build ] && echo "built and installed" || echo present) (extension $citus_version, $citus_so)"

  install -d -o postgres -g postgres -m 755 "$CITUS_HOME"
  for node in "${CITUS_NODES[@]}"; do
    name=${node%%:*}; port=${node##*:}; dir=$CITUS_HOME/$name
    what=()
    if [ ! -s "$dir/PG_VERSION" ]; then
      as_postgres "$PG15/initdb" -D "$dir" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >/dev/null
      what+=(initialised)
    fi
    # The node's settings live in a file of their own, so a node set up halfway (or by an older version of
    # this script) gets them on the next run; a change is applied by a restart.
    settings="port = $port
listen_addresses = '127.0.0.1'
shared_preload_libraries = 'citus'"
    changed=no
    if [ "$(cat "$dir/dupscope.conf" 2>/dev/null)" != "$settings" ]; then
      printf '%s\n' "$settings" | as_postgres tee "$dir/dupscope.conf" >/dev/null
      changed=yes
    fi
    grep -qx "include 'dupscope.conf'" "$dir/postgresql.conf" || echo "include 'dupscope.conf'" | as_postgres tee -a "$dir/postgresql.conf" >/dev/null
    if as_postgres "$PG15/pg_ctl" -D "$dir" status >/dev/null; then
      if [ "$changed" = yes ]; then
        as_postgres "$PG15/pg_ctl" -D "$dir" -w -m fast restart -l "$CITUS_HOME/$name.log" >/dev/null
        what+=("restarted with new settings")
      fi
    else
      pg_isready -q -h 127.0.0.1 -p "$port" && fail "127.0.0.1:$port answers, but not from $dir: free the port for the Citus $name"
      as_postgres "$PG15/pg_ctl" -D "$dir" -w -l "$CITUS_HOME/$name.log" start >/dev/null
      what+=(started)
    fi
    [ ${#what[@]} -eq 0 ] || done_list+=("Citus $name: $(joined " and " "${what[@]}")")
    say "$name" "$([ ${#what[@]} -eq 0 ] && echo running || joined " and " "${what[@]}") (127.0.0.1:$port, $dir)"
  done

  coordinator=${CITUS_NODES[0]##*:}
  what=() dbs=() extensions=() added=()
  for node in "${CITUS_NODES[@]}"; do
    name=${node%%:*}; port=${node##*:}
    if [ -z "$(citus_psql "$port" postgres "SELECT 1 FROM pg_database WHERE datname = '$CITUS_DB'")" ]; then
      citus_psql "$port" postgres "CREATE DATABASE \"$CITUS_DB\""
      dbs+=("$name")
    fi
    if [ -z "$(citus_psql "$port" "$CITUS_DB" "SELECT 1 FROM pg_extension WHERE extname = 'citus'")" ]; then
      citus_psql "$port" "$CITUS_DB" 'CREATE EXTENSION citus'
      extensions+=("$name")
    fi
  done
  [ ${#dbs[@]} -eq 0 ] || what+=("created database $CITUS_DB on $(joined ", " "${dbs[@]}")")
  [ ${#extensions[@]} -eq 0 ] || what+=("created extension citus in it on $(joined ", " "${extensions[@]}")")
  if [ -z "$(citus_psql "$coordinator" "$CITUS_DB" "SELECT 1 FROM pg_dist_node WHERE groupid = 0 AND nodename = '127.0.0.1' AND nodeport = $coordinator")" ]; then
    citus_psql "$coordinator" "$CITUS_DB" "SELECT citus_set_coordinator_host('127.0.0.1', $coordinator)" >/dev/null
    what+=("registered the coordinator")
  fi
  for node in "${CITUS_NODES[@]:1}"; do
    name=${node%%:*}; port=${node##*:}
    case "$(citus_psql "$coordinator" "$CITUS_DB" "SELECT isactive FROM pg_dist_node WHERE nodename = '127.0.0.1' AND nodeport = $port")" in
      t) ;;
      f) citus_psql "$coordinator" "$CITUS_DB" "SELECT citus_activate_node('127.0.0.1', $port)" >/dev/null; added+=("$name (activated)") ;;
      *) citus_psql "$coordinator" "$CITUS_DB" "SELECT citus_add_node('127.0.0.1', $port)" >/dev/null; added+=("$name") ;;
    esac
  done
  [ ${#added[@]} -eq 0 ] || what+=("added $(joined ", " "${added[@]}")")
  citus_ready || fail "the Citus cluster is set up but its coordinator does not see two active workers: see $CITUS_HOME/*.log"
  [ ${#what[@]} -eq 0 ] || done_list+=("${what[@]/#/Citus: }")
  say cluster "$([ ${#what[@]} -eq 0 ] && echo "ready already" || joined "; " "${what[@]}") (postgres://postgres@127.0.0.1:$coordinator/$CITUS_DB, 2 active workers)"
fi

took=$(( $(date +%s) - started ))
if [ ${#done_list[@]} -eq 0 ]; then
  echo "setup:test: nothing to do, all present (${took} s); run: TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/${db:-test} npm test"
else
  echo "setup:test: done in ${took} s: $(IFS=';'; echo "${done_list[*]}" | sed 's/;/; /g')"
fi
