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
  if [ ${#needs[@]} -gt 0 ]; then
    fail "run as root: sudo npm run setup:test (to $(IFS=';'; echo "${needs[*]}" | sed 's/;/; /g'))"
  fi
fi

# --- Debian's packages -----------------------------------------------------------------------------------------
if [ ${#packages[@]} -gt 0 ]; then
  say packages "installing ${packages[*]} from Debian's packages (their services are not started)…"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # policy-rc.d exit 101: no service may start while installing (prometheus' own would otherwise)
  policy=/usr/sbin/policy-rc.d
  if [ -e "$policy" ]; then cp -p "$policy" "$policy.setup-test"; fi
  trap 'if [ -e "$policy.setup-test" ]; then mv -f "$policy.setup-test" "$policy"; else rm -f "$policy"; fi' EXIT
  printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy"
  # slim Debian images leave out /usr/share/man, and the JDK's postinst fails on the man page alternatives without it
  if [[ " ${packages[*]} " == *" openjdk-17-jdk-headless "* ]]; then mkdir -p /usr/share/man/man1; fi
  apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
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

took=$(( $(date +%s) - started ))
if [ ${#done_list[@]} -eq 0 ]; then
  echo "setup:test: nothing to do, all present (${took} s); run: TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/${db:-test} npm test"
else
  echo "setup:test: done in ${took} s: $(IFS=';'; echo "${done_list[*]}" | sed 's/;/; /g')"
fi
