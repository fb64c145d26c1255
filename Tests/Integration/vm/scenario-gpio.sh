# The gpio-sim scenario, sourced after scenarios.sh (it replaces that file's stub): the daemon
# drives a simulated chip of the real kernel's gpiolib through its character device, and every
# value is read back from gpio-sim's sysfs (sim_gpioN/value) and from the kernel's gpio_value
# trace events, which record each value a line was set to, the last one before its release too.
# The button is pressed by switching the simulated pull of its line (sim_gpioN/pull).
# Needs irq_sim.ko and gpio-sim.ko in $KS_CACHE/gpio-sim/ (Tests/Integration/vm/build-gpio-sim).

GS_CONFIGFS=/sys/kernel/config/gpio-sim/ks
GS_TRACE=/sys/kernel/tracing
# Offsets on the simulated chip ks-sim, and their line names.
GS_TORCH=0 GS_BUZZER=1 GS_FLASH=2 GS_BUTTON=3
GS_NAMES=(KS-TORCH KS-BUZZER KS-FLASH KS-TRIGGER KS-SPARE4 KS-SPARE5 KS-SPARE6 KS-SPARE7)

gs_value() { local v; read -r v <"$GS_SIM/sim_gpio$1/value"; echo "$v"; }
# Polls a line until it reads $2, for up to $3 whole seconds, without a fork per round (a fork
# costs a lot under TCG, more than a short beep): read from sysfs, clock from bash, and the pause
# is a timed read on a FIFO that nothing writes.
gs_wait_value() {
    local end=$(( ${EPOCHREALTIME/./} + $3 * 1000000 )) v
    [ -n "${GS_SLEEPFD:-}" ] || { mkfifo /tmp/ks-gpio-sleep 2>/dev/null; exec {GS_SLEEPFD}<>/tmp/ks-gpio-sleep; }
    while :; do
        read -r v <"$GS_SIM/sim_gpio$1/value"
        [ "$v" = "$2" ] && return 0
        [ "${EPOCHREALTIME/./}" -ge "$end" ] && return 1
        read -r -t 0.01 -u "$GS_SLEEPFD" v
    done
}
# "TIME VALUE" for every value the kernel set on line offset $1 (gpio_value trace events).
gs_sets() {
    awk -v g=$(( GS_BASE + $1 )) '{ for (i = 2; i < NF - 2; i++) if ($i == "gpio_value:" && $(i + 1) == g && $(i + 2) == "set") {
        t = $(i - 1); sub(/:$/, "", t); print t, $(i + 3) } }' "$GS_TRACE/trace"
}
gs_last_set() { gs_sets "$1" | tail -1 | cut -d' ' -f2; }
# Pulses (a 1 followed by a 0) on line $1 set after trace time $2, as "SECONDS" lines.
gs_pulses() {
    gs_sets "$1" | awk -v after="${2:-0}" '$1 >= after { if ($2 == 1 && on == "") on = $1; else if ($2 == 0 && on != "") { printf "%.3f\n", $1 - on; on = "" } }'
}
gs_now() { cut -d' ' -f1 /proc/uptime; }  # the trace runs on the same clock (trace_clock boot)
gs_used() { gpioinfo ks-sim 2>/dev/null | grep -c '"kiosk-scanner"'; }
# Sends one line command on the socket and prints the daemon's reply (perl is essential in Debian).
gs_command() {
    perl -MIO::Socket::UNIX -e '
        my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ARGV[0]) or die "connect: $!\n";
        print $s "$ARGV[1]\n";
        local $SIG{ALRM} = sub { die "no reply\n" }; alarm 10;
        while (my $l = <$s>) { if ($l =~ /"ok"/) { print $l; exit 0 } }
        die "closed\n";' /tmp/ks-gpio/scan.sock "$1"
}
gs_heard() { grep -c ':KS-Wedge-42$' /tmp/ks-gpio/listen.out 2>/dev/null; }

gs_load() {
    local dir=$KS_CACHE/gpio-sim
    [ -f "$dir/gpio-sim.ko" ] && [ -f "$dir/irq_sim.ko" ] \
        || { echo "no $dir/gpio-sim.ko: run Tests/Integration/vm/build-gpio-sim on the host"; return 1; }
    modprobe configfs || { echo "modprobe configfs failed"; return 1; }
    [ -d /sys/module/irq_sim ] || insmod "$dir/irq_sim.ko" 2>&1 || { echo "insmod irq_sim.ko failed"; return 1; }
    [ -d /sys/module/gpio_sim ] || insmod "$dir/gpio-sim.ko" 2>&1 || { echo "insmod gpio-sim.ko failed: $(dmesg | tail -2 | tr '\n' ' ')"; return 1; }
    mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config || { echo "cannot mount configfs"; return 1; }
    mountpoint -q "$GS_TRACE" || mount -t tracefs tracefs "$GS_TRACE" || { echo "cannot mount tracefs"; return 1; }
}

gs_chip_up() { # one bank of 8 named lines, labelled ks-sim
    local bank=$GS_CONFIGFS/gpio-bank0 i
    mkdir -p "$bank" "$bank"/line{0..7} || return 1
    echo 8 >"$bank/num_lines" && echo ks-sim >"$bank/label" || return 1
    for i in "${!GS_NAMES[@]}"; do
        echo "${GS_NAMES[$i]}" >"$bank/line$i/name" || return 1
    done
    echo 1 >"$GS_CONFIGFS/live" || return 1
    GS_CHIP=$(cat "$bank/chip_name")
    GS_SIM=/sys/devices/platform/$(cat "$GS_CONFIGFS/dev_name")/$GS_CHIP
    wait_for 10 test -c "/dev/$GS_CHIP" && test -f "$GS_SIM/sim_gpio0/value" || return 1
    # The chip's global number base, which the trace events use.
    local c
    for c in /sys/class/gpio/gpiochip*; do
        [ "$(cat "$c/label" 2>/dev/null)" = ks-sim ] && GS_BASE=$(cat "$c/base")
    done
    [ -n "${GS_BASE:-}" ]
}

gs_chip_down() {
    [ -d "$GS_CONFIGFS" ] || return 0
    # Tracing stops with the ring buffer's switch only. Disabling the event unregisters its
    # tracepoint, and once, under TCG, that write never returned: the rig ran into its timeout
    # with every check of this scenario passed.
    echo 0 >"$GS_TRACE/tracing_on" 2>/dev/null
    echo 0 >"$GS_CONFIGFS/live" 2>/dev/null
    rmdir "$GS_CONFIGFS"/gpio-bank0/line* "$GS_CONFIGFS/gpio-bank0" "$GS_CONFIGFS" 2>/dev/null
    true
}

# The checks; prints the failure reason and returns 1, or prints the PASS details.
gs_checks() {
    gs_load || return 1
    gs_chip_up || { echo "could not create the simulated chip through $GS_CONFIGFS"; return 1; }
    echo boot >"$GS_TRACE/trace_clock"  # the clock of /proc/uptime, for gs_now
    echo >"$GS_TRACE/trace"
    echo 1 >"$GS_TRACE/events/gpio/gpio_value/enable" && echo 1 >"$GS_TRACE/tracing_on" \
        || { echo "cannot enable the gpio_value trace event"; return 1; }

    # One frame with KS-Wedge-42 (a trigger session ends at its first read, so nothing else is
    # needed, and a debug build under TCG loads one frame much faster than wedge_frames' eleven).
    local frames=/tmp/ks-gpio-frames
    mkdir -p "$frames" && "$KS_BIN/feeder" --pgm "$frames/code.pgm" 640 480 "$KS_CACHE/codes/wedge.hex" \
        || { echo "feeder --pgm failed (is $KS_CACHE/codes/wedge.hex there? the rig's run makes it)"; return 1; }
    start_daemon gpio "camera: { device: \"replay:$frames\" }
viewport: { square: 0.9 }
scanner: { mode: trigger, trigger_timeout: 5, torch: auto }
gpio:
  torch: { chip: ks-sim, line: KS-TORCH }
  buzzer: { type: active, chip: /dev/$GS_CHIP, line: $GS_BUZZER }
  flash: { chip: ks-sim, line: KS-FLASH }
  trigger: { chip: ks-sim, line: KS-TRIGGER, active_low: true, bias: pull-up }
feedback:
  startup: { beep: 0.05, flash: 0.05, repeat: 1, gap: 0 }
  good_read: { beep: 0.2, flash: 0.2, repeat: 1, gap: 0 }
  beep: { beep: 3, flash: 0, repeat: 1, gap: 0 }" || { echo "the daemon did not open its socket: $(tail -2 /run/vmout/gpio.log | tr '\n' ' ')"; return 1; }
    "$KS_DAEMON" listen --socket /tmp/ks-gpio/scan.sock >/tmp/ks-gpio/listen.out 2>/tmp/ks-gpio/listen.err &
    GS_LISTENER=$!
    wait_for 20 eval '[ "$(gs_used)" = 4 ]' \
        || { echo "the daemon holds $(gs_used) of 4 lines: $(grep -i 'gpio' /run/vmout/gpio.log | grep -v ' debug ' | tail -2 | tr '\n' ' ')"; return 1; }

    # 1. Torch off at start: requested inactive, and nothing lights it while no session runs.
    # (The log, not `status`: each run of the debug binary costs seconds under TCG.)
    wait_for 60 grep -q 'camera streaming' /run/vmout/gpio.log || { echo "the replay camera never streamed"; return 1; }
    local first; first=$(gs_sets $GS_TORCH | head -1 | cut -d' ' -f2)
    [ "$first" = 0 ] || { echo "the torch was requested with value '$first', not 0"; return 1; }
    [ "$(gs_value $GS_BUTTON)" = 1 ] || { echo "the trigger line reads $(gs_value $GS_BUTTON) with the daemon's pull-up bias"; return 1; }
    sleep 1
    [ "$(gs_value $GS_TORCH)" = 0 ] || { echo "the torch is on before any trigger (trigger mode, torch auto)"; return 1; }
    [ "$(gs_heard)" = 0 ] || { echo "a read was delivered before the button was pressed"; return 1; }

    # 2. The button, pressed through the simulated pull: one session, one read, torch on meanwhile.
    local press; press=$(gs_now)
    echo pull-down >"$GS_SIM/sim_gpio$GS_BUTTON/pull"
    sleep 0.2
    echo pull-up >"$GS_SIM/sim_gpio$GS_BUTTON/pull"
    wait_for 20 eval '[ "$(gs_heard)" -ge 1 ]' \
        || { echo "no read after the button press ($(grep -c 'trigger button pressed' /run/vmout/gpio.log) presses logged)"; return 1; }
    grep -q 'trigger button pressed' /run/vmout/gpio.log || { echo "a read came but no button press was logged"; return 1; }
    gs_wait_value $GS_TORCH 0 5 || { echo "the torch stayed on after the session's read"; return 1; }
    local torch_on; torch_on=$(gs_sets $GS_TORCH | awk -v p="$press" '$1 >= p && $2 == 1' | wc -l)
    [ "$torch_on" -ge 1 ] || { echo "the torch was never set on during the trigger session (auto)"; return 1; }
    wait_for 5 eval '[ -n "$(gs_pulses $GS_FLASH "$press")" ]' || { echo "no good-read flash pulse on the flash line"; return 1; }
    local good_beep; good_beep=$(gs_pulses $GS_BUZZER "$press" | head -1)
    [ -n "$good_beep" ] || { echo "no good-read beep on the buzzer line"; return 1; }
    sleep 0.5
    [ "$(gs_heard)" = 1 ] || { echo "$(gs_heard) reads for one press"; return 1; }

    # 3. The socket's beep: the buzzer line goes 1, then 0.
    local reply t; reply=$(gs_command beep 2>&1)
    case $reply in *'"ok":true'*) ;; *) echo "beep command: $reply"; return 1 ;; esac
    gs_wait_value $GS_BUZZER 1 3 || { echo "the buzzer line never went 1 after the beep command"; return 1; }
    gs_wait_value $GS_BUZZER 0 8 || { echo "the buzzer line stayed 1 after the beep"; return 1; }
    local beep; beep=$(gs_pulses $GS_BUZZER "$press" | tail -1)
    awk -v b="$beep" 'BEGIN { exit !(b > 2.7 && b < 3.6) }' || { echo "the 3 s beep lasted ${beep} s (trace)"; return 1; }

    # 4. torch on: lit while the camera streams.
    reply=$(gs_command 'torch on' 2>&1)
    case $reply in *'"ok":true'*) ;; *) echo "torch on: $reply"; return 1 ;; esac
    gs_wait_value $GS_TORCH 1 5 || { echo "the torch line is not 1 after 'torch on'"; return 1; }

    # 5. SIGTERM in the middle of a beep, torch on: every output set to 0 before it is released.
    gs_command beep >/dev/null 2>&1
    gs_wait_value $GS_BUZZER 1 3 || { echo "the buzzer line never went 1 for the second beep"; return 1; }
    stop_daemon gpio; local rc=$?
    kill "$GS_LISTENER" 2>/dev/null; wait "$GS_LISTENER" 2>/dev/null; GS_LISTENER=
    [ "$rc" = 0 ] || { echo "the daemon exited with $rc on SIGTERM"; return 1; }
    local offset last
    for offset in $GS_TORCH $GS_BUZZER $GS_FLASH; do
        last=$(gs_last_set $offset)
        [ "$last" = 0 ] || { echo "${GS_NAMES[$offset]}: the daemon last set it to '$last' before releasing it"; return 1; }
        [ "$(gs_value $offset)" = 0 ] || { echo "${GS_NAMES[$offset]} reads $(gs_value $offset) after the exit"; return 1; }
    done
    [ "$(gs_used)" = 0 ] || { echo "$(gs_used) lines still held after the exit"; return 1; }
    # Where the SIGTERM came: the last beep's length (its 1 to the first 0 after it). The torch
    # was on (torch on) either way.
    local cut; cut=$(gs_sets $GS_BUZZER | awk '$2 == 1 { on = $1; off = "" } $2 == 0 && on != "" && off == "" { off = $1 } END { printf "%.1f", off - on }')
    if awk -v c="$cut" 'BEGIN { exit !(c < 2.9) }'; then cut="SIGTERM ${cut} s into a 3 s beep, torch on"; else cut="SIGTERM just after a 3 s beep, torch on"; fi
    echo "chip $GS_CHIP [ks-sim]: torch off at start and on in the session and with 'torch on'; button press via pull gave 1 read; good-read beep ${good_beep} s; beep command ${beep} s; ${cut}: every output set to 0, then released"
}

scenario_gpio_sim() {
    # guest.sh traces every command (set -x) with a PS4 that forks `cut` for its timestamp: under
    # TCG that fork costs more than a beep lasts and would make the polls miss it. The same trace,
    # timed by bash itself, for this scenario:
    local PS4='+ $EPOCHREALTIME '
    local out rc
    gs_checks >/tmp/ks-gpio-checks.out 2>&1; rc=$?
    out=$(tail -1 /tmp/ks-gpio-checks.out)
    # What a failed check may have left running.
    [ -n "${GS_LISTENER:-}" ] && { kill "$GS_LISTENER" 2>/dev/null; wait "$GS_LISTENER" 2>/dev/null; }
    [ -f /tmp/ks-gpio/pid ] && stop_daemon gpio
    gs_chip_down
    [ -n "${GS_SLEEPFD:-}" ] && { exec {GS_SLEEPFD}>&-; GS_SLEEPFD=; rm -f /tmp/ks-gpio-sleep; }
    if [ "$rc" = 0 ] && [ -n "$out" ]; then
        pass "gpio-sim ($out)"
    else
        fail gpio-sim "$out"
    fi
}
