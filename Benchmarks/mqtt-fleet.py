#!/usr/bin/env python3
"""A fleet on one broker: N daemons (release build) on replay cameras, each with its MQTT bridge,
one mosquitto broker and one mosquitto_sub subscriber to kiosk-scanner/+/scan, all on this machine.

Prints, for a run of --seconds:
  - reads per second at the subscriber, and reads lost: per device, every seq from 1 to the last
    the daemon made must arrive (the daemons' own counters, asked over their sockets at the end);
  - latency from the read to the subscriber, p50 and p99: the read's `time` (wall clock, just
    after its frame was decoded) to mosquitto_sub's receive time (%U), over the reads made after
    a 5 s warm-up (reads made before a bridge was connected wait in the daemon's hold queue);
  - CPU seconds and peak RSS (VmHWM) of the broker, and of the bridges beside their daemons
    (mean per process), as a ratio bridge / daemon: the daemon is the anchor.
The aim (issue 19): no read lost, p99 under 100 ms, a bridge cheaper than its daemon.
"""
import argparse, json, os, shutil, signal, socket, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def frames(directory, codes, blanks):
    """PGM frames: each code (a QR code by qrencode) on a 320x240 frame, then blank frames."""
    os.makedirs(directory, exist_ok=True)
    blank = b"P5\n320 240\n255\n" + bytes([220]) * (320 * 240)
    index = 0
    for code in codes:
        png = os.path.join(directory, f"code-{index}.png")
        subprocess.run(["qrencode", "-s", "3", "-m", "20", "-o", png, code], check=True)
        index += 1
        os.rename(png, os.path.join(directory, f"{index:04d}.png"))
        for _ in range(blanks):
            index += 1
            with open(os.path.join(directory, f"{index:04d}.pgm"), "wb") as f:
                f.write(blank)


def status(path):
    """The daemon's status reply over its socket."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(5)
        s.connect(path)
        s.sendall(b"unsubscribe\nstatus\n")
        data = b""
        while True:
            data += s.recv(65536)
            for line in data.split(b"\n"):
                if b'"command":"status"' in line:
                    return json.loads(line)["status"]


def percentile(values, fraction):
    values = sorted(values)
    return values[min(len(values) - 1, int(fraction * len(values)))] if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scanners", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--fps", type=int, default=10)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/kiosk-scanner"))
    parser.add_argument("--bridge", default=os.path.join(ROOT, ".build-release/release/kiosk-scanner-mqtt"))
    args = parser.parse_args()
    for path in (args.binary, args.bridge):
        if not os.access(path, os.X_OK):
            sys.exit(f"{path} missing: packaging/build-release kiosk-scanner and packaging/build-release kiosk-scanner-mqtt")
    work = tempfile.mkdtemp(prefix="kiosk-fleet-")
    replay = os.path.join(work, "frames")
    # Four codes a loop; at 10 fps with 9 blank frames after each, a read a second per scanner.
    frames(replay, [f"fleet code {n}" for n in range(4)], blanks=9)
    port = free_port()
    with open(os.path.join(work, "mosquitto.conf"), "w") as f:
        f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\nuser root\n")
    processes = []
    broker = subprocess.Popen(["mosquitto", "-c", os.path.join(work, "mosquitto.conf")], stderr=subprocess.DEVNULL)
    processes.append(broker)
    time.sleep(0.5)
    received = os.path.join(work, "received.txt")
    subscriber = subprocess.Popen(
        ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-t", "kiosk-scanner/+/scan", "-F", "%U %p"],
        stdout=open(received, "w"))
    processes.append(subscriber)
    daemons, bridges, sockets = [], [], []
    for n in range(args.scanners):
        directory = os.path.join(work, f"lane-{n}")
        os.makedirs(directory)
        sock = os.path.join(directory, "scan.sock")
        config = os.path.join(directory, "kiosk-scanner.conf")
        with open(config, "w") as f:
            f.write(
                f'camera:\n  device: "replay:{replay}"\n  fps: {args.fps}\nsocket:\n  path: {sock}\n'
                f"mqtt:\n  host: 127.0.0.1\n  port: {port}\n  device_id: lane-{n}\n  spool_dir: {directory}/spool\n")
        daemons.append(subprocess.Popen([args.binary, "run", "--config", config, "--log-level", "warning"], stderr=open(os.path.join(directory, "daemon.log"), "w")))
        bridges.append(subprocess.Popen([args.bridge, "--config", config, "--log-level", "warning"], stderr=open(os.path.join(directory, "bridge.log"), "w")))
        sockets.append(sock)
    processes += daemons + bridges
    # Latency counts reads made after this: the first seconds hold reads made before a bridge was up.
    warm = time.time() + 5
    try:
        time.sleep(args.seconds)
        # What each daemon made by now; every one of those must arrive (later ones may too).
        made = {}
        for n, sock in enumerate(sockets):
            counters = status(sock)["counters"]
            made[f"lane-{n}"] = counters["reads"]
        time.sleep(3)
        usage = {
            "broker": (cpu_seconds(broker.pid), peak_rss_mib(broker.pid)),
            "daemon": [(cpu_seconds(p.pid), peak_rss_mib(p.pid)) for p in daemons],
            "bridge": [(cpu_seconds(p.pid), peak_rss_mib(p.pid)) for p in bridges],
        }
    finally:
        for p in reversed(processes):
            p.send_signal(signal.SIGTERM)
        for p in processes:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
    seen, latencies, total = {}, [], 0
    first, last = None, None
    with open(received) as f:
        for line in f:
            stamp, _, payload = line.partition(" ")
            try:
                message = json.loads(payload)
            except json.JSONDecodeError:
                continue
            total += 1
            arrival = float(stamp)
            first = arrival if first is None else min(first, arrival)
            last = arrival if last is None else max(last, arrival)
            sent = time.mktime(time.strptime(message["time"][:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone + float("0." + message["time"][20:23])
            if sent >= warm:
                latencies.append((arrival - sent) * 1000)
            seen.setdefault(message["device"], set()).add(message["seq"])
    lost = 0
    for device, count in made.items():
        lost += len(set(range(1, count + 1)) - seen.get(device, set()))
    duplicates = total - sum(len(s) for s in seen.values())
    mean = lambda pairs, i: sum(p[i] for p in pairs) / len(pairs)
    daemon_cpu, daemon_rss = mean(usage["daemon"], 0), mean(usage["daemon"], 1)
    bridge_cpu, bridge_rss = mean(usage["bridge"], 0), mean(usage["bridge"], 1)
    print(f"fleet: {args.scanners} scanners (release daemons on replay cameras at {args.fps} fps) and their bridges, one mosquitto broker, one subscriber; {args.seconds:.0f} s")
    print(f"reads at the subscriber      {total} ({total / max(1e-9, (last or 0) - (first or 0)):.1f}/s), made by the daemons {sum(made.values())}, lost {lost}, duplicates {duplicates}")
    print(
        f"latency read -> subscriber   p50 {percentile(latencies, 0.5):.1f} ms, p99 {percentile(latencies, 0.99):.1f} ms, max {max(latencies):.1f} ms"
        f" over {len(latencies)} reads after a 5 s warm-up (aim: p99 < 100 ms)")
    print(f"broker                       CPU {usage['broker'][0]:.2f} s, peak RSS {usage['broker'][1]:.1f} MiB")
    print(f"{'figure (mean per process)':28s} {'bridge':>8s} {'daemon':>8s} {'bridge/daemon':>14s}")
    print(f"{'CPU s':28s} {bridge_cpu:8.2f} {daemon_cpu:8.2f} {bridge_cpu / daemon_cpu:14.3f}")
    print(f"{'peak RSS MiB':28s} {bridge_rss:8.1f} {daemon_rss:8.1f} {bridge_rss / daemon_rss:14.3f}")
    shutil.rmtree(work, ignore_errors=True)
    return 0 if lost == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
