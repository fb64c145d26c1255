#!/usr/bin/env python3
"""Codes the change gate must never gate away, read by the daemon beside zbarcam on the same
emulated camera (the machinery of daemon-bench.py: Reader, Ticks, plug).

Three cases, each N codes (default 200) at each frame rate (15, 30) and module size (3, 4, 8 px):
  - swap:   a QR code replaced in place by another of the same version and size, on every tick;
  - slide:  a code sliding into the viewport from its left edge, 40 px a tick, then held 2 ticks,
            then 1 blank tick;
  - corner: a code appearing in one corner of the viewport (the four in turn), 2 ticks, then 1
            blank tick.
Every frame is a full 640x480 PGM drawn here, on background 200 with the emulator's noise of ±3.
The driver writes the next step into the node file as soon as a camera tick carried the current
one (a `frame` line naming it, or a `drop` line: the camera lost that frame), so no step is
skipped. A code counts as read when its text arrives (our socket in plain format, zbarcam's
stdout). Prints, per case, rate and module size, the codes missed by each reader, out of those a
frame carried to it (a code whose every frame the camera dropped, with no buffer queued, reached
nobody and is counted apart).
"""
import argparse, importlib.util, os, select, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("daemon_bench", os.path.join(HERE, "daemon-bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

WIDTH, HEIGHT, BACKGROUND = 640, 480, 200
# The daemon's default viewport: a centred square, 3/4 of the short side.
SIDE = HEIGHT * 3 // 4
VIEWPORT = ((WIDTH - SIDE) // 2, (HEIGHT - SIDE) // 2, SIDE, SIDE)


def modules(text):
    """The QR code of `text` as rows of booleans (dark), with a quiet zone of 4 modules (qrencode)."""
    art = subprocess.run(["qrencode", "-t", "ASCII", "-m", "4", text], check=True, capture_output=True, text=True).stdout
    return [[line[index] == "#" for index in range(0, len(line), 2)] for line in art.splitlines() if line]


def draw(code, module, at):
    """A P5 PGM of the frame: background, and the code at `at` (x, y of its top-left), clipped."""
    pixels = bytearray([BACKGROUND]) * (WIDTH * HEIGHT)
    if code is not None:
        x0, y0 = at
        rows = [bytes(0 if dark else 255 for dark in row for _ in range(module)) for row in code]
        for index, row in enumerate(rows):
            left, right = max(0, x0), min(WIDTH, x0 + len(row))
            if right <= left:
                continue
            for dy in range(module):
                y = y0 + index * module + dy
                if 0 <= y < HEIGHT:
                    pixels[y * WIDTH + left:y * WIDTH + right] = row[left - x0:right - x0]
    return b"P5\n%d %d\n255\n" % (WIDTH, HEIGHT) + bytes(pixels)


def steps(case, code, module):
    """The frames showing one code: a list of top-left points (None: a blank frame)."""
    size = len(code) * module
    vx, vy, side, _ = VIEWPORT
    centre = (vx + (side - size) // 2, vy + (side - size) // 2)
    if case == "swap":
        return [centre]
    if case == "slide":
        xs = list(range(vx - size + 40, centre[0], 40)) + [centre[0]]
        return [(x, centre[1]) for x in xs] + [centre, centre, None]
    corners = [(vx + 2, vy + 2), (vx + side - size - 2, vy + 2), (vx + side - size - 2, vy + side - size - 2), (vx + 2, vy + side - size - 2)]
    return [corners[hash(tuple(map(tuple, code))) % 4]] * 2 + [None]


def run(reader, ticks, node, case, fps, module, count, work):
    """Shows `count` codes of `case`; returns the texts not delivered."""
    texts = [f"{case}{fps:02d}m{module}-{index:03d}" for index in range(count)]
    script = []  # (path stem, text or None)
    for text in texts:
        code = modules(text)
        for index, at in enumerate(steps(case, code, module)):
            script.append((code if at is not None else None, at, text))
    scene = dict(background=BACKGROUND, noise=3, formats="GREY", sizes=f"{WIDTH}x{HEIGHT}", fps=fps)
    received = set()
    bench.plug(node, **scene)
    bench.pump(reader, ticks, 1.5, received)
    received.clear()
    ticks.lines()
    written = 0

    def show(step):
        nonlocal written
        code, at, text = script[step]
        path = os.path.join(work, f"step-{step % 4}.pgm")
        with open(path + ".tmp", "wb") as f:
            f.write(draw(code, module, at))
        os.rename(path + ".tmp", path)
        written += 1
        # The pad changes the node file's size from one write to the next, so the emulator re-reads it.
        bench.plug(node, **scene, frame=path, pad="x" * (1 + written % 4), step=step)
        return path, time.monotonic_ns()

    shown = set()  # codes a frame carried to the reader (a dropped frame reached nobody)
    step, (path, stamp) = 0, show(0)
    behind = 0
    while step < len(script):
        if not select.select([ticks.fd, reader.fd], [], [], 3)[0]:
            raise RuntimeError(f"{reader.name}: no camera tick for 3 s at {fps} fps")
        received.update(reader.drain())
        for event, fields in ticks.lines():
            if step >= len(script):
                break
            # The image path repeats every 4 steps; the tick's time tells this step's from an older one.
            carried = int(fields["t"]) > stamp and (event == "drop" or fields.get("image") == path)
            if not carried:
                behind += 1
                if behind >= 3:
                    path, stamp = show(step)
                    behind = 0
                continue
            behind = 0
            if event == "frame" and script[step][0] is not None:
                shown.add(script[step][2])
            step += 1
            if step < len(script):
                path, stamp = show(step)
    bench.plug(node, **scene)
    bench.pump(reader, ticks, 2, received)
    return [text for text in texts if text in shown and text not in received], len(set(texts) - shown)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(bench.ROOT, ".build-release/release/kiosk-scanner"))
    parser.add_argument("--emulator", default=os.path.join(bench.ROOT, ".build/emulators/libv4l2emu.so"))
    parser.add_argument("--codes", type=int, default=200, help="codes per case, rate and module size (default 200)")
    parser.add_argument("--cases", default="swap,slide,corner")
    parser.add_argument("--rates", default="15,30")
    parser.add_argument("--modules", default="3,4,8")
    parser.add_argument("--readers", default="ours,zbarcam")
    parser.add_argument("--extra-config", default="")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="kiosk-gate-bench-")
    print(f"gate cases: {args.codes} codes per case, rate and module size, {WIDTH}x{HEIGHT} GREY, noise ±3; missed codes per reader", flush=True)
    print(f"{'case':8} {'fps':>4} {'px':>3} " + " ".join(f"{name + ' missed':>15}" for name in args.readers.split(",")), flush=True)
    totals = {}
    for case in args.cases.split(","):
        for fps in map(int, args.rates.split(",")):
            for module in map(int, args.modules.split(",")):
                row = []
                for name in args.readers.split(","):
                    node = os.path.join(work, "video0")
                    fifo = os.path.join(work, f"ticks-{name}")
                    ticks = bench.Ticks(fifo)
                    env = dict(os.environ, LD_PRELOAD=args.emulator, KSEMU_DEVICE=node, KSEMU_LOG=fifo)
                    bench.plug(node, background=BACKGROUND, noise=3, formats="GREY", sizes=f"{WIDTH}x{HEIGHT}", fps=fps)
                    reader = bench.Reader(name, work, node, env)
                    reader.args = args
                    reader.start()
                    try:
                        bench.pump(reader, ticks, 2, set())
                        missed, unseen = run(reader, ticks, node, case, fps, module, args.codes, work)
                    finally:
                        reader.stop()
                        ticks.close()
                        os.unlink(fifo)
                    totals[name] = totals.get(name, 0) + len(missed)
                    row.append(f"{len(missed):>3}/{args.codes - unseen}" + (f" ({unseen} dropped)" if unseen else "") + (f" e.g. {missed[0]}" if missed else ""))
                print(f"{case:8} {fps:4d} {module:3d} " + " ".join(f"{cell:>15}" for cell in row), flush=True)
    print("total missed: " + ", ".join(f"{name} {count}" for name, count in totals.items()), flush=True)


if __name__ == "__main__":
    main()
