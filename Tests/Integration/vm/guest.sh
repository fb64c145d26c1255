#!/bin/bash
# PID 1 in the guest after switch_root: the host's root is / (read-only 9p), /tmp /run /var/tmp
# /root are tmpfs, /run/vmout is the host's writable out directory. Runs the scenarios that
# /run/vmout/params.sh names, writes one result line each to the console and to
# /run/vmout/results, then powers the guest off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
OUT=/run/vmout
set -a; . "$OUT/params.sh"; set +a
VMDIR=$KS_VMDIR
exec </dev/null >/dev/console 2>&1
echo "vm-guest: up after $(cut -d' ' -f1 /proc/uptime)s, kernel $(uname -r)"

finish() {
    sync
    echo "vm-guest: done after $(cut -d' ' -f1 /proc/uptime)s"
    echo o >/proc/sysrq-trigger
    sleep 30
}
trap finish EXIT

if [ -n "${KS_GUEST_CMD:-}" ]; then
    # Debugging: run one command instead of the scenarios (run --guest-cmd CMD).
    bash -c "$KS_GUEST_CMD" >"$OUT/guest-cmd.log" 2>&1
    echo "vm-guest: guest-cmd exit $?"
    exit 0
fi

# Every command the scenarios run, with its time, for when one hangs: .build/vm/out/trace.
exec 3>>"$OUT/trace"
BASH_XTRACEFD=3
# (The time from bash itself: a fork per traced command costs half a second under TCG.)
PS4='+ $EPOCHREALTIME '
set -x
. "$VMDIR/scenarios.sh"
. "$VMDIR/scenario-gpio.sh"
. "$VMDIR/scenario-libcamera.sh"
run_scenarios $KS_SCENARIOS
