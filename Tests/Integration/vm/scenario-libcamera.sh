# Sourced by guest.sh after scenarios.sh: the daemon's libcamera source (camera.device:
# libcamera:ID) on the UVC gadget camera (uvc_up in scenarios.sh), through libcamera's own
# uvcvideo pipeline handler in Debian's libcamera 0.0.3 and the real libkiosk-scanner-libcamera.so
# beside the daemon. fwnode.so gives dummy_hcd the firmware node libcamera names cameras after
# (see fwnode.c); it is preloaded into everything that runs libcamera here.

udev_up() { # libcamera lists only devices udev has initialised, and hears of unplugs from udev
    pgrep -x systemd-udevd >/dev/null && return 0
    /lib/systemd/systemd-udevd --daemon >/tmp/udevd.log 2>&1 || return 1
    udevadm trigger --action=add --subsystem-match=media --subsystem-match=video4linux && udevadm settle -t 30
}
udev_down() { udevadm control --exit 2>/dev/null; true; }

libcamera_id() { # the first camera's id, as `cam -l` prints it: 1: External camera 'NAME' (ID)
    LD_PRELOAD="$KS_BIN/fwnode.so" cam -l 2>/dev/null | sed -n "s/^[0-9]*: .* (\(.*\))\$/\1/p" | head -1 | grep .
}

lc_status() { "$KS_DAEMON" status --json --timeout 30 --socket /tmp/ks-libcamera/scan.sock 2>/dev/null; }

scenario_libcamera_capture() {
    uvc_up wedge || { fail libcamera-capture "the UVC gadget camera did not come up: $(tail -3 /tmp/uvcfeeder.log 2>/dev/null | tr '\n' ' ')"; return; }
    udev_up || { fail libcamera-capture "systemd-udevd did not start: $(tail -2 /tmp/udevd.log | tr '\n' ' ')"; return; }
    local id
    wait_for 30 libcamera_id >/dev/null
    id=$(libcamera_id)
    [ -n "$id" ] || { fail libcamera-capture "cam -l lists no camera: $(LD_PRELOAD="$KS_BIN/fwnode.so" cam -l 2>&1 | tail -2 | tr '\n' ' ')"; return; }
    local env=(LD_PRELOAD="$KS_BIN/fwnode.so")
    [ "$KS_BREAK_STREAMON" = 1 ] && env=(LD_PRELOAD="$KS_BIN/fwnode.so:$KS_BIN/streamon-noop.so")
    start_daemon libcamera "camera: { device: \"libcamera:$id\", width: 640, height: 480 }
viewport: { square: 0.9 }
scanner: { stall_timeout: 3 }" "${env[@]}" || { fail libcamera-capture "the daemon did not open its socket"; return; }
    "$KS_DAEMON" listen --socket /tmp/ks-libcamera/scan.sock >/tmp/ks-libcamera/listen.out 2>/dev/null &
    if wait_for 90 uvc_heard libcamera KS-Wedge-42; then
        local format
        format=$(lc_status | grep -o '"format":"[^"]*"' | head -1 | cut -d'"' -f4)
        pass "libcamera-capture (camera.device libcamera:$id: libcamera $(grep -o 'libcamera v[0-9.]*\|libcamera [0-9][0-9.+a-z-]*' /run/vmout/libcamera.log | head -1 | cut -d' ' -f2)'s uvcvideo pipeline on the UVC gadget camera, $format, KS-Wedge-42 read)"
    else
        fail libcamera-capture "KS-Wedge-42 never came out (camera $(camera_state libcamera); $(grep -v ' debug ' /run/vmout/libcamera.log | tail -3 | cut -c1-240 | tr '\n' ' '))"
    fi
}

scenario_libcamera_replug() { # real USB disconnects under libcamera: cameraRemoved, then the camera back
    [ -S /tmp/ks-libcamera/scan.sock ] || { fail libcamera-replug "no daemon (libcamera-capture did not run)"; return; }
    local cycles=${KS_LIBCAMERA_CYCLES:-5}
    uvc_replugs libcamera-replug libcamera "$cycles" || return
    local reconnects removed
    reconnects=$(lc_status | grep -o '"reconnects":[0-9]*' | cut -d: -f2)
    removed=$(grep "] camera interrupted: libcamera" /run/vmout/libcamera.log | grep -c "was disconnected")
    # Each unplug is heard through udev (cameraRemoved: "was disconnected") or, when the requests
    # come back cancelled first, from them ("stopped taking requests").
    pass "libcamera-replug-$cycles ($cycles USB disconnects under libcamera, every new code delivered, $removed of them heard as libcamera's cameraRemoved, $reconnects reconnects counted)"
    stop_daemon libcamera
    uvc_down libcamera
    udev_down
}

# ---- Benchmark (not in the default list): libv4l2 against libcamera on the same UVC camera ------

# The same camera, the same scene, read once through each source: uvcfeeder shows the code for
# 1 s and then a blank for 1 s (--blink), stamping the wall clock as it queues each first frame
# with the code. For each source: CPU time per frame the daemon took (utime + stime over 30 s,
# frames = decoded + gated + skipped), and the time from that stamp to the read's own time (after
# the USB transfer, the driver, the source, the gate and the decode), median and p90.
bench_source() { # bench_source NAME DEVICE [env...]: prints "CPU_MS_PER_FRAME LATENCY_P50 LATENCY_P90 READS"
    local name=$1 device=$2; shift 2
    start_daemon "$name" "camera: { device: \"$device\", width: 640, height: 480, fps: 30 }
viewport: { square: 0.9 }" "$@" || return 1
    "$KS_DAEMON" listen --json --socket "/tmp/ks-$name/scan.sock" >"/tmp/ks-$name/reads" 2>/dev/null &
    local listener=$!
    wait_for 90 grep -q '"text":"KS-Wedge-42"' "/tmp/ks-$name/reads" || { kill $listener; stop_daemon "$name"; return 1; }
    local pid ticks; pid=$(cat "/tmp/ks-$name/pid"); ticks=$(getconf CLK_TCK)
    bench_frames() { "$KS_DAEMON" status --json --timeout 30 --socket "/tmp/ks-$name/scan.sock" \
        | grep -o '"frames_\(decoded\|gated\|skipped\)":[0-9]*' | cut -d: -f2 | paste -sd+ | bc; }
    bench_cpu() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
    local f0 c0 t0 f1 c1
    f0=$(bench_frames); c0=$(bench_cpu); t0=$EPOCHREALTIME
    sleep 30
    f1=$(bench_frames); c1=$(bench_cpu)
    kill $listener; stop_daemon "$name"
    # Each read's time, after the stamp of the code frame before it (reads before t0 left out).
    grep -o '"time":"[^"]*"' "/tmp/ks-$name/reads" | cut -d'"' -f4 | while read -r t; do date -d "$t" +%s.%N; done \
        | awk -v t0="$t0" -v stamps=/tmp/uvcfeeder.stamps '
            BEGIN { while ((getline s < stamps) > 0) on[++n] = s }
            $1 >= t0 { best = 0; for (i = 1; i <= n; i++) if (on[i] <= $1) best = on[i]; if (best) l[++m] = ($1 - best) * 1000 }
            END { if (m == 0) exit 1
                  for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (l[j] < l[i]) { t = l[i]; l[i] = l[j]; l[j] = t }
                  p90 = int(m * 0.9 + 0.5); if (p90 < 1) p90 = 1
                  printf "%s %.1f %.1f %d\n", "'"$(echo "scale=3; ($c1 - $c0) * 1000 / $ticks / ($f1 - $f0)" | bc)"'", l[int((m + 1) / 2)], l[p90], m }'
}

scenario_camera_bench() {
    uvc_up wedge "" "" --blink 1000 --stamps /tmp/uvcfeeder.stamps \
        || { fail camera-bench "the UVC gadget camera did not come up"; return; }
    udev_up || { fail camera-bench "systemd-udevd did not start"; return; }
    local id node v4l2 libcamera
    wait_for 30 libcamera_id >/dev/null; id=$(libcamera_id); node=$(uvc_node)
    v4l2=$(bench_source bench-v4l2 "$node") || { fail camera-bench "libv4l2: no read ($(uvc_tail bench-v4l2))"; return; }
    libcamera=$(bench_source bench-libcamera "libcamera:$id" LD_PRELOAD="$KS_BIN/fwnode.so") \
        || { fail camera-bench "libcamera: no read ($(uvc_tail bench-libcamera))"; return; }
    uvc_down camera-bench
    udev_down
    set -- $v4l2 $libcamera
    pass "camera-bench (YUYV 640x480 on the UVC gadget camera, 30 s each: CPU per frame libv4l2 $1 ms, libcamera $5 ms, ratio $(echo "scale=2; $5 / $1" | bc); frame to read p50/p90 libv4l2 $2/$3 ms over $4 reads, libcamera $6/$7 ms over $8 reads, p50 ratio $(echo "scale=2; $6 / $2" | bc))"
}
