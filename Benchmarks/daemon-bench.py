#!/usr/bin/env python3
"""The daemon beside zbarcam, on the same emulated camera, in one run.

Both read frames through libv4l2, so both run in front of the same emulator
(Tests/Emulators/v4l2, preloaded before libv4l2). Printed as ours / zbarcam:
  - CPU seconds per minute on an empty, slightly noisy scene at 30 fps;
  - latency from the first frame carrying a code to its line (socket for us,
    stdout for zbarcam), p50 and p99 over many appearances;
  - RSS at the end of the idle phase.
zbarcam is Debian 12's, run as `zbarcam --nodisplay --infmt=GREY` (without
--infmt it segfaults in zbar_negotiate_format).
"""
import argparse, os, select, signal, socket, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def plug(node, **settings):
    with open(node + ".tmp", "w") as f:
        for key, value in settings.items():
            f.write(f"{key}={value}\n")
    os.rename(node + ".tmp", node)


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def frame_times(log_path, image):
    """Monotonic ns of every frame the emulator produced showing `image`."""
    times = []
    with open(log_path) as log:
        for line in log:
            if line.startswith("frame ") and f"image={image}" in line:
                fields = dict(part.split("=", 1) for part in line.split()[1:] if "=" in part)
                times.append(int(fields["t"]))
    return times


class Reader:
    """One scanner under test: ours (socket, plain format) or zbarcam (stdout)."""

    def __init__(self, name, work, node, env):
        self.name, self.work, self.node, self.env = name, work, node, env
        self.buffer = b""

    def start(self):
        if self.name == "ours":
            sock_path = os.path.join(self.work, "scan.sock")
            conf = os.path.join(self.work, "bench.conf")
            with open(conf, "w") as f:
                f.write(f'camera:\n  device: "{self.node}"\nsocket:\n  format: plain\n  path: {sock_path}\n')
            self.process = subprocess.Popen(
                [self.args.binary, "run", "--config", conf, "--log-level", "warning"],
                env=self.env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.work, "ours.log"), "w"))
            deadline = time.time() + 20
            while True:
                try:
                    self.stream = socket.socket(socket.AF_UNIX)
                    self.stream.connect(sock_path)
                    break
                except OSError:
                    if time.time() > deadline:
                        raise
                    time.sleep(0.05)
            self.fd = self.stream.fileno()
        else:
            self.process = subprocess.Popen(
                ["stdbuf", "-oL", "zbarcam", "--nodisplay", "--infmt=GREY", "-q", "--raw", self.node],
                env=self.env, stdout=subprocess.PIPE, stderr=open(os.path.join(self.work, "zbarcam.log"), "w"))
            self.fd = self.process.stdout.fileno()

    def line(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
                return None, None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return None, None
            self.buffer += chunk
        arrived = time.monotonic_ns()
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode(errors="replace"), arrived

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


def measure(name, args, work, frames):
    node = os.path.join(work, "video0")
    log = os.path.join(work, f"emu-{name}.log")
    env = dict(os.environ, LD_PRELOAD=args.emulator, KSEMU_DEVICE=node, KSEMU_LOG=log)
    plug(node, background=200, noise=3, fps=30, formats="GREY", sizes=f"{args.width}x{args.height}")
    reader = Reader(name, work, node, env)
    reader.args = args
    reader.start()
    time.sleep(2)  # both open the camera and settle before the clock starts
    start_cpu, start = cpu_seconds(reader.process.pid), time.monotonic()
    time.sleep(args.idle_seconds)
    idle = (cpu_seconds(reader.process.pid) - start_cpu) / (time.monotonic() - start) * 60
    rss = rss_kib(reader.process.pid)

    latencies = []
    missed = 0
    for index in range(args.appearances):
        image = frames[index % len(frames)]
        plug(node, background=200, noise=3, fps=30, formats="GREY", sizes=f"{args.width}x{args.height}", frame=image)
        expected = os.path.basename(image)[:-4]
        line, arrived = None, None
        while True:
            line, arrived = reader.line(3)
            if line is None or line.endswith(expected):
                break
        if line is None:
            missed += 1
        else:
            shown = frame_times(log, image)
            if shown:
                latencies.append((arrived - shown[0]) / 1e6)
        # Blank long enough for the code to count as gone (our absence time is 0.5 s).
        plug(node, background=200, noise=3, fps=30, formats="GREY", sizes=f"{args.width}x{args.height}")
        time.sleep(0.6)
        open(log, "w").close()  # keep the log short: only this appearance's frames matter
    reader.stop()
    return idle, rss, latencies, missed


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/kiosk-scanner"))
    parser.add_argument("--emulator", default=os.path.join(ROOT, ".build/emulators/libv4l2emu.so"))
    parser.add_argument("--idle-seconds", type=float, default=60)
    parser.add_argument("--appearances", type=int, default=200)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="kiosk-bench-")
    frames = []
    for index in range(20):
        text = f"bench-{index:02d}"
        png = os.path.join(work, f"{text}.png")
        subprocess.run(["qrencode", "-s", "4", "-m", "4", "-o", png, text], check=True)
        frames.append(png)
    print(f"daemon vs zbarcam, {args.width}x{args.height} GREY at 30 fps, emulated camera; "
          f"idle {args.idle_seconds:.0f} s, {args.appearances} appearances each")
    results = {}
    for name in ("ours", "zbarcam"):
        results[name] = measure(name, args, work, frames)
    ours, zbar = results["ours"], results["zbarcam"]
    print(f"{'figure':34} {'ours':>10} {'zbarcam':>10} {'ours/zbarcam':>13}")
    print(f"{'idle CPU s/min (empty, noisy)':34} {ours[0]:10.2f} {zbar[0]:10.2f} {ours[0] / zbar[0] if zbar[0] else float('nan'):13.3f}")
    for label, fraction in (("latency p50 ms", 0.5), ("latency p99 ms", 0.99)):
        a, b = percentile(ours[2], fraction), percentile(zbar[2], fraction)
        print(f"{label:34} {a:10.1f} {b:10.1f} {a / b if b else float('nan'):13.3f}")
    print(f"{'RSS MiB':34} {ours[1] / 1024:10.1f} {zbar[1] / 1024:10.1f} {ours[1] / zbar[1] if zbar[1] else float('nan'):13.3f}")
    print(f"{'appearances missed':34} {ours[3]:10d} {zbar[3]:10d}")


if __name__ == "__main__":
    main()
