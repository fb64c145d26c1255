#!/usr/bin/env python3
"""What a console viewer costs the daemon: the release daemon on the emulated camera, once with
no viewer and once with one viewer watching at the console's default rate (`watch 4 640`, what
kiosk-scanner-web sends the daemon for each browser), in one run.

The viewer is a client of the daemon's socket that reads every view as it comes, as the console
does (the browser, on the installer's laptop, costs the scanner nothing). For each run, the part
`idle` of daemon-bench.py: CPU seconds per minute on an empty, noisy scene at 30 fps (the viewer
gets views of it all the while), then latency from the first frame carrying a code to its line on
the POS's connection, p50 and p99 over the appearances. The anchor is the daemon without a viewer;
zbarcam, in the same run, with `--zbarcam`.
"""
import argparse, importlib.util, os, socket, sys, tempfile, threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("daemon_bench", os.path.join(ROOT, "Benchmarks", "daemon-bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


class Viewer:
    """One console viewer on the daemon's socket: reads every line as it comes, counts views."""

    def __init__(self, path, fps, width):
        self.stream = socket.socket(socket.AF_UNIX)
        self.stream.connect(path)
        self.stream.sendall(f"watch {fps} {width}\n".encode())
        self.views, self.bytes, self.refused = 0, 0, None
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        buffer = b""
        while True:
            try:
                chunk = self.stream.recv(1 << 20)
            except OSError:
                return
            if not chunk:
                return
            self.bytes += len(chunk)
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if line.startswith(b'{"codes"') or b'"type":"view"' in line:
                    self.views += 1
                elif b'"ok":false' in line or line.startswith(b"error"):
                    self.refused = line.decode(errors="replace")

    def close(self):
        self.stream.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/kiosk-scanner"))
    parser.add_argument("--emulator", default=os.path.join(ROOT, ".build/emulators/libv4l2emu.so"))
    parser.add_argument("--idle-seconds", type=float, default=60)
    parser.add_argument("--appearances", type=int, default=200)
    parser.add_argument("--fps", type=int, default=4, help="the viewer's frame rate (default 4, the console's)")
    parser.add_argument("--view-width", type=int, default=640, help="the viewer's image width (default 640, the console's)")
    parser.add_argument("--zbarcam", action="store_true", help="run zbarcam too, as in daemon-bench")
    args = parser.parse_args()
    # What daemon-bench's measure() reads of its arguments.
    args.extra_config, args.ack, args.drop_caches, args.width, args.height = "", False, False, 640, 480

    work = tempfile.mkdtemp(prefix="kiosk-console-bench-")
    frames = bench.qr_codes(work, [f"bench-{index:02d}" for index in range(20)])
    viewers = {}
    original_start = bench.Reader.start

    def start(reader):
        original_start(reader)
        if reader.name == "ours" and reader.run == "viewer":
            viewers["viewer"] = Viewer(os.path.join(reader.work, "scan.sock"), args.fps, args.view_width)

    bench.Reader.start = start
    print(f"console viewer: the daemon with none and with one (watch {args.fps} {args.view_width}), 640x480 GREY at 30 fps, "
          f"emulated camera; idle {args.idle_seconds:.0f} s, {args.appearances} appearances each", flush=True)
    results = {}
    for run in ["none", "viewer"] + (["zbarcam"] if args.zbarcam else []):
        bench.Reader.run = run
        results[run] = bench.measure("zbarcam" if run == "zbarcam" else "ours", args, work, frames)
        if run == "viewer":
            viewer = viewers.pop("viewer")
            if viewer.refused:
                sys.exit(f"the daemon refused the watch: {viewer.refused}")
            print(f"  viewer: {viewer.views} views, {viewer.bytes / 1e6:.1f} MB read", flush=True)
            viewer.close()

    print(f"{'figure':32} {'viewer':>10} {'no viewer':>10} {'viewer/none':>12}" + (f" {'zbarcam':>10}" if args.zbarcam else ""))

    def row(label, index, digits=2, fraction=None):
        def value(run):
            result = results[run][index]
            return bench.percentile(result, fraction) if fraction is not None else result
        a, b = value("viewer"), value("none")
        extra = f" {value('zbarcam'):10.{digits}f}" if args.zbarcam else ""
        print(f"{label:32} {a:10.{digits}f} {b:10.{digits}f} {bench.ratio(a, b):12.3f}" + extra)

    row("idle CPU s/min", 0)
    row("latency p50 ms", 2, 1, 0.5)
    row("latency p99 ms", 2, 1, 0.99)
    print(f"{'peak RSS (VmHWM) MiB':32} {results['viewer'][4] / 1024:10.1f} {results['none'][4] / 1024:10.1f} "
          f"{bench.ratio(results['viewer'][4], results['none'][4]):12.3f}")
    print(f"{'appearances missed':32} {results['viewer'][3]:>10} {results['none'][3]:>10}")


if __name__ == "__main__":
    main()
