#!/bin/bash
# /init of the e2e guest (PID 1 in the initramfs that scripts/e2e-qemu.sh packs). It brings up just enough of a
# system (proc, sys, devtmpfs, the input modules, systemd-udevd with our rules, the edgeswipe user from our
# sysusers file), runs each scenario against a fresh edgeswiped, and sends everything it saw (the clients'
# protocol streams, the daemon's logs, the device nodes' ACLs, a line per scenario) to the host as a gzipped tar
# on the second serial port. The host decides pass or fail (scripts/e2e/check.py); the guest only waits for
# conditions, never for fixed times, and never judges.
#
#
# Scenarios 7 and 9 need a real service manager: after the others, this script hands PID 1 to systemd
# (`exec systemd --unit=e2e.target`), which runs our units (systemd/edgeswiped.socket and .service, unchanged),
# the system bus and logind, and, as e2e-systemd.service, this same script again with the argument
# `systemd-phase`.
#
# Kernel command line: e2e.scenarios=1,2,3 runs a subset (8, side by side with lisgd, runs only when asked);
# e2e.shell=1 drops to a shell at the end (by hand).
set -u
export PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin
export LANG=C.UTF-8 HOME=/root TERM=dumb
PHASE=${1:-init}

if [ "$PHASE" = init ]; then
  mount -t proc proc /proc
  mount -t sysfs sysfs /sys
  mount -t devtmpfs devtmpfs /dev 2>/dev/null
  mkdir -p /dev/pts /dev/shm /run /tmp
  mount -t devpts devpts /dev/pts
  mount -t tmpfs -o mode=0755 tmpfs /run
  mount -t tmpfs -o mode=1777 tmpfs /tmp
fi
exec </dev/null >/dev/console 2>&1

E2E=/e2e
R=/results
SOCK=/run/edgeswipe/e2e.sock
OUT=$R
mkdir -p "$R"
SCENARIOS=$(sed -n 's/.*e2e\.scenarios=\([^ ]*\).*/\1/p' /proc/cmdline)
SCENARIOS=${SCENARIOS:-1,2,3,4,5,6,7,9,10,11}

log() { echo "e2e-guest: $*"; }
ms() { local t=${EPOCHREALTIME/./}; echo $(( t / 1000 )); }

# wait_for SECONDS WHAT COMMAND...: polls COMMAND until it succeeds; logs and fails after SECONDS.
wait_for() {
  local seconds=$1 what=$2 end
  shift 2
  end=$(( $(ms) + seconds * 1000 ))
  until "$@"; do
    if (( $(ms) > end )); then
      log "TIMEOUT after ${seconds}s waiting for $what"
      echo "timeout: $what" >> "$OUT/guest-errors.txt"
      return 1
    fi
    sleep 0.1
  done
}

finish() {
  log "sending results"
  dmesg > "$R/dmesg.txt" 2>&1
  cp /proc/cmdline "$R/cmdline.txt"
  tar -C "$R" -czf /tmp/results.tgz .
  log "results: $(stat -c %s /tmp/results.tgz) bytes"
  # Raw mode, and drained before power-off: the host reads the port's bytes as a file.
  python3 -c '
import os, sys, termios, tty
fd = os.open("/dev/ttyS1", os.O_WRONLY | os.O_NOCTTY)
tty.setraw(fd)
data = open(sys.argv[1], "rb").read()
view = memoryview(data)
while view:
    view = view[os.write(fd, view):]
termios.tcdrain(fd)
os.close(fd)
' /tmp/results.tgz
  log "results sent"
  if grep -q 'e2e.shell=1' /proc/cmdline; then /bin/bash -i; fi
  log "powering off"
  echo o > /proc/sysrq-trigger
  sleep 60
}

# ---------------------------------------------------------------------------------------------------------
AS_DAEMON=(setpriv --reuid=edgeswipe --regid=edgeswipe --init-groups --)
AS_CLIENT=(setpriv --reuid=e2e --regid=e2e --init-groups --)
# Not functions: a function run in the background is a subshell, and $! would be the subshell, not the program.
as_daemon() { "${AS_DAEMON[@]}" "$@"; }
as_client() { "${AS_CLIENT[@]}" "$@"; }
want() { [[ ",$SCENARIOS," == *",$1,"* ]]; }

if [ "$PHASE" = init ]; then
boot_ms=$(ms)
echo "$boot_ms" > /run/e2e-boot-ms
log "booted: $(uname -r), $(nproc) cpu(s), uptime $(cut -d' ' -f1 /proc/uptime)s"
modprobe -a evdev uinput hid-generic hid-multitouch 2>&1 | sed 's/^/modprobe: /'

# udevd must run: libinput refuses devices udev has not initialized, and our rules give the ACLs.
/lib/systemd/systemd-udevd --daemon >/dev/null 2>&1
udevadm trigger --action=add >/dev/null 2>&1
udevadm settle --timeout=60
# The edgeswipe user and group, from packaging/edgeswipe.sysusers; a client user in the group.
systemd-sysusers /usr/lib/sysusers.d/edgeswipe.conf 2>&1 | sed 's/^/sysusers: /'
useradd --no-create-home --groups edgeswipe e2e 2>&1
# Scenario 9's people at the seat: in no group of ours, so only their logind session can let them in.
for u in alice bob carol; do useradd --no-create-home "$u" 2>&1; done
mkdir -p /run/edgeswipe && chown edgeswipe:edgeswipe /run/edgeswipe && chmod 0750 /run/edgeswipe
{
  echo "edgeswipe: $(id edgeswipe 2>&1)"
  echo "e2e: $(id e2e 2>&1)"
  echo "libinput: $(dpkg-query -W -f='${Version}' libinput10 2>&1)"
  echo "udev: $(dpkg-query -W -f='${Version}' udev 2>&1)"
  echo "kernel: $(uname -r)"
} > "$R/guest-info.txt"
log "udev and users ready after $(( $(ms) - boot_ms )) ms"
fi

# ---------------------------------------------------------------------------------------------------------
# Per-scenario plumbing. $OUT is the scenario's result folder.

DAEMON_PID=
MONITOR_PID=
start_daemon() {
  rm -f "$SOCK"
  "${AS_DAEMON[@]}" edgeswiped --socket "$SOCK" --log-level debug "$@" > "$OUT/daemon.log" 2>&1 &
  DAEMON_PID=$!
  wait_for 60 "the daemon's socket" test -S "$SOCK" || return 1
  "${AS_CLIENT[@]}" edgeswipectl monitor --json --socket "$SOCK" > "$OUT/monitor.jsonl" 2> "$OUT/monitor.err" &
  MONITOR_PID=$!
  wait_for 60 "the client's hello" grep -q '"type":"hello"' "$OUT/monitor.jsonl"
}

stop_daemon() {
  local status
  if [ -n "$DAEMON_PID" ]; then
    kill -TERM "$DAEMON_PID" 2>/dev/null
    wait_for 30 "the daemon to exit" eval "! kill -0 $DAEMON_PID 2>/dev/null"
    wait "$DAEMON_PID"; status=$?
    echo "$status" > "$OUT/daemon.exit"
  fi
  if [ -n "$MONITOR_PID" ]; then
    wait_for 30 "the client to see the daemon go" eval "! kill -0 $MONITOR_PID 2>/dev/null" || kill "$MONITOR_PID"
    wait "$MONITOR_PID"; echo "$?" > "$OUT/monitor.exit"
  fi
  rm -f "$OUT"/*.hold
  if [ -n "$PLAYER_PID" ] && kill -0 "$PLAYER_PID" 2>/dev/null; then
    kill "$PLAYER_PID" 2>/dev/null  # a play that went wrong: its device goes with it
  fi
  DAEMON_PID= MONITOR_PID= PLAYER_PID=
}

# count PATTERN: how many lines of the client's stream ($STREAM, or $OUT/monitor.jsonl) contain every fixed
# string given.
STREAM=
count() {
  local f="${STREAM:-$OUT/monitor.jsonl}" p
  local lines
  lines=$(cat "$f")
  for p in "$@"; do lines=$(grep -F -- "$p" <<< "$lines"); done
  [ -z "$lines" ] && echo 0 || wc -l <<< "$lines"
}
at_least() { local n=$1; shift; (( $(count "$@") >= n )); }
terminals() { echo $(( $(count '"type":"transition"' '"phase":"completed"') + $(count '"type":"transition"' '"phase":"cancelled"') )); }
terminals_at_least() { (( $(terminals) >= $1 )); }
# gestures_ended_at_least N: N gestures have ended, whatever they drove (a blocked one drives no transition).
gestures_ended_at_least() {
  (( $(count '"type":"gesture"' '"state":"ended"') + $(count '"type":"gesture"' '"state":"cancelled"') \
     + $(count '"type":"gesture"' '"state":"failed"') >= $1 ))
}

# play NAME FILE [uinput-play options]: creates the device, waits for the daemon to announce it, then plays
# FILE on its schedule. Leaves $PLAYER_PID. The device stays until expect_removed (or stop_daemon) lets it go:
# evdev refuses reads on a destroyed device, so a player that destroyed its device right after the last frame
# would take events the daemon has not read yet with it (a slow daemon, e.g. a debug build on a loaded machine,
# then never sees the lift). A caller's own --hold-file comes later on the command line and wins.
PLAYER_PID= PLAYER_REPORT=
# announced N NAME: N devices have been announced, one of them NAME (devices are created one at a time).
announced() { at_least "$1" '"type":"device"' '"change":"added"' && at_least 1 '"type":"device"' '"change":"added"' "\"$2\""; }
play() {
  local name=$1 file=$2 device before
  shift 2
  before=$(count '"type":"device"' '"change":"added"')
  rm -f "$OUT/$name.node" "$OUT/$name.go" "$OUT/$name.timing"
  touch "$OUT/$name.hold"
  python3 "$E2E/uinput-play.py" "$file" --node-file "$OUT/$name.node" --go-file "$OUT/$name.go" \
    --report "$OUT/$name.timing" --hold-file "$OUT/$name.hold" "$@" 2> "$OUT/$name.player.err" &
  PLAYER_PID=$! PLAYER_REPORT=$OUT/$name.timing
  wait_for 60 "$name: the uinput device" test -s "$OUT/$name.node" || return 1
  device=$(sed -n 2p "$OUT/$name.node")
  # What udev made of it (the daemon's filter and our rules read these properties).
  udevadm settle --timeout=30
  udevadm info --query=property --name="$(head -1 "$OUT/$name.node")" > "$OUT/$name.udev" 2>&1
  wait_for 60 "$name: the daemon to announce \"$device\"" announced $(( before + 1 )) "$device" || return 1
  touch "$OUT/$name.go"
}
# player_done [SECONDS]: every frame has been written (the player has written its report, or has ended).
player_done() { wait_for "${1:-120}" "the player to finish" eval "test -s '$PLAYER_REPORT' || ! kill -0 $PLAYER_PID 2>/dev/null"; }
# release_devices: lets every held player destroy its device, and waits for the last one started to end.
release_devices() {
  rm -f "$OUT"/*.hold
  [ -z "$PLAYER_PID" ] || { wait_for 60 "the player to end" eval "! kill -0 $PLAYER_PID 2>/dev/null"; wait "$PLAYER_PID"; }
}

# expect_terminals N: wait until N transitions have ended (the host knows N from its offline replay).
expect_terminals() { wait_for "${2:-60}" "$1 finished transition(s)" terminals_at_least "$1"; }
expect_removed() {
  release_devices
  wait_for 60 "$1 device(s) removed" at_least "$1" '"type":"device"' '"change":"removed"'
}

scenario_begin() {
  OUT="$R/scenario-$1"
  mkdir -p "$OUT"
  SCENARIO_T0=$(ms)
  log "scenario $1: $2"
}
scenario_end() {
  local ms_taken=$(( $(ms) - SCENARIO_T0 ))
  echo "$ms_taken" > "$OUT/guest-ms"
  log "scenario $1 finished in ${ms_taken} ms"
}

# ---------------------------------------------------------------------------------------------------------
S=$E2E/scenarios
if [ "$PHASE" = init ]; then

# swipe_scenario N DESCRIPTION DEVICE RECORDING: one recorded swipe on a fresh daemon, its terminal lines as the offline
# replay decided them ($S/RECORDING.terminals), and the device gone once its player has.
swipe_scenario() {
  scenario_begin "$1" "$2"
  start_daemon && play "$3" "$S/$4.evemu" && player_done && expect_terminals "$(cat "$S/$4.terminals")" \
    && expect_removed 1
  stop_daemon
  scenario_end "$1"
}

if want 1; then swipe_scenario 1 "touchscreen left-edge swipe past the threshold" ts ts-left-commit; fi
if want 2; then swipe_scenario 2 "touchscreen left-edge swipe released early" ts ts-left-cancel; fi
if want 3; then swipe_scenario 3 "touchpad right-edge swipe (libevdev path)" tp tp-right-commit; fi

if want 4; then
  scenario_begin 4 "hotplug: device destroyed mid-gesture, then a new one"
  if start_daemon; then
    touch "$OUT/hold"
    if play inflight "$S/ts-left-inflight.evemu" --hold-file "$OUT/hold" \
      && wait_for 60 "the gesture in flight to drive its transition" \
           at_least 1 '"type":"transition"' '"phase":"changed"'; then
      rm -f "$OUT/hold"
      player_done && expect_terminals 1 && expect_removed 1 \
        && play second "$S/ts-left-commit.evemu" && player_done && expect_terminals 2 && expect_removed 2
    fi
    rm -f "$OUT/hold"
  fi
  stop_daemon
  scenario_end 4
fi

if want 10; then
  scenario_begin 10 "multi-finger swipes: a touchpad's through libinput's gestures, a touchscreen's"
  # Each part on a fresh daemon, so that its stream matches its own offline replay.
  for part in tp ts; do
    case $part in tp) rec=tp-swipes ;; ts) rec=ts-swipe ;; esac
    OUT="$R/scenario-10/$part"
    mkdir -p "$OUT"
    start_daemon --config "$E2E/swipes.toml" && play "$part" "$S/$rec.evemu" && player_done \
      && expect_terminals "$(cat "$S/$rec.terminals")" && expect_removed 1
    stop_daemon
  done
  OUT="$R/scenario-10"
  scenario_end 10
fi

if want 5; then
  scenario_begin 5 "recordings played into uinput devices made from their descriptions"
  for rec in "$E2E"/recordings/*.evemu; do
    [ -e "$rec" ] || continue
    base=$(basename "$rec" .evemu)
    OUT="$R/scenario-5/$base"
    mkdir -p "$OUT"
    desc_args=()
    [ -e "$E2E/recordings/$base.desc" ] && desc_args=(--desc "$E2E/recordings/$base.desc")
    t0=$(ms)
    start_daemon && play rec "$rec" "${desc_args[@]}" && player_done 600 \
      && expect_terminals "$(cat "$E2E/recordings/$base.terminals")" 120 && expect_removed 1
    stop_daemon
    echo $(( $(ms) - t0 )) > "$OUT/guest-ms"
    log "scenario 5: $base played"
  done
  OUT="$R/scenario-5"
  scenario_end 5
fi

if want 6; then
  scenario_begin 6 "permissions: the daemon's user reads touch devices only"
  touch "$OUT/hold"
  python3 "$E2E/uinput-play.py" "$S/keyboard.evemu" --node-file "$OUT/kbd.node" --hold-file "$OUT/hold" 2> "$OUT/kbd.err" &
  kbd_pid=$!
  python3 "$E2E/uinput-play.py" "$S/ts-left-commit.evemu" --node-file "$OUT/ts.node" --stop-after-frames 0 \
    --hold-file "$OUT/hold" 2> "$OUT/ts.err" &
  ts_pid=$!
  python3 "$E2E/uinput-play.py" "$S/tp-right-commit.evemu" --node-file "$OUT/tp.node" --stop-after-frames 0 \
    --hold-file "$OUT/hold" 2> "$OUT/tp.err" &
  tp_pid=$!
  if wait_for 60 "the three devices" test -s "$OUT/kbd.node" -a -s "$OUT/ts.node" -a -s "$OUT/tp.node"; then
    udevadm settle --timeout=60
    {
      for d in kbd ts tp; do
        node=$(head -1 "$OUT/$d.node")
        echo "== $d $node"
        ls -l "$node"
        getfacl -p "$node" 2>&1
        udevadm info --query=property --name="$node" | grep -E '^ID_INPUT|^EDGESWIPE' || true
        if as_daemon /bin/sh -c 'exec 3< "$1"' sh "$node" 2>/dev/null; then
          echo "open-as-edgeswipe: ok"
        else
          echo "open-as-edgeswipe: denied ($(as_daemon /bin/sh -c 'exec 3< "$1"' sh "$node" 2>&1 | tail -1))"
        fi
      done
    } > "$OUT/access.txt" 2>&1
    as_daemon edgeswiped --list-devices > "$OUT/list-devices.txt" 2> "$OUT/list-devices.err"
    echo $? > "$OUT/list-devices.exit"
    as_daemon edgeswiped --list-devices --device "$(head -1 "$OUT/kbd.node")" > "$OUT/list-kbd.txt" 2> "$OUT/list-kbd.err"
    echo $? > "$OUT/list-kbd.exit"
    # The daemon as its user, on the udev backend, with the keyboard present: it must see the touchscreen.
    # Asked at once (the devices were there before the daemon started), then once it has announced them.
    start_daemon && as_client edgeswipectl devices --socket "$SOCK" > "$OUT/devices-at-hello.txt" 2>&1
    # (In the hello, or as device events: ask until both are listed.)
    wait_for 60 "the daemon to list both touch devices" eval \
      "as_client edgeswipectl devices --socket $SOCK 2>/dev/null | grep -q 'E2E Touchscreen' && as_client edgeswipectl devices --socket $SOCK 2>/dev/null | grep -q 'E2E Touchpad'"
    as_client edgeswipectl devices --socket "$SOCK" > "$OUT/devices.txt" 2>&1
    echo $? > "$OUT/devices.exit"
    cp /proc/"$DAEMON_PID"/status "$OUT/daemon-proc-status.txt" 2>/dev/null
    stop_daemon
  fi
  rm -f "$OUT/hold"
  wait_for 60 "the devices to go" eval "! kill -0 $kbd_pid 2>/dev/null && ! kill -0 $ts_pid 2>/dev/null && ! kill -0 $tp_pid 2>/dev/null"
  scenario_end 6
fi

# Scenario 8 (not in the default set: E2E_SCENARIOS=8): edgeswiped and lisgd side by side on one touchscreen.
# scripts/e2e/side-by-side.py does the work and records the times; the host judges and tabulates them.
if want 8; then
  scenario_begin 8 "side by side with lisgd: 20 edge swipes on one touchscreen"
  if start_daemon --config "$E2E/side-by-side.toml"; then
    python3 "$E2E/side-by-side.py" "$S/side-by-side" --socket "$SOCK" --gid "$(id -g edgeswipe)" --out "$OUT" \
      2> "$OUT/side-by-side.err"
    echo $? > "$OUT/side-by-side.exit"
    log "scenario 8: side-by-side exited with $(cat "$OUT/side-by-side.exit")"
    wait_for 60 "the touchscreen to go" at_least 1 '"type":"device"' '"change":"removed"'
  fi
  stop_daemon
  scenario_end 8
fi

if want 7 || want 9; then
  # Hand PID 1 to systemd. Our udevd goes first: systemd starts its own.
  log "scenarios 7 and 9: handing over to systemd"
  udevadm control --exit 2>/dev/null
  # The socket's directory is the socket unit's to make (DirectoryMode=), as on a freshly booted machine: the
  # one the scenarios above used would keep its mode under systemd's /run.
  rm -rf /run/edgeswipe
  for n in 7 9; do want $n && mkdir -p "$R/scenario-$n"; done
  exec /lib/systemd/systemd --unit=e2e.target --log-target=console --show-status=false
  log "could not start systemd"
  for n in 7 9; do want $n && echo "could not exec /lib/systemd/systemd" >> "$R/scenario-$n/guest-errors.txt"; done
fi
log "all scenarios ran in $(( $(ms) - boot_ms )) ms after boot"
finish
fi

# ---------------------------------------------------------------------------------------------------------
# Scenario 7, under systemd (this script as e2e-systemd.service): socket activation starts edgeswiped.service
# as installed (User=edgeswipe, Type=notify, watchdog, the whole sandbox). A touchscreen present before the
# daemon starts (coldplug) and one created while it runs (hotplug) must both work.
if [ "$PHASE" = systemd-phase ]; then
  boot_ms=$(cat /run/e2e-boot-ms 2>/dev/null || ms)
fi
if [ "$PHASE" = systemd-phase ] && want 7; then
  scenario_begin 7 "the installed units under systemd: socket activation, sandbox, coldplug and hotplug"
  SOCK=/run/edgeswipe/edgeswipe.sock
  {
    systemctl --no-pager status edgeswiped.socket
    ls -la /run/edgeswipe
  } > "$OUT/socket-status.txt" 2>&1
  # Coldplug: the device exists before anything connects (and so before the daemon starts).
  touch "$OUT/hold-cold"
  python3 "$E2E/uinput-play.py" "$S/ts-left-commit.evemu" --node-file "$OUT/cold.node" --go-file "$OUT/cold.go" \
    --hold-file "$OUT/hold-cold" --report "$OUT/cold.timing" 2> "$OUT/cold.player.err" &
  cold_pid=$!
  wait_for 60 "the coldplug device" test -s "$OUT/cold.node" && udevadm settle --timeout=60
  # The first client's connection starts the service.
  "${AS_CLIENT[@]}" edgeswipectl monitor --json --socket "$SOCK" > "$OUT/monitor.jsonl" 2> "$OUT/monitor.err" &
  MONITOR_PID=$!
  if wait_for 90 "the client's hello (socket activation)" grep -q '"type":"hello"' "$OUT/monitor.jsonl"; then
    systemctl show edgeswiped.service -p ActiveState -p SubState -p MainPID -p NRestarts -p Result > "$OUT/service-started.txt"
    main_pid=$(sed -n 's/^MainPID=//p' "$OUT/service-started.txt")
    cp "/proc/$main_pid/status" "$OUT/daemon-proc-status.txt" 2>/dev/null
    udevd_pid=$(systemctl show systemd-udevd.service -p MainPID --value)
    { echo "daemon=$(readlink "/proc/$main_pid/ns/net")"; echo "init=$(readlink /proc/1/ns/net)"
      echo "udevd=$(readlink "/proc/$udevd_pid/ns/net")"; } > "$OUT/netns.txt" 2>&1
    # Announced in the hello or in a device event.
    if wait_for 60 "the coldplug device to be announced" eval \
         "grep -q 'EdgeSwipe E2E Touchscreen' '$OUT/monitor.jsonl'"; then
      touch "$OUT/cold.go"
      wait_for 60 "the coldplug swipe to finish" terminals_at_least 1
    fi
    rm -f "$OUT/hold-cold"
    # Hotplug: a device created while the daemon runs (a right swipe: the left one has selected the first tab).
    wait_for 60 "the coldplug device to go" at_least 1 '"type":"device"' '"change":"removed"'
    before=$(count '"type":"device"' '"change":"added"')
    rm -f "$OUT/hot.node"
    touch "$OUT/hold-hot"
    python3 "$E2E/uinput-play.py" "$S/ts-right-commit.evemu" --node-file "$OUT/hot.node" --go-file "$OUT/hot.go" \
      --hold-file "$OUT/hold-hot" --report "$OUT/hot.timing" 2> "$OUT/hot.player.err" &
    hot_pid=$!
    wait_for 60 "the hotplug device" test -s "$OUT/hot.node" && udevadm settle --timeout=60
    if wait_for 30 "the hotplugged device to be announced" announced $(( before + 1 )) "EdgeSwipe E2E Touchscreen"; then
      touch "$OUT/hot.go"
      wait_for 60 "the hotplug swipe to finish" terminals_at_least 2
    else
      touch "$OUT/hot.go"
    fi
    rm -f "$OUT/hold-hot"
    wait_for 60 "the players to finish" eval "! kill -0 $hot_pid 2>/dev/null && ! kill -0 $cold_pid 2>/dev/null"
    systemctl show edgeswiped.service -p ActiveState -p SubState -p NRestarts -p Result -p WatchdogUSec > "$OUT/service-before-stop.txt"
    systemctl stop edgeswiped.service
    systemctl show edgeswiped.service -p ActiveState -p Result -p ExecMainStatus -p ExecMainCode > "$OUT/service-stopped.txt"
  fi
  rm -f "$OUT/hold-cold" "$OUT/hold-hot"; touch "$OUT/cold.go" "$OUT/hot.go"
  wait_for 30 "the client to see the daemon go" eval "! kill -0 $MONITOR_PID 2>/dev/null" || kill "$MONITOR_PID"
  journalctl --no-pager -o short-monotonic -u edgeswiped.service -u edgeswiped.socket > "$OUT/journal.txt" 2>&1
  journalctl --no-pager -o short-monotonic -b > "$OUT/journal-all.txt" 2>&1
  systemctl --no-pager --failed > "$OUT/failed-units.txt" 2>&1
  scenario_end 7
fi

# ---------------------------------------------------------------------------------------------------------
# Scenario 9, under systemd with the system bus and logind: the installed service (socket activation, the
# configuration scripts/system-config.sh makes, whose [access] admits "active-session") and real logind sessions.
# A session is what pam_systemd registers for a unit with PAMName=login and a TTYPath on a VT (the way Yocto's
# weston test and most kiosk recipes start one without a display manager: `systemd-run -p PAMName=login
# -p TTYPath=/dev/ttyN`); `loginctl activate` switches VT to it, as a user switch does. alice and bob are in no
# group of ours: only the session lets them in. One touchscreen swipes from its physical left edge three times:
# for alice, for alice again after she turned the screen 90 degrees (the top edge), and for bob after the switch.
if [ "$PHASE" = systemd-phase ] && want 9; then
  scenario_begin 9 "real logind: the active session's user reads, others are refused; a switch closes the old client; set-rotation"
  SOCK=/run/edgeswipe/edgeswipe.sock
  # session_of USER: the id of USER's logind session.
  session_of() { loginctl list-sessions --no-legend 2>/dev/null | awk -v u="$1" '$3 == u { print $1; exit }'; }
  active_session() { loginctl show-seat seat0 -p ActiveSession --value 2>/dev/null; }
  # open_session USER VT: a session of USER on ttyVT, held by a unit that sleeps until the scenario stops it.
  open_session() {
    systemd-run --quiet --collect --unit="e2e-session-$1" --uid="$1" -p PAMName=login -p TTYPath="/dev/tty$2" \
      -p StandardInput=null -p StandardOutput=journal sleep infinity > "$OUT/session-$1.err" 2>&1
    wait_for 90 "a logind session of $1 on tty$2" eval "[ -n \"\$(session_of $1)\" ]"
  }
  # activate USER: makes USER's session the seat's active one (a VT switch) and waits until logind says so.
  activate() {
    local id
    id=$(session_of "$1")
    loginctl activate "$id" >> "$OUT/loginctl.err" 2>&1
    wait_for 60 "$1's session $id to be active on seat0" eval "[ \"\$(active_session)\" = $id ]"
  }
  # try_client USER NAME: one connection as USER; its stream (nothing, when refused) in NAME.jsonl.
  try_client() {
    timeout 60 setpriv --reuid="$1" --regid="$1" --init-groups -- edgeswipectl monitor --json --count 1 \
      --socket "$SOCK" > "$OUT/$2.jsonl" 2> "$OUT/$2.err"
    echo $? > "$OUT/$2.exit"
  }
  {
    echo "dbus: $(systemctl is-active dbus.service)"; echo "logind: $(systemctl is-active systemd-logind.service)"
    echo "CanTTY: $(loginctl show-seat seat0 -p CanTTY --value 2>&1)"
    ls -la /run/edgeswipe
  } > "$OUT/seat-before.txt" 2>&1
  if open_session alice 2 && open_session bob 3 && activate alice; then
    loginctl list-sessions --no-legend > "$OUT/sessions.txt" 2>&1
    loginctl show-seat seat0 > "$OUT/seat.txt" 2>&1
    # alice is at the seat: her client reads the stream (its connection starts the service if scenario 7 has
    # stopped it, or has not run).
    STREAM=$OUT/alice.jsonl
    setpriv --reuid=alice --regid=alice --init-groups -- edgeswipectl monitor --json --socket "$SOCK" \
      > "$OUT/alice.jsonl" 2> "$OUT/alice.err" &
    ALICE_PID=$!
    if wait_for 90 "alice's hello" grep -q '"type":"hello"' "$OUT/alice.jsonl"; then
      # bob has a session, but not the active one; carol has none: both are refused.
      try_client bob bob-inactive
      try_client carol carol-none
      touch "$OUT/ts.hold"
      rm -f "$OUT/ts.node"
      python3 "$E2E/uinput-play.py" "$S/ts-left-commit.evemu" --node-file "$OUT/ts.node" --timeout 600 \
        --go-file "$OUT/go-1" --go-file "$OUT/go-2" --go-file "$OUT/go-3" \
        --hold-file "$OUT/ts.hold" --report "$OUT/ts.timing" 2> "$OUT/ts.player.err" &
      PLAYER_PID=$!
      if wait_for 60 "the touchscreen" test -s "$OUT/ts.node" && udevadm settle --timeout=60 \
         && wait_for 60 "alice's client to see the touchscreen" eval "grep -q 'EdgeSwipe E2E Touchscreen' '$OUT/alice.jsonl'"; then
        # 1: alice swipes from the left edge.
        touch "$OUT/go-1"
        if wait_for 60 "alice's first swipe to end" gestures_ended_at_least 1; then
          # 2: alice turns the screen a quarter; the same physical swipe is then on the top edge.
          setpriv --reuid=alice --regid=alice --init-groups -- edgeswipectl rotate 90 --socket "$SOCK" \
            > "$OUT/rotate.txt" 2>&1
          echo $? > "$OUT/rotate.exit"
          wait_for 30 "the device change after set-rotation" at_least 1 '"type":"device"' '"change":"changed"' \
            && touch "$OUT/go-2" && wait_for 60 "alice's second swipe to end" gestures_ended_at_least 2
        fi
        # 3: bob's session becomes the active one: alice's client is told and closed; bob's is let in and sees
        # the next swipe; alice, now in the background, is refused.
        if activate bob; then
          wait_for 30 "alice's client to be closed" eval "! kill -0 $ALICE_PID 2>/dev/null"
          try_client alice alice-after-switch
          STREAM=$OUT/bob.jsonl
          setpriv --reuid=bob --regid=bob --init-groups -- edgeswipectl monitor --json --socket "$SOCK" \
            > "$OUT/bob.jsonl" 2> "$OUT/bob.err" &
          BOB_PID=$!
          if wait_for 60 "bob's hello" grep -q '"type":"hello"' "$OUT/bob.jsonl"; then
            touch "$OUT/go-3"
            wait_for 60 "bob's swipe to end" gestures_ended_at_least 1
          fi
        fi
      fi
      touch "$OUT/go-1" "$OUT/go-2" "$OUT/go-3"
      rm -f "$OUT/ts.hold"
      wait_for 60 "the player to end" eval "! kill -0 $PLAYER_PID 2>/dev/null"
    fi
    loginctl list-sessions --no-legend > "$OUT/sessions-after.txt" 2>&1
    systemctl stop edgeswiped.service
    systemctl show edgeswiped.service -p ActiveState -p Result -p NRestarts > "$OUT/service-stopped.txt"
    for pid in ${ALICE_PID:-} ${BOB_PID:-}; do
      wait_for 30 "the clients to see the daemon go" eval "! kill -0 $pid 2>/dev/null" || kill "$pid"
    done
  fi
  systemctl stop e2e-session-alice.service e2e-session-bob.service 2>/dev/null
  journalctl --no-pager -o short-monotonic -u edgeswiped.service -u systemd-logind.service > "$OUT/journal.txt" 2>&1
  scenario_end 9
fi
# ---------------------------------------------------------------------------------------------------------
# Scenario 11, in a boot of its own with systemd as PID 1 from the start (`rdinit=/lib/systemd/systemd`; this
# script runs as e2e-package.service with the argument `package`): the Debian package, installed as a user
# installs it. Nothing of ours is in this guest before `dpkg -i`: no binaries, units, rules, user, group or
# configuration. The devices swipe from the recordings of scenario 1; the host judges everything recorded here.
if [ "$PHASE" = package ]; then
  boot_ms=$(ms)
  log "booted: $(uname -r), $(nproc) cpu(s), uptime $(cut -d' ' -f1 /proc/uptime)s, PID 1 is $(cat /proc/1/comm)"
  modprobe -a evdev uinput 2>&1 | sed 's/^/modprobe: /'
fi
if [ "$PHASE" = package ] && want 11; then
  scenario_begin 11 "the Debian package: install, activation, access, reload, upgrade, two seats, purge"
  P=$E2E/package
  SOCK=/run/edgeswipe/edgeswipe.sock
  # snapshot FILE: every path on the root and /run file systems, but the kernel's, the harness's and /tmp.
  snapshot() {
    find / /run -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /results -o -path /e2e -o -path /tmp \) \
      -prune -o -print 2>/dev/null | LC_ALL=C sort -u > "$1"
  }
  # facts FILE: what the host judges about the package's state, as key=value lines.
  facts() {
    {
      echo "package=$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' edgeswipe 2>&1)"
      echo "user=$(getent passwd edgeswipe)"
      echo "group=$(getent group edgeswipe)"
      for u in edgeswiped.socket edgeswiped.service; do
        echo "$u.enabled=$(systemctl is-enabled "$u" 2>&1)"
        echo "$u.active=$(systemctl is-active "$u" 2>&1)"
      done
      echo "unit-files=$(systemctl list-unit-files --no-legend 'edgeswipe*' 2>&1 | awk '{ print $1 ":" $2 }' | tr '\n' ' ')"
      echo "units=$(systemctl list-units --all --no-legend 'edgeswipe*' 2>&1 | awk '{ print $1 ":" $3 ":" $4 }' | tr '\n' ' ')"
      echo "listening=$(awk 'NR > 1 && $NF ~ /edgeswipe/ { print $NF }' /proc/net/unix | sort -u | tr '\n' ' ')"
      echo "processes=$(grep -lx 'edgeswiped' /proc/[0-9]*/comm 2>/dev/null | cut -d/ -f3 | tr '\n' ' ')"
      echo "conffile.sha256=$(sha256sum /etc/edgeswipe/edgeswipe.toml 2>/dev/null | cut -c1-64)"
      echo "etc-edgeswipe=$(ls -A /etc/edgeswipe 2>&1 | tr '\n' ' ')"
    } > "$1"
  }
  # service_facts UNIT FILE: the running service's main process and its sandbox, seen from outside.
  service_facts() {
    local unit=$1 pid
    pid=$(systemctl show "$unit" -p MainPID --value)
    {
      systemctl show "$unit" -p ActiveState -p SubState -p MainPID -p NRestarts -p Result -p User
      if [ -n "$pid" ] && [ "$pid" != 0 ]; then
        grep -E '^(Uid|Gid|NoNewPrivs|Seccomp|CapEff|CapBnd):' "/proc/$pid/status" | tr '\t' ' ' | sed 's/: */=/'
        echo "mntns=$([ "$(readlink "/proc/$pid/ns/mnt")" != "$(readlink /proc/1/ns/mnt)" ] && echo own || echo init)"
        echo "write-etc=$(nsenter --target "$pid" --mount -- sh -c 'touch /etc/e2e-probe 2>&1 && rm /etc/e2e-probe && echo writable' | tail -1)"
        echo "state-dir=$(tr '\0' '\n' < "/proc/$pid/environ" | sed -n 's/^STATE_DIRECTORY=//p')"
        echo "cmdline=$(tr '\0' ' ' < "/proc/$pid/cmdline")"
      fi
    } > "$2" 2>&1
  }
  # client NAME SOCKET: a reader as e2e on SOCKET, its stream in NAME.jsonl; leaves $CLIENT_PID.
  client() {
    "${AS_CLIENT[@]}" edgeswipectl monitor --json --socket "$2" > "$OUT/$1.jsonl" 2> "$OUT/$1.err" &
    CLIENT_PID=$!
  }
  has_hello() { grep -q '"type":"hello"' "$OUT/$1.jsonl"; }
  stream_at_least() { local f=$1 n=$2; shift 2; STREAM=$OUT/$f.jsonl at_least "$n" "$@"; }
  stream_terminals() { (( $(STREAM=$OUT/$1.jsonl terminals) >= $2 )); }

  useradd --no-create-home outsider
  snapshot "$OUT/files-before.txt"
  facts "$OUT/facts-before.txt"

  # 1. Install.
  dpkg -i "$P/first.deb" > "$OUT/dpkg-install.txt" 2>&1
  echo $? > "$OUT/dpkg-install.exit"
  log "scenario 11: dpkg -i exited with $(cat "$OUT/dpkg-install.exit")"
  # The guest's disk is its memory: the installed package is gone from it, as a user's download goes.
  rm -f "$P/first.deb"
  facts "$OUT/facts-installed.txt"
  { dpkg -L edgeswipe; echo "conffiles:"; dpkg-query -W -f='${Conffiles}\n' edgeswipe; } > "$OUT/package-files.txt" 2>&1
  ls -la /run/edgeswipe > "$OUT/run-dir.txt" 2>&1
  cp /etc/edgeswipe/edgeswipe.toml /tmp/shipped.toml
  useradd --no-create-home --groups edgeswipe e2e

  # 2. A touchscreen present before anything connects; it swipes three times (after activation, after the
  # reload, on seat0's instance).
  touch "$OUT/a.hold"
  python3 "$E2E/uinput-play.py" "$S/ts-left-commit.evemu" --node-file "$OUT/a.node" --timeout 1200 \
    --go-file "$OUT/a.go1" --go-file "$OUT/a.go2" --go-file "$OUT/a.go3" \
    --hold-file "$OUT/a.hold" --report "$OUT/a.timing" 2> "$OUT/a.player.err" &
  A_PID=$!
  if wait_for 60 "the touchscreen" test -s "$OUT/a.node" && udevadm settle --timeout=60; then
    A_NODE=$(head -1 "$OUT/a.node")
    getfacl -p "$A_NODE" > "$OUT/a-acl-installed.txt" 2>&1

    # 3. Socket activation: the first client's connection starts the service, inside its sandbox; a user
    # outside the group (and with no session at the seat) is refused.
    client monitor "$SOCK"
    MONITOR_PID=$CLIENT_PID
    if wait_for 90 "the first client's hello (socket activation)" has_hello monitor; then
      service_facts edgeswiped.service "$OUT/service-activated.txt"
      systemd-analyze security edgeswiped.service --no-pager > "$OUT/security.txt" 2>&1
      timeout 60 setpriv --reuid=outsider --regid=outsider --init-groups -- edgeswipectl monitor --json --count 1 \
        --socket "$SOCK" > "$OUT/outsider.jsonl" 2> "$OUT/outsider.err"
      echo $? > "$OUT/outsider.exit"
      wait_for 60 "the touchscreen to be announced" eval "grep -q 'EdgeSwipe E2E Touchscreen' '$OUT/monitor.jsonl'" \
        && touch "$OUT/a.go1" && wait_for 90 "the first swipe to end" stream_terminals monitor 1

      # 4. Reload: a changed configuration (a higher threshold: the same swipe now cancels; a faster run-out)
      # applies to the running daemon, which keeps its process.
      sed -i -e 's/^threshold = 0.5$/threshold = 0.8/' -e 's/^completion_speed = 1.0$/completion_speed = 2.0/' \
        /etc/edgeswipe/edgeswipe.toml
      systemctl reload edgeswiped.service > "$OUT/reload.txt" 2>&1
      echo $? > "$OUT/reload.exit"
      if wait_for 60 "the reloaded configuration" stream_at_least monitor 1 '"type":"config"' '"result":"reloaded"'; then
        service_facts edgeswiped.service "$OUT/service-reloaded.txt"
        # The first swipe left the shell on its first tab, where the same swipe has nowhere to go (it would be
        # blocked, not cancelled): back to home, as a member of the group may ask (control access), at once.
        as_client edgeswipectl tab shell home --immediately --socket "$SOCK" > "$OUT/tab-home.txt" 2>&1
        echo $? > "$OUT/tab-home.exit"
        if wait_for 60 "the shell back on home" stream_at_least monitor 1 '"type":"state"' '{"name":"shell","kind":"tabs","visible":"home"'; then
          ended=$(STREAM=$OUT/monitor.jsonl terminals)
          touch "$OUT/a.go2" && wait_for 90 "the swipe after the reload to end" stream_terminals monitor $(( ended + 1 ))
        fi
      fi
      # The player plays its swipes in order: a failed reload must not hold back seat0's swipe below.
      touch "$OUT/a.go2"

      # 5. Upgrade: the same package with a higher version, over an edited conffile.
      facts "$OUT/facts-before-upgrade.txt"
      dpkg -i "$P/upgrade.deb" > "$OUT/dpkg-upgrade.txt" 2>&1
      echo $? > "$OUT/dpkg-upgrade.exit"
      log "scenario 11: the upgrade exited with $(cat "$OUT/dpkg-upgrade.exit")"
      facts "$OUT/facts-upgraded.txt"
      wait_for 60 "the first client to see the daemon go" eval "! kill -0 $MONITOR_PID 2>/dev/null" || kill "$MONITOR_PID"
      client after-upgrade "$SOCK"
      AFTER_PID=$CLIENT_PID
      wait_for 90 "a client's hello after the upgrade" has_hello after-upgrade \
        && service_facts edgeswiped.service "$OUT/service-upgraded.txt"
    fi
    systemctl stop edgeswiped.service
    wait_for 30 "the client to see the daemon go" eval "! kill -0 ${AFTER_PID:-$MONITOR_PID} 2>/dev/null"

    # 6. Two seats: the templates, seat0 with the edited configuration, seat1 with its own (a drop-in, as
    # edgeswiped@.service documents) and a touchscreen of its own (ID_SEAT=seat1, a udev rule of the guest's).
    cp /tmp/shipped.toml /etc/edgeswipe/seat1.toml
    mkdir -p /etc/systemd/system/edgeswiped@seat1.service.d
    printf '[Service]\nExecStart=\nExecStart=/usr/bin/edgeswiped --config /etc/edgeswipe/seat1.toml --seat %%i\n' \
      > /etc/systemd/system/edgeswiped@seat1.service.d/config.conf
    systemctl daemon-reload
    { systemctl start edgeswiped@seat0.socket; systemctl enable --now edgeswiped@seat1.socket; } > "$OUT/seats-start.txt" 2>&1
    touch "$OUT/b.hold"
    python3 "$E2E/uinput-play.py" "$S/ts-left-commit-seat1.evemu" --node-file "$OUT/b.node" --timeout 1200 \
      --go-file "$OUT/b.go" --hold-file "$OUT/b.hold" --report "$OUT/b.timing" 2> "$OUT/b.player.err" &
    B_PID=$!
    if wait_for 60 "the seat1 touchscreen" test -s "$OUT/b.node" && udevadm settle --timeout=60; then
      B_NODE=$(head -1 "$OUT/b.node")
      { udevadm info --query=property --name="$B_NODE" | grep -E '^ID_SEAT|^ID_INPUT_TOUCHSCREEN'
        getfacl -p "$B_NODE"; loginctl list-seats --no-legend; } > "$OUT/b-device.txt" 2>&1
      client seat0 /run/edgeswipe/seat/seat0.sock
      SEAT0_PID=$CLIENT_PID
      client seat1 /run/edgeswipe/seat/seat1.sock
      SEAT1_PID=$CLIENT_PID
      if wait_for 90 "seat0's hello" has_hello seat0 && wait_for 90 "seat1's hello" has_hello seat1; then
        service_facts edgeswiped@seat0.service "$OUT/service-seat0.txt"
        service_facts edgeswiped@seat1.service "$OUT/service-seat1.txt"
        wait_for 60 "seat1's touchscreen to be announced" eval "grep -q 'Touchscreen B' '$OUT/seat1.jsonl'" \
          && touch "$OUT/b.go" && wait_for 90 "seat1's swipe to end" stream_terminals seat1 1
        wait_for 60 "seat0's touchscreen to be announced" eval "grep -q 'EdgeSwipe E2E Touchscreen\"' '$OUT/seat0.jsonl'" \
          && touch "$OUT/a.go3" && wait_for 90 "seat0's swipe to end" stream_terminals seat0 1
        ls -la /var/lib/edgeswipe /var/lib/edgeswipe/seat/seat0 /var/lib/edgeswipe/seat/seat1 > "$OUT/state-dirs.txt" 2>&1
        ls -la /run/edgeswipe /run/edgeswipe/seat > "$OUT/run-dir-seats.txt" 2>&1
      fi
    fi

    # 6b. An instance whose name is not a seat, and is the single-seat socket's name: it listens in its own folder,
    # its daemon refuses the name when a client connects, and stopping it leaves edgeswiped.socket's socket alone.
    systemctl start edgeswiped@edgeswipe.socket > "$OUT/not-a-seat-start.txt" 2>&1
    client not-a-seat /run/edgeswipe/seat/edgeswipe.sock
    wait_for 60 "edgeswiped@edgeswipe.service to refuse its name" \
      eval "journalctl --no-pager -u edgeswiped@edgeswipe.service | grep -q 'is not a seat name'"
    journalctl --no-pager -o cat -u edgeswiped@edgeswipe.service > "$OUT/not-a-seat-journal.txt" 2>&1
    systemctl stop edgeswiped@edgeswipe.socket edgeswiped@edgeswipe.service >> "$OUT/not-a-seat-start.txt" 2>&1
    # Its refusals left the units failed: forgotten, so that the purge's check finds no unit of ours loaded.
    systemctl reset-failed edgeswiped@edgeswipe.socket edgeswiped@edgeswipe.service >> "$OUT/not-a-seat-start.txt" 2>&1
    wait_for 30 "the refused client to end" eval "! kill -0 $CLIENT_PID 2>/dev/null" || kill "$CLIENT_PID"
    { ls -la /run/edgeswipe /run/edgeswipe/seat
      echo "listening=$(awk 'NR > 1 && $NF ~ /edgeswipe/ { print $NF }' /proc/net/unix | sort -u | tr '\n' ' ')"
    } > "$OUT/not-a-seat-after.txt" 2>&1

    # 7. Purge, with both instances and their clients running and both devices present. The administrator's
    # own files (seat1's configuration and drop-in) go first: they are not the package's. Their own unit whose name
    # begins like the package's, linked from a file system that is not mounted, must stay.
    rm -rf /etc/edgeswipe/seat1.toml /etc/systemd/system/edgeswiped@seat1.service.d
    ln -s /opt/not-mounted/edgeswiped-exporter.service /etc/systemd/system/edgeswiped-exporter.service
    facts "$OUT/facts-before-purge.txt"
    apt-get purge -y edgeswipe > "$OUT/apt-purge.txt" 2>&1
    echo $? > "$OUT/apt-purge.exit"
    log "scenario 11: apt-get purge exited with $(cat "$OUT/apt-purge.exit")"
    readlink /etc/systemd/system/edgeswiped-exporter.service > "$OUT/admin-link-purged.txt" 2>&1
    rm -f /etc/systemd/system/edgeswiped-exporter.service
    systemctl daemon-reload
    facts "$OUT/facts-purged.txt"
    { getfacl -p "$A_NODE"; getfacl -p "${B_NODE:-/nonexistent}"; } > "$OUT/acl-purged.txt" 2>&1
    find / -xdev \( -path /proc -o -path /sys \) -prune -o \( -user edgeswipe -o -group edgeswipe \) -print \
      > "$OUT/owned-purged.txt" 2>&1
    for pid in ${SEAT0_PID:-} ${SEAT1_PID:-}; do
      wait_for 30 "the seats' clients to see their daemons go" eval "! kill -0 $pid 2>/dev/null" || kill "$pid"
    done
  fi
  touch "$OUT/a.go1" "$OUT/a.go2" "$OUT/a.go3" "$OUT/b.go"
  rm -f "$OUT/a.hold" "$OUT/b.hold"
  wait_for 60 "the players to end" eval "! kill -0 $A_PID 2>/dev/null && ! kill -0 ${B_PID:-$A_PID} 2>/dev/null"
  journalctl --no-pager -o short-monotonic -u 'edgeswiped*' > "$OUT/journal.txt" 2>&1
  journalctl --no-pager -o short-monotonic -b > "$OUT/journal-all.txt" 2>&1
  snapshot "$OUT/files-after.txt"
  scenario_end 11
fi
if [ "$PHASE" = package ]; then
  log "all scenarios ran in $(( $(ms) - boot_ms )) ms after boot"
  finish
fi
if [ "$PHASE" = systemd-phase ]; then
  log "all scenarios ran in $(( $(ms) - boot_ms )) ms after boot"
  finish
fi
