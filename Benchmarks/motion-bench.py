#!/usr/bin/env python3
"""Codes swiped past the camera: how fast a code may cross the viewport and still be read, by the
daemon beside zbarcam, each in front of its own emulated camera (daemon-bench.py's Reader, Ticks,
plug), and by an oracle that looks at every frame (issue #37).

What it measures: EAN-13, UPC-A, Code 128, QR and Data Matrix, each at two module sizes, cross the
viewport at 0.25 to 8 viewport widths a second (VW/s; 1 VW = 360 px, the side of the daemon's
default viewport, a centred square 3/4 of the short side), at 30 and 60 fps, 20 passes per speed.
Per speed it prints the passes each reader read, its false reads, the passes the oracle read that
it missed ("lost"), duplicates, and the frames its camera dropped. Then the motion tolerance: the
fastest speed at which at least 19 of 20 passes are read (95 %, rounded up, of `--passes`), every
slower speed too, per reader in VW/s and cm/s, ours/zbarcam as a ratio; and the same against the
camera: at most 1 pass lost of those the oracle read. Then every false read verbatim with its
pass, the duplicates, and for each pass a live reader missed though the oracle read it, the frames
the oracle read (where the code was) and whether that reader's camera delivered them.

The passes: pass k moves left to right, right to left or diagonally (corner to opposite corner of
the viewport, the four diagonals in turn) as k mod 3 says, and is turned 360/passes degrees more
than the pass before (18 degrees for 20: 0-342). The code's centre travels on a straight line
through the viewport's centre, at constant speed along the line, from where its label lies fully
outside the entry edge (or corner) to fully outside the exit edge; the first frame's phase is
random. Each pass has its own text (random digits with their check digit for EAN-13 and UPC-A,
10-12 capitals and digits for Code 128, `m30-qr-s1-307` for QR and Data Matrix: rate, size,
speed, pass), so a line names its pass whenever it arrives and the daemon's same-code suppression
never merges two passes.

The frames are 640x480 GREY, drawn here with numpy: the counter at 150 DN, the white label at 210
(the code's quiet zone: 10 modules each side of a linear code, whose bars are 0.35 of their
width tall, with 3 modules above and below; 4 modules around QR, 2 around Data Matrix), print at
40. A frame integrates the code over the exposure (`--exposure-ms`, 8: motion blur follows the
speed) in steps of 1/4 px along the motion (0.35 px diagonally) and over 4x4 samples per pixel
(anti-aliasing, fractional modules; positions rounded to 1/4 px), drawn on the code's patch only;
then a 3x3 binomial lens blur, then a real sensor's noise: Gaussian of variance 1.5^2 + 0.034 x
signal (read noise and shot noise: sigma 3 DN at 200), rounded and clipped. A shorter exposure
in the same light needs gain for the same image (`--gain G`: read noise G times, shot noise's
variance G times); with a torch or lamp giving G times the light, it needs none (`--gain 1`).
The emulator plays a pass from its node file (`sequence=`, `frames=`: frame i on the i-th
camera tick, a dropped tick advancing too, as a sensor's clock does), with its own noise off;
between passes it shows the counter for `--grace` s (0.5) once both cameras have shown the whole
pass, for late reads and so that tracks end. One extra process renders the passes ahead of the
camera, niced.

Module sizes: hardware.md mounts the camera 15-30 cm above the counter. Taking a typical UVC
webcam, 60 degrees horizontal field, at 20 cm, a frame is 23.1 cm across (0.36 mm a pixel) and
the viewport 13.0 cm, so 1 VW/s = 13 cm/s. A retail EAN-13 at nominal size (0.33 mm modules) is
then 0.9 px a module, which nothing here reads (1.5 px reads only now and then, even still). The
sizes are the ones that do read when still: linear codes 1.8 px (0.65 mm at 20 cm: an EAN-13
printed at twice nominal size, or a nominal one held 10 cm from the lens, hardware.md's nearest)
and 2.3 px (the issue's first measurement; 0.83 mm: a shipping label's Code 128); QR and Data
Matrix 2.5 px (0.9 mm: a small printed QR code, 19 mm across for version 1) and 4 px (1.44 mm: a
phone screen's or a coupon's code, the issue's QR). `--modules` sets others.

The readers:
  - ours: the release daemon with the default config (the device and a plain socket; plus
    `--extra-config`): its default viewport, so a code whose centre is outside it is not read.
  - zbarcam: Debian 12's, `zbarcam --nodisplay --infmt=GREY -q --raw`: the whole frame, no Data
    Matrix (ZBar has none).
    Both run at once, each on its own node, playing the same pass (both node files written
    together): half the wall time. On this 2-core machine they compete with each other, the
    renderer and the oracle (both niced); a camera drops a frame when its reader has no buffer
    queued, and those drops are counted per reader and shown, not hidden.
  - oracle: `kiosk-scanner scan --viewport full --engine both --preprocessing
    binarizer,deblur,inverted,second-scale --symbologies <the code's>` (ZBar and zxing-cpp with
    every pass, whole frame; UPC-A with ean13 too, since ZBar finds no UPC-A without it; the
    libraries' own second looks, not ours that read what they cannot: the turned viewport, and the
    deblurring, which a still image never gets) on the pass's frames, niced, while the next pass
    plays: in batches of 8, 16, 32... frames from the one where the code is nearest the viewport's
    centre outwards, stopping at the first batch with the right text, or through every frame when
    ours missed the pass (zbarcam's misses alone, the linear codes turned and every Data Matrix,
    need only whether the oracle read the pass: scanning all their frames took most of its time).
    It may fall up to 12,000 frames behind the cameras, so that it catches up while slow passes
    play.
    A pass it reads on no frame is beyond this camera; any other text it prints is its false read.
    It is no strict upper bound: zxing-cpp's reads of a marginal code depend on the image's
    bounds, and the daemon decodes its viewport only, so ours may read a pass the oracle read on
    no frame (listed at the end).
  - every (not by default): ours in process on every frame of the pass, `decode-bench stream`
    (the read pipeline with the daemon's default config, on a frame clock at the pass's rate,
    the counter shown for `--grace` s before and after), niced, beside the oracle. No frame is
    dropped, so the same passes give the same reads: a pass `ours` lost that `every` read was lost
    to the frames its camera dropped while the 2 cores were shared, not to the decoding. Needs
    `packaging/build-release decode-bench`. Without `ours` and `zbarcam` no camera plays and the
    run takes the time of the rendering and the offline readers (`--readers every,oracle`).

A read counts when the pass's exact text arrives (our socket line; zbarcam's stdout line; UPC-A
also as the 13 digits of an EAN-13 with a leading 0, as ZBar gives it by default). A false read is
any line that is no pass's text; a pass's text arriving twice is a duplicate. The emulator waits a
full period after each frame, so its ticks come 5-10 % slower than the nominal rate (about 28 at
30 fps, 55 at 60; printed per block): px/frame is exact, VW/s nominal.

Wall time on this 2-core machine: about 2.5 hours at the defaults when the renderer blurred every
frame anew (30 fps about 1 hour, 6 minutes per code and size; 60 fps about 1.5 hours, where the
renderer drew twice the frames and was the bottleneck for the linear codes). It now blurs each
sub-pixel phase of a pass once (the frames are byte for byte the same, 1.2 to 4.3 times faster to
make, most for linear codes and fast passes). The passes play in real time: the default run's
30 fps block took 106.6 minutes (2026-11-27, 10 to 11 per code and size), so the whole run takes
about 3.5 hours, longer than this machine's sessions: `--state FILE` records each code and size
as it finishes, and the same command started again goes on from there (the same arguments and
binaries, or it refuses). `--rates 30 --codes upca,qr,datamatrix` took 38 minutes; `--quick`
(30 fps, 5 passes at 1, 2, 4 and 8 VW/s) about 5 minutes.

Why: a kiosk customer swipes a code past the camera rather than holding it still. How fast the
swipe may be, against zbarcam on the same frames, and against what the frames allow at all,
tells where reads are lost: to the camera (blur, frames), to the decoders, or to the daemon's own
choices (viewport, looks that wait for a still scene, gating); the false reads tell what a swipe
makes a decoder invent.
"""
import argparse, hashlib, importlib.util, json, math, multiprocessing, os, queue, random, select, shutil, signal, string, subprocess, sys, tempfile,\
    threading, time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("daemon_bench", os.path.join(HERE, "daemon-bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

WIDTH, HEIGHT = 640, 480
# The daemon's default viewport: a centred square, 3/4 of the short side; its width is the unit of speed.
SIDE = HEIGHT * 3 // 4
VX, VY = (WIDTH - SIDE) // 2, (HEIGHT - SIDE) // 2
CX, CY = WIDTH / 2, HEIGHT / 2
BAR, PAPER, BACKGROUND = 40, 210, 150  # print, label, counter (DN)
READ_NOISE = 1.5                          # DN
GAIN = (3.0 ** 2 - READ_NOISE ** 2) / 200  # DN per DN of signal: sigma 3 DN at 200 DN
HFOV_DEGREES, DISTANCE_CM = 60.0, 20.0
FRAME_CM = 2 * DISTANCE_CM * math.tan(math.radians(HFOV_DEGREES / 2))
VW_CM = FRAME_CM * SIDE / WIDTH
MM_PER_PX = FRAME_CM * 10 / WIDTH
SUB = 4  # sub-pixel samples per pixel and axis

CODES = ("ean13", "upca", "code128", "qr", "datamatrix")
LINEAR = {"ean13": 13, "upca": 34, "code128": 20}  # zint's symbology numbers
MODULES = {"ean13": (1.8, 2.3), "upca": (1.8, 2.3), "code128": (1.8, 2.3), "qr": (2.5, 4.0), "datamatrix": (2.5, 4.0)}
QUIET = {"linear": 10, "qr": 4, "datamatrix": 2}  # modules
LINEAR_MARGIN = 3      # label above and below the bars, modules
LINEAR_HEIGHT = 0.35   # bar height over the bars' width
READERS = ("ours", "zbarcam", "oracle", "every")
CAMERA_READERS = ("ours", "zbarcam")  # the readers in front of an emulated camera
# The oracle's second looks: the libraries' own (ZBar inverted and at half size, zxing-cpp's other
# binarizer), as before the turned look; deblur is named so that the list is the old default.
ORACLE_LOOKS = "binarizer,deblur,inverted,second-scale"
# The oracle's symbologies for each code: ZBar finds a UPC-A only with EAN-13 enabled (it decodes
# UPC-A as an EAN-13 with a leading 0): `scan --engine zbar --symbologies upca` reads none.
ORACLE_SYMBOLOGIES = {"upca": "upca,ean13"}
ORACLE_BEHIND = 12000  # frames waiting for the oracle, at most (3.7 GB)


# ---------------------------------------------------------------- codes

def check_digit(digits):
    """The GS1 mod-10 check digit of `digits`."""
    total = sum(int(digit) * (3 if index % 2 == 0 else 1) for index, digit in enumerate(reversed(digits)))
    return str((10 - total % 10) % 10)


def make_text(code, rng, fps, size_index, speed_index, k):
    if code == "ean13":  # no leading 0: with UPC-A enabled that EAN-13 is reported as a UPC-A
        digits = str(rng.randrange(1, 10)) + "".join(rng.choice(string.digits) for _ in range(11))
        return digits + check_digit(digits)
    if code == "upca":
        digits = "".join(rng.choice(string.digits) for _ in range(11))
        return digits + check_digit(digits)
    if code == "code128":
        return "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(rng.randrange(10, 13)))
    short = "qr" if code == "qr" else "dm"
    return f"m{fps}-{short}-s{size_index + 1}-{(string.digits + string.ascii_lowercase)[speed_index]}{k:02d}"


def zint_rows(symbology, text):
    """The rows of modules `zint --dump` gives (1 dark), each as long as its hex digits (padded)."""
    dump = subprocess.run(["zint", "-b", str(symbology), "--dump", "-d", text], check=True, capture_output=True, text=True).stdout
    return [[int(bit) for digit in line.replace(" ", "") for bit in format(int(digit, 16), "04b")]
            for line in dump.splitlines() if line.strip()]


def label(code, text):
    """The label as a boolean array (True dark), quiet zone included: the white label the code is on."""
    if code in LINEAR:
        row = zint_rows(LINEAR[code], text)[0]
        first, last = row.index(1), len(row) - 1 - row[::-1].index(1)
        bars = np.array(row[first:last + 1], dtype=bool)
        quiet, height = QUIET["linear"], max(1, round(LINEAR_HEIGHT * len(bars)))
        dark = np.zeros((height + 2 * LINEAR_MARGIN, len(bars) + 2 * quiet), dtype=bool)
        dark[LINEAR_MARGIN:LINEAR_MARGIN + height, quiet:quiet + len(bars)] = bars
        return dark
    if code == "qr":
        art = subprocess.run(["qrencode", "-t", "ASCII", "-m", "0", text], check=True, capture_output=True, text=True).stdout
        matrix = np.array([[line[index] == "#" for index in range(0, len(line), 2)] for line in art.splitlines() if line], dtype=bool)
    else:
        rows = zint_rows(71, text)
        width = rows[-1].index(0) if 0 in rows[-1] else len(rows[-1])  # the solid bottom edge of the L
        matrix = np.array([row[:width] for row in rows], dtype=bool)
    quiet = QUIET[code]
    return np.pad(matrix, quiet, constant_values=False)


# ---------------------------------------------------------------- geometry and rendering

DIAGONALS = ((1, 1), (-1, -1), (-1, 1), (1, -1))  # top-left to bottom-right first


def pass_geometry(spec, shape):
    """Where the code's centre is on each frame of a pass: (direction unit vector, positions along
    the path in px from the viewport's centre, the label's half extents). The path crosses the
    viewport's centre; it starts with the label fully outside the entry edge (corner) and ends
    fully outside the exit edge."""
    rows, cols = shape
    width, height = cols * spec["module"], rows * spec["module"]
    angle = math.radians(spec["angle"])
    c, s = abs(math.cos(angle)), abs(math.sin(angle))
    half_w, half_h = (c * width + s * height) / 2, (s * width + c * height) / 2
    if spec["direction"] == "lr":
        unit, half = (1.0, 0.0), SIDE / 2 + half_w
    elif spec["direction"] == "rl":
        unit, half = (-1.0, 0.0), SIDE / 2 + half_w
    else:
        dx, dy = DIAGONALS[spec["diagonal"]]
        unit, half = (dx / math.sqrt(2), dy / math.sqrt(2)), math.sqrt(2) * (SIDE / 2 + min(half_w, half_h))
    step = spec["speed"] * SIDE / spec["fps"]
    positions = []
    while (position := -half + (len(positions) + spec["phase"]) * step) <= half:
        positions.append(position)
    return unit, positions, (half_w, half_h)


def texture(dark, module, degrees):
    """The label turned by `degrees`, sampled at SUB x SUB points per pixel (its centre between the
    middle samples), minus the background: 0 off the label."""
    rows, cols = dark.shape
    angle = math.radians(degrees)
    c, s = math.cos(angle), math.sin(angle)
    width, height = cols * module, rows * module
    half_w, half_h = (abs(c) * width + abs(s) * height) / 2, (abs(s) * width + abs(c) * height) / 2
    fine_w, fine_h = 2 * math.ceil(SUB * half_w) + 2, 2 * math.ceil(SUB * half_h) + 2
    x = ((np.arange(fine_w) + 0.5 - fine_w / 2) / SUB)[None, :]
    y = ((np.arange(fine_h) + 0.5 - fine_h / 2) / SUB)[:, None]
    u = np.floor((x * c + y * s) / module + cols / 2).astype(np.int64)
    v = np.floor((-x * s + y * c) / module + rows / 2).astype(np.int64)
    inside = (u >= 0) & (u < cols) & (v >= 0) & (v < rows)
    ink = dark[np.clip(v, 0, rows - 1), np.clip(u, 0, cols - 1)]
    return np.where(inside, np.where(ink, BAR, PAPER), BACKGROUND).astype(np.float32) - BACKGROUND


def motion_sum(canvas, dx, dy, count):
    """The sum of `count` copies of `canvas` shifted by 0, 1, ... count-1 steps of (dx, dy) fine
    samples, zero-filled (doubling: log2(count) shifted adds)."""
    height, width = canvas.shape

    def add_shifted(target, source, n):
        sx, sy = n * dx, n * dy
        if abs(sx) >= width or abs(sy) >= height:
            return
        target[max(sy, 0):height + min(sy, 0), max(sx, 0):width + min(sx, 0)] += \
            source[max(-sy, 0):height - max(sy, 0), max(-sx, 0):width - max(sx, 0)]

    total, power, offset = np.zeros_like(canvas), canvas.copy(), 0
    bit = 1
    while bit <= count:
        if count & bit:
            add_shifted(total, power, offset)
            offset += bit
        if bit * 2 <= count:
            doubled = power.copy()
            add_shifted(doubled, power, bit)
            power = doubled
        bit *= 2
    return total


def binomial(patch):
    """3x3 binomial blur (1 2 1 / 4 each way), edges repeated: a light lens blur."""
    padded = np.pad(patch, 1, mode="edge")
    rows = (padded[:, :-2] + 2 * padded[:, 1:-1] + padded[:, 2:]) / 4
    return (rows[:-2] + 2 * rows[1:-1] + rows[2:]) / 4


def noisy(signal, rng, gain=1.0):
    """Sensor noise: Gaussian of variance read^2 + GAIN * signal, rounded and clipped to 8 bits.
    `gain`: the sensor's analogue gain over the default's, making up for light the exposure did
    not collect: the same signal in DN from 1/gain of the photons, so the shot noise's variance is
    gain times as large and the read noise's (before the amplifier) gain^2."""
    sigma = np.sqrt((READ_NOISE * gain) ** 2 + gain * GAIN * np.maximum(signal, 0))
    return np.clip(np.rint(signal + sigma * rng.standard_normal(signal.shape, dtype=np.float32)), 0, 255).astype(np.uint8)


def pgm(pixels):
    return b"P5\n%d %d\n255\n" % (pixels.shape[1], pixels.shape[0]) + pixels.tobytes()


def render_pass(spec, directory):
    """Writes the pass's frames as PGM files 00000.pgm... into `directory`; returns the direction
    of motion and the code's centre (x, y) on each frame (at the middle of its exposure)."""
    dark = label(spec["code"], spec["text"])
    unit, positions, _ = pass_geometry(spec, dark.shape)
    fine = texture(dark, spec["module"], spec["angle"])
    fine_h, fine_w = fine.shape
    # Motion samples one fine step apart along the path (0.25 px across, 0.35 px diagonally).
    dx, dy = int(np.sign(round(unit[0], 6))), int(np.sign(round(unit[1], 6)))
    step_px = math.hypot(dx, dy) / SUB
    travel = spec["speed"] * SIDE * spec["exposure_ms"] / 1000
    count = max(1, round(travel / step_px) + 1)
    spread = (count - 1) * step_px
    rng = np.random.default_rng([spec["seed"], spec["index"]])
    os.makedirs(directory, exist_ok=True)
    centres = []
    # A pass's frames differ only in where the blurred code lies, to 1/SUB px: the patch for each
    # sub-pixel phase is made once and placed on every frame with that phase.
    patches = {}
    for index, position in enumerate(positions):
        centres.append((CX + position * unit[0], CY + position * unit[1]))
        start = position - spread / 2
        # Fine-grid placement of the texture for the first motion sample (rounded to 1/SUB px).
        gx0 = round(SUB * (CX + start * unit[0])) - fine_w // 2
        gy0 = round(SUB * (CY + start * unit[1])) - fine_h // 2
        gx1, gy1 = gx0 + (count - 1) * dx, gy0 + (count - 1) * dy
        left, top = math.floor(min(gx0, gx1) / SUB) - 1, math.floor(min(gy0, gy1) / SUB) - 1
        right, bottom = math.ceil((max(gx0, gx1) + fine_w) / SUB) + 1, math.ceil((max(gy0, gy1) + fine_h) / SUB) + 1
        frame = np.full((HEIGHT, WIDTH), BACKGROUND, dtype=np.float32)
        x0, y0, x1, y1 = max(left, 0), max(top, 0), min(right, WIDTH), min(bottom, HEIGHT)
        if x0 < x1 and y0 < y1:
            oy, ox = gy0 - top * SUB, gx0 - left * SUB
            phase = (ox, oy, right - left, bottom - top)
            if phase not in patches:
                canvas = np.zeros(((bottom - top) * SUB, (right - left) * SUB), dtype=np.float32)
                canvas[oy:oy + fine_h, ox:ox + fine_w] = fine
                blurred = motion_sum(canvas, dx, dy, count) / count
                patches[phase] = binomial(blurred.reshape(bottom - top, SUB, right - left, SUB).mean(axis=(1, 3)) + BACKGROUND)
            frame[y0:y1, x0:x1] = patches[phase][y0 - top:y1 - top, x0 - left:x1 - left]
        with open(os.path.join(directory, f"{index:05d}.pgm"), "wb") as f:
            f.write(pgm(noisy(frame, rng, spec.get("gain", 1.0))))
    return unit, centres


def render_worker(jobs, results):
    """The one extra process: renders passes in order, niced so the readers keep the CPU."""
    os.nice(10)
    while (spec := jobs.get()) is not None:
        try:
            started = time.monotonic()
            unit, centres = render_pass(spec, spec["dir"])
            results.put((spec["index"], (unit, centres), time.monotonic() - started, None))
        except Exception as error:  # reported to the driver, which stops
            results.put((spec["index"], None, 0, repr(error)))


# ---------------------------------------------------------------- the run

class Pass:
    """One code crossing the view: its spec, its frames, and what each reader made of it."""

    def __init__(self, spec):
        self.spec = spec
        self.centres = None               # the code's centre on each frame, once rendered
        self.unit = None                  # its direction of motion
        self.reads = {}                   # reader: lines with this pass's text
        self.shown, self.dropped = {}, {}  # reader: frame indices its camera delivered / dropped
        self.stamps = {}                  # reader: emulator timestamps of the pass's ticks
        self.oracle = None                # {"read", "frames", "scanned", "false"}
        self.every = None                 # the `every` reader's lines (texts), once it has run
        self.played = False
        self.full = False                 # the oracle looks at every frame (ours missed it)
        self.seconds = 0.0                # wall time from waiting for its frames to the end of its grace

    def label(self):
        s = self.spec
        return (f"{s['fps']} fps {s['code']} {s['module']:g} px {s['speed']:g} VW/s pass {s['k']} "
                f"({s['direction'] if s['direction'] != 'diag' else 'diag' + str(s['diagonal'])}, {s['angle']:g}°)")

    def right(self, text):
        return text == self.spec["text"] or (self.spec["code"] == "upca" and text == "0" + self.spec["text"])

    def in_viewport(self, index):
        x, y = self.centres[index]
        return VX <= x < VX + SIDE and VY <= y < VY + SIDE

    def offset(self, index):
        """The code's centre from the viewport's centre, px, signed along the path."""
        x, y = self.centres[index]
        return math.copysign(math.hypot(x - CX, y - CY), (x - CX) * self.unit[0] + (y - CY) * self.unit[1])


class Camera:
    """One live reader in front of its own emulated camera (node file and log FIFO of its own)."""

    def __init__(self, name, work, args, fps):
        self.name = name
        self.dir = os.path.join(work, name)
        os.makedirs(self.dir, exist_ok=True)
        self.node = os.path.join(self.dir, "video0")
        self.fifo = os.path.join(self.dir, "ticks")
        self.scene = dict(background=BACKGROUND, noise=0, formats="GREY", sizes=f"{WIDTH}x{HEIGHT}", fps=fps,
                          frame=os.path.join(work, "background.pgm"))
        self.writes = 0
        bench.plug(self.node, **self.scene)
        if os.path.exists(self.fifo):
            os.unlink(self.fifo)
        self.ticks = bench.Ticks(self.fifo)
        env = dict(os.environ, LD_PRELOAD=args.emulator, KSEMU_DEVICE=self.node, KSEMU_LOG=self.fifo)
        self.reader = bench.Reader(name, self.dir, self.node, env)
        self.reader.args = args
        self.reader.start()

    def play(self, pattern=None, frames=0):
        """Writes the node file: the sequence from the next tick, or the background alone."""
        self.writes += 1
        extra = dict(sequence=pattern, frames=frames) if pattern else {}
        # The pad changes the file's size from one write to the next, so the emulator re-reads it
        # even when rename hands back the same inode within one timestamp tick.
        bench.plug(self.node, **self.scene, **extra, pad="x" * (1 + self.writes % 4), write=self.writes)
        return time.monotonic_ns()

    def alive(self):
        return self.reader.process.poll() is None

    def stop(self):
        self.reader.stop()
        self.ticks.close()
        os.unlink(self.fifo)


class Run:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.passes = []
        self.texts = {}          # text: pass index
        self.false = []          # (reader, line, pass index the line came during or None)
        self.cameras = []
        self.current = None
        self.oracle_jobs = queue.Queue()
        self.oracle_pending = 0
        self.oracle_frames = 0   # the frames of the passes waiting for it
        self.oracle_lock = threading.Lock()
        self.oracle_seconds = 0.0
        self.render_seconds = 0.0

    # ---- reads

    def take(self, camera, line):
        line = line.rstrip("\r")
        if not line:
            return
        index = self.texts.get(line)
        if index is None and line.startswith("0"):
            candidate = self.texts.get(line[1:])
            if candidate is not None and self.passes[candidate].right(line):
                index = candidate
        if index is None:
            self.false.append((camera.name, line, self.current))
            return
        self.passes[index].reads[camera.name] = self.passes[index].reads.get(camera.name, 0) + 1

    def pump(self, seconds=0.0, until=None):
        """Drains every reader's lines and every camera's log for `seconds`, or until `until()`."""
        deadline = time.monotonic() + seconds
        while True:
            self.check()
            for camera in self.cameras:
                for line in camera.reader.drain():
                    self.take(camera, line)
                camera.ticks.lines()
            remaining = deadline - time.monotonic()
            if until is not None:
                if until():
                    return
                remaining = 0.05
            if remaining <= 0:
                return
            fds = [fd for camera in self.cameras for fd in (camera.reader.fd, camera.ticks.fd)]
            if fds:
                select.select(fds, [], [], min(remaining, 0.1))
            else:
                time.sleep(min(remaining, 0.1))

    def check(self):
        """Stops the run when a reader has exited (its pipe would stay readable, at end of file)."""
        for camera in self.cameras:
            if not camera.alive():
                with open(os.path.join(camera.dir, f"{camera.name}.log"), errors="replace") as log:
                    tail = log.read()[-600:].strip()
                raise RuntimeError(f"{camera.name} exited ({camera.reader.process.returncode})" + (f"; its log ends: {tail}" if tail else ""))

    # ---- one pass, live

    def play(self, record):
        spec = record.spec
        frames = len(record.centres)
        prefix = spec["dir"] + "/"
        pattern = prefix + "%05d.pgm"
        self.current = spec["index"]
        state = {}
        for camera in self.cameras:
            record.shown[camera.name], record.dropped[camera.name], record.stamps[camera.name] = set(), set(), []
        for camera in self.cameras:  # both at once
            state[camera.name] = dict(written=camera.play(pattern, frames), seen=False, behind=0, done=False, heard=time.monotonic())
        while not all(item["done"] for item in state.values()):
            fds = [fd for camera in self.cameras for fd in (camera.reader.fd, camera.ticks.fd)]
            select.select(fds, [], [], 0.5)
            self.check()
            silent = [name for name, item in state.items() if not item["done"] and time.monotonic() - item["heard"] > 3]
            if silent:
                raise RuntimeError(f"{', '.join(silent)}: no camera tick for 3 s during {record.label()}")
            for camera in self.cameras:
                for line in camera.reader.drain():
                    self.take(camera, line)
                item = state[camera.name]
                for event, fields in camera.ticks.lines():
                    item["heard"] = time.monotonic()
                    image, stamp = fields.get("image", ""), int(fields["t"])
                    if image.startswith(prefix):
                        index = int(image[len(prefix):len(prefix) + 5])
                        (record.shown if event == "frame" else record.dropped)[camera.name].add(index)
                        record.stamps[camera.name].append(stamp)
                        item["seen"] = True
                        if index == frames - 1:
                            item["done"] = True
                    elif item["seen"] and stamp > item["written"]:
                        item["done"] = True  # cannot happen: the last frame has a line
                    elif not item["seen"] and stamp > item["written"]:
                        item["behind"] += 1
                        if item["behind"] >= 3:  # the write went unnoticed: write it again
                            item["written"], item["behind"] = camera.play(pattern, frames), 0
        self.pump(self.args.grace)
        record.played = True
        self.current = None

    # ---- the oracle, in a thread (its work is in the scan processes, niced)

    def oracle_loop(self):
        while (record := self.oracle_jobs.get()) is not None:
            started = time.monotonic()
            if "every" in self.args.readers:
                try:
                    self.every_pass(record)
                except Exception as error:
                    # As the oracle's: the thread must go on, or the run waits for this pass forever.
                    record.every = []
                    print(f"every: {record.label()}: {error!r}", file=sys.stderr, flush=True)
                record.full |= not record.reads.get("every")
            if "oracle" in self.args.readers:
                try:
                    record.oracle = self.oracle_pass(record)
                except Exception as error:
                    record.oracle = {"read": False, "frames": [], "scanned": 0, "false": [], "error": repr(error)}
                    print(f"oracle: {record.label()}: {error!r}", file=sys.stderr, flush=True)
            with self.oracle_lock:
                self.oracle_seconds += time.monotonic() - started
                self.oracle_pending -= 1
                self.oracle_frames -= len(record.centres)
            self.discard(record)

    def oracle_pass(self, record):
        spec = record.spec
        order = sorted(range(len(record.centres)), key=lambda index: abs(record.offset(index)))
        read, false, scanned, batch = set(), {}, 0, 8
        while scanned < len(order):
            chunk = order[scanned:scanned + batch]
            scanned += len(chunk)
            batch *= 2
            files = [os.path.join(spec["dir"], f"{index:05d}.pgm") for index in chunk]
            output = subprocess.run(["nice", "-n", "10", self.args.binary, "scan", "--json", "--viewport", "full", "--engine", "both",
                                     "--preprocessing", ORACLE_LOOKS,
                                     "--symbologies", ORACLE_SYMBOLOGIES.get(spec["code"], spec["code"])] + files,
                                    capture_output=True, text=True)
            if output.returncode == 2:
                raise RuntimeError(f"scan: {output.stderr.strip()[:200]}")
            for line in output.stdout.splitlines():
                found = json.loads(line)
                index = int(os.path.basename(found["file"])[:5])
                if record.right(found["text"]):
                    read.add(index)
                else:
                    false.setdefault(found["text"], []).append(index)
            if read and not record.full:
                break
        return {"read": bool(read), "frames": sorted(read), "scanned": scanned, "false": sorted(false.items())}

    def every_pass(self, record):
        """Ours in process on every frame of the pass (`decode-bench stream`: the read pipeline with the
        daemon's default config on a frame clock at the pass's rate, no frame dropped), with the
        counter for the grace before and after it, niced like the oracle."""
        spec = record.spec
        output = subprocess.run(["nice", "-n", "10", self.args.decode_bench, "stream", "--background", os.path.join(self.work, "background.pgm"),
                                 "--fps", str(spec["fps"]), "--grace", str(self.args.grace), spec["dir"]], capture_output=True, text=True)
        if output.returncode:
            raise RuntimeError(f"decode-bench stream: {output.stderr.strip()[:200]}")
        lines = [found["text"] for found in map(json.loads, output.stdout.splitlines()) if "text" in found]
        record.shown["every"], record.dropped["every"] = set(range(len(record.centres))), set()
        for line in lines:
            if record.right(line):
                record.reads["every"] = record.reads.get("every", 0) + 1
            else:
                self.false.append(("every", line, spec["index"]))
        record.every = lines

    def offline_done(self, record):
        """The oracle and the `every` reader, those asked for, are done with the pass."""
        return (record.oracle is not None or "oracle" not in self.args.readers) and (record.every is not None or "every" not in self.args.readers)

    def discard(self, record):
        """Deletes a pass's frames once every reader is done with them."""
        live_done = record.played or not self.cameras
        if live_done and self.offline_done(record) and not self.args.keep:
            shutil.rmtree(record.spec["dir"], ignore_errors=True)


# ---------------------------------------------------------------- going on after a stop

class State:
    """`--state FILE`: JSON lines, first what defines the run (the arguments that change a figure,
    and the binaries' digests), then one line per finished code and size at a rate, with what each
    of its passes gave. A run started again with the same file loads those and plays the rest; a
    file of another run is refused, so that a table is never put together from two builds or two
    settings. A line cut short by a kill is ignored (its code and size play again)."""

    KEYS = ("rates", "speeds", "passes", "codes", "modules", "readers", "exposure_ms", "grace", "extra_config", "seed")
    FIELDS = ("reads", "shown", "dropped", "stamps", "oracle", "every", "full", "seconds", "centres", "unit")

    def __init__(self, path, args):
        self.path = path
        self.header = {key: getattr(args, key) for key in self.KEYS}
        if args.gain != 1:  # (a key of its own only when set: files from before it go on)
            self.header["gain"] = args.gain
        self.header["modules"] = {code: list(sizes) for code, sizes in sorted(args.modules.items())}
        for name, binary in (("binary", args.binary), ("zbarcam", shutil.which("zbarcam") or ""),
                             ("decode_bench", args.decode_bench if "every" in args.readers else "")):
            self.header[name] = digest(binary) if binary else ""
        self.done = {}    # (fps, code, module): {"group": [...], "passes": {index: fields}, "false": [...]}
        self.resumed = 0  # how many times the run went on from this file
        self.mark = 0     # run.false up to here is in the file (or was loaded from it)
        if not os.path.exists(path):
            self.write(dict(run=self.header))
            return
        with open(path) as f:
            lines = f.read().split("\n")
        try:
            first = json.loads(lines[0])
        except ValueError:
            raise SystemExit(f"--state {path}: line 1 is not a run's header")
        if first.get("run") != self.header:
            theirs = first.get("run") or {}
            differ = [key for key in self.header if theirs.get(key) != self.header[key]]
            raise SystemExit(f"--state {path}: another run's (it differs in {', '.join(differ) or 'its form'}); "
                             f"take a new file or the same arguments and build")
        for line in lines[1:]:
            try:
                item = json.loads(line)
            except ValueError:
                continue  # the last line, cut short by a kill
            if "resumed" in item:
                self.resumed += 1
            elif "group" in item:
                self.done[tuple(item["group"])] = item
        self.resumed += 1
        self.write(dict(resumed=time.strftime("%Y-%m-%d %H:%M:%S"), groups=len(self.done)))

    def write(self, item):
        with open(self.path, "a") as f:
            f.write(json.dumps(item) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def load(self, run):
        """Puts the finished groups' results into their passes; returns the indices loaded."""
        loaded = set()
        for record in run.passes:
            s = record.spec
            item = self.done.get((s["fps"], s["code"], s["module"]))
            if item is None:
                continue
            fields = item["passes"][str(s["index"])]
            for name in self.FIELDS:
                value = fields[name]
                if name in ("shown", "dropped"):
                    value = {reader: set(indices) for reader, indices in value.items()}
                elif name == "centres":
                    value = [tuple(point) for point in value]
                elif name == "unit":
                    value = tuple(value)
                setattr(record, name, value)
            record.played = True
            loaded.add(s["index"])
        for item in self.done.values():
            run.false += [tuple(entry) for entry in item["false"]]
        self.mark = len(run.false)
        return loaded

    def save(self, run, group, records):
        indices = {record.spec["index"] for record in records}
        passes = {}
        for record in records:
            fields = {name: getattr(record, name) for name in self.FIELDS}
            fields["shown"] = {reader: sorted(values) for reader, values in record.shown.items()}
            fields["dropped"] = {reader: sorted(values) for reader, values in record.dropped.items()}
            passes[str(record.spec["index"])] = fields
        # A line that came between passes goes with the group played when it came.
        false = [list(entry) for entry in run.false if entry[2] in indices]
        false += [list(entry) for entry in run.false[self.mark:] if entry[2] is None]
        self.mark = len(run.false)
        self.done[group] = dict(group=list(group), passes=passes, false=false)
        self.write(self.done[group])


def digest(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()[:16]


# ---------------------------------------------------------------- report

def cm(speed):
    return speed * VW_CM


def tolerance(counts, need):
    """The fastest speed whose count is at least `need`, every slower speed's too (None: not even the slowest)."""
    best = None
    for speed, count in sorted(counts.items()):
        if count < need:
            break
        best = speed
    return best


def fmt_speed(speed):
    return "none" if speed is None else f"{speed:g} ({cm(speed):.0f})"


class Report:
    def __init__(self, run, args):
        self.run, self.args = run, args
        self.live = [name for name in args.readers if name != "oracle"]
        self.need = math.ceil(0.95 * args.passes)

    def groups(self):
        """Passes by (fps, code, module, speed), in run order."""
        grouped = {}
        for record in self.run.passes:
            s = record.spec
            grouped.setdefault((s["fps"], s["code"], s["module"], s["speed"]), []).append(record)
        return grouped

    def counts(self, records):
        """Per reader: passes read; and false reads, duplicates, dropped frames, passes the oracle read that it missed."""
        result = {}
        oracle_read = {record.spec["index"] for record in records if record.oracle and record.oracle["read"]}
        for name in self.live:
            read = [record for record in records if record.reads.get(name)]
            result[name] = dict(
                read=len(read),
                dup=sum(record.reads[name] - 1 for record in read),
                dropped=sum(len(record.dropped.get(name, ())) for record in records),
                lost=len(oracle_read - {record.spec["index"] for record in read}))
        if "oracle" in self.args.readers:
            result["oracle"] = dict(read=len(oracle_read), dup=0, dropped=0, lost=0)
        indices = {record.spec["index"] for record in records}
        for name in self.args.readers:
            if name == "oracle":
                result[name]["false"] = sum(len(record.oracle["false"]) for record in records if record.oracle)
            else:
                result[name]["false"] = sum(1 for reader, _, index in self.run.false if reader == name and index in indices)
        return result

    def columns(self):
        readers, live = self.args.readers, self.live
        columns = [("VW/s", 5), ("px/frame", 8)] + [(name, 7) for name in readers] + [("false " + "/".join(readers), 0)]
        if live:
            columns += [("lost " + "/".join(live), 0), ("dup " + "/".join(live), 0), ("dropped " + "/".join(live), 0)]
        return [(title, max(width, len(title))) for title, width in columns]

    def header_row(self):
        return "  " + " | ".join(f"{title:>{width}}" for title, width in self.columns())

    def row(self, speed, fps, records):
        counts = self.counts(records)
        readers, live = self.args.readers, self.live
        frames = sum(len(record.centres or ()) for record in records)
        cells = [f"{speed:g}", f"{speed * SIDE / fps:.1f}"] + [f"{counts[name]['read']}/{len(records)}" for name in readers]
        cells.append("/".join(str(counts[name]["false"]) for name in readers))
        if live:
            cells += ["/".join(str(counts[name][key]) for name in live) for key in ("lost", "dup")]
            cells.append("/".join(str(counts[name]["dropped"]) for name in live) + f" of {frames}")
        return "  " + " | ".join(f"{cell:>{width}}" for cell, (_, width) in zip(cells, self.columns()))

    def summary(self):
        grouped = self.groups()
        blocks = {}
        for (fps, code, module, speed), records in grouped.items():
            blocks.setdefault((fps, code, module), {})[speed] = self.counts(records)
        out = []
        out.append(f"\nmotion tolerance: the fastest speed with at least {self.need} of {self.args.passes} passes read, "
                   f"every slower speed too; VW/s (cm/s at {DISTANCE_CM:g} cm, 1 VW = {VW_CM:.1f} cm)")
        names = self.args.readers
        out.append(f"  {'fps':>3} {'code':10} {'module':>6} | " + " | ".join(f"{name:>13}" for name in names) +
                   (" | ours/zbarcam" if "ours" in names and "zbarcam" in names else "") + " | wall min")
        minutes = {}
        for (fps, code, module, _), records in grouped.items():
            minutes[fps, code, module] = minutes.get((fps, code, module), 0) + sum(record.seconds for record in records) / 60
        for (fps, code, module), speeds in blocks.items():
            best = {name: tolerance({speed: counts[name]["read"] for speed, counts in speeds.items()}, self.need) for name in names}
            line = f"  {fps:3d} {code:10} {module:5g}px | " + " | ".join(f"{fmt_speed(best[name]):>13}" for name in names)
            if "ours" in names and "zbarcam" in names:
                ratio = f"{best['ours'] / best['zbarcam']:.2f}" if best["ours"] and best["zbarcam"] else "-"
                line += f" | {ratio:>12}"
            out.append(line + f" | {minutes[fps, code, module]:8.1f}")
        if "oracle" in names and self.live:
            out.append(f"\nagainst the camera: the fastest speed at which the reader missed at most {self.args.passes - self.need} of the "
                       f"passes the oracle read (and the oracle read at least one), every slower speed too")
            out.append(f"  {'fps':>3} {'code':10} {'module':>6} | " + " | ".join(f"{name:>13}" for name in self.live))
            for (fps, code, module), speeds in blocks.items():
                best = {}
                for name in self.live:
                    best[name] = tolerance({speed: (1 if counts[name]["lost"] <= self.args.passes - self.need and counts["oracle"]["read"] else 0)
                                            for speed, counts in speeds.items()}, 1)
                out.append(f"  {fps:3d} {code:10} {module:5g}px | " + " | ".join(f"{fmt_speed(best[name]):>13}" for name in self.live))
        return "\n".join(out)

    def false_reads(self):
        oracle = sum(len(record.oracle["false"]) for record in self.run.passes if record.oracle)
        out = [f"\nfalse reads (every one, verbatim): {len(self.run.false)} live"
               + (f", {oracle} distinct texts from the oracle" if "oracle" in self.args.readers else "")]
        for name, line, index in self.run.false:
            during = self.run.passes[index].label() + f" (text {self.run.passes[index].spec['text']})" if index is not None else "between passes"
            out.append(f"  {name:8} {line!r} during {during}")
        for record in self.run.passes:
            for text, frames in (record.oracle or {}).get("false", []):
                out.append(f"  {'oracle':8} {text!r} on frames {','.join(map(str, frames))} of {record.label()} (text {record.spec['text']})")
        duplicates = [(name, record) for record in self.run.passes for name in self.live if record.reads.get(name, 0) > 1]
        out.append(f"duplicates (a pass's text arriving more than once): {len(duplicates)}")
        for name, record in duplicates:
            out.append(f"  {name:8} x{record.reads[name]} {record.label()}")
        return "\n".join(out)

    def misses(self):
        """Passes a live reader missed though the oracle read them: which frames the oracle read, and
        whether that reader's camera delivered them with the code's centre in the viewport."""
        out = []
        for record in self.run.passes:
            if not record.oracle or not record.oracle["read"]:
                continue
            for name in self.live:
                if record.reads.get(name) or (name == "zbarcam" and record.spec["code"] == "datamatrix"):
                    continue
                frames = record.oracle["frames"]
                got = [index for index in frames if index in record.shown.get(name, ())]
                inside = [index for index in got if record.in_viewport(index)]
                runs = []  # consecutive frames as first-last [offsets]
                for index in frames:
                    if runs and index == runs[-1][1] + 1:
                        runs[-1][1] = index
                    else:
                        runs.append([index, index])
                detail = ", ".join(f"{a}-{b} [{record.offset(a):+.0f}..{record.offset(b):+.0f}]" if a != b else f"{a} [{record.offset(a):+.0f}]"
                                   for a, b in runs)
                dropped = [index for index in frames if index not in record.shown.get(name, ())]
                out.append(f"  {name:8} {record.label()}: {len(record.centres)} frames; oracle read {len(frames)}: {detail}"
                           + (f" (of the {record.oracle['scanned']} frames it scanned, from the middle out)" if record.oracle["scanned"] < len(record.centres) else "")
                           + f"; {name} got {len(got)} of them, {len(inside)} with the code's centre in the viewport"
                           + (f"; dropped {','.join(map(str, dropped))}" if dropped else ""))
        beyond = [f"  {name:8} {record.label()}" for record in self.run.passes for name in self.live
                  if record.oracle and not record.oracle["read"] and record.reads.get(name)]
        head = ("\npasses a live reader read that the oracle read on no frame:" + ("\n" + "\n".join(beyond) if beyond else " none"))
        return head + ("\npasses a live reader missed that the oracle read (frames first-last [the code's centre from the viewport's centre, px "
                "along the path]; every frame scanned of the passes ours missed; zbarcam's Data Matrix passes left out, ZBar has none):" +
                ("\n" + "\n".join(out) if out else " none"))



# ---------------------------------------------------------------- main

def specs(args, work):
    rng = random.Random(args.seed)
    used, result = set(), []
    for fps in args.rates:
        for code in args.codes:
            for size_index, module in enumerate(args.modules.get(code, MODULES[code])):
                for speed_index, speed in enumerate(args.speeds):
                    for k in range(args.passes):
                        while (text := make_text(code, rng, fps, size_index, speed_index, k)) in used:
                            pass
                        used.add(text)
                        index = len(result)
                        result.append(dict(
                            index=index, fps=fps, code=code, module=module, size_index=size_index, speed=speed, speed_index=speed_index,
                            k=k, text=text, direction=("lr", "rl", "diag")[k % 3], diagonal=(k // 3) % 4, angle=360.0 * k / args.passes,
                            phase=rng.random(), exposure_ms=args.exposure_ms, gain=args.gain, seed=args.seed, dir=os.path.join(work, "passes", f"{index:05d}")))
    return result


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(bench.ROOT, ".build-release/release/kiosk-scanner"))
    parser.add_argument("--emulator", default=os.path.join(bench.ROOT, ".build/emulators/libv4l2emu.so"))
    parser.add_argument("--decode-bench", default=os.path.join(bench.ROOT, ".build-release/release/decode-bench"),
                        help="for the `every` reader (packaging/build-release decode-bench)")
    parser.add_argument("--rates", default="30,60", help="frame rates (default 30,60)")
    parser.add_argument("--speeds", default="0.25,0.5,1,2,3,4,6,8", help="viewport widths a second (default 0.25,0.5,1,2,3,4,6,8)")
    parser.add_argument("--passes", type=int, default=20, help="passes per speed (default 20)")
    parser.add_argument("--codes", default=",".join(CODES), help=f"default {','.join(CODES)}")
    parser.add_argument("--modules", default="", help="px per module, overriding the defaults: 'ean13=2,3;qr=3' or '2,3' for all")
    parser.add_argument("--readers", default="ours,zbarcam,oracle")
    parser.add_argument("--exposure-ms", type=float, default=8.0)
    parser.add_argument("--gain", type=float, default=1.0, help="analogue gain over the default's, for a shorter exposure "
                        "in the same light: the same image, gain times the shot noise's variance, gain^2 the read noise's (default 1)")
    parser.add_argument("--grace", type=float, default=0.5, help="s of background after each pass, for late reads (default 0.5)")
    parser.add_argument("--extra-config", default="", help="YAML appended to our config, \\n for newlines")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--keep", action="store_true", help="keep the frames (and print where)")
    parser.add_argument("--state", default="", help="a file to record each finished code and size in, and to go on from: a run "
                        "stopped (a kill, the machine's end) and started again with the same --state and arguments plays only "
                        "what it had not finished")
    parser.add_argument("--quick", action="store_true", help="a smoke run: rates 30, passes 5, speeds 1,2,4,8")
    args = parser.parse_args()
    if args.quick:
        args.rates, args.passes, args.speeds = "30", 5, "1,2,4,8"
    args.rates = [int(rate) for rate in args.rates.split(",")]
    args.speeds = sorted(float(speed) for speed in args.speeds.split(","))
    args.codes = [code for code in args.codes.split(",") if code]
    args.readers = [name for name in args.readers.split(",") if name]
    if any(code not in CODES for code in args.codes) or any(name not in READERS for name in args.readers) or not args.readers:
        parser.error(f"--codes takes {','.join(CODES)}; --readers takes {','.join(READERS)}")
    if len(args.speeds) > 36:
        parser.error("at most 36 speeds")
    # A missing binary would read nothing, and a reader that read nothing looks like a result.
    for reader, path, build in (("ours", args.binary, "packaging/build-release"), ("oracle", args.binary, "packaging/build-release"),
                                ("every", args.decode_bench, "packaging/build-release decode-bench")):
        if reader in args.readers and not os.access(path, os.X_OK):
            parser.error(f"{reader} needs {path} ({build})")
    overrides = {}
    for part in filter(None, args.modules.split(";")):
        names, _, sizes = part.rpartition("=")
        for name in (names.split(",") if names else CODES):
            overrides[name] = tuple(float(size) for size in sizes.split(","))
    args.modules = overrides
    args.drop_caches = args.ack = False  # daemon-bench's Reader asks
    return args


def main():
    args = parse_args()
    # A kill runs the cleanup too (the readers and their cameras stop), as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    work = tempfile.mkdtemp(prefix="kiosk-motion-bench-", dir=shm)
    run = Run(args, work)
    all_specs = specs(args, work)
    run.passes = [Pass(spec) for spec in all_specs]
    run.texts = {spec["text"]: spec["index"] for spec in all_specs}
    state = State(args.state, args) if args.state else None
    loaded = state.load(run) if state else set()
    with open(os.path.join(work, "background.pgm"), "wb") as f:
        f.write(pgm(noisy(np.full((HEIGHT, WIDTH), BACKGROUND, dtype=np.float32), np.random.default_rng(args.seed), args.gain)))

    # The renderer is forked before any reader or thread exists.
    context = multiprocessing.get_context("fork")
    jobs, results = context.Queue(), context.Queue()
    renderer = context.Process(target=render_worker, args=(jobs, results), daemon=True)
    renderer.start()
    oracle = threading.Thread(target=run.oracle_loop, daemon=True)
    oracle.start()
    report = Report(run, args)
    live = report.live
    cameras = [name for name in live if name in CAMERA_READERS]
    started = time.monotonic()

    modules = {code: args.modules.get(code, MODULES[code]) for code in args.codes}
    print(f"motion: codes swiped past the camera; {WIDTH}x{HEIGHT} GREY, viewport {SIDE}x{SIDE} centred (1 VW = {SIDE} px); "
          f"rates {','.join(map(str, args.rates))} fps; speeds {','.join(f'{s:g}' for s in args.speeds)} VW/s; "
          f"{args.passes} passes per speed (read means >= {report.need}); seed {args.seed}", flush=True)
    read, shot = READ_NOISE * args.gain, GAIN * args.gain
    print(f"  scene: bars {BAR}, label {PAPER}, counter {BACKGROUND} DN; exposure {args.exposure_ms:g} ms (motion blur), 4x4 sub-pixel "
          f"samples, 3x3 binomial lens blur; sensor noise Gaussian, variance {read:g}^2 + {shot:.4f} x signal "
          + (f"(gain {args.gain:g}) " if args.gain != 1 else "") +
          f"(sigma {math.sqrt(read ** 2 + shot * BACKGROUND):.2f} DN at {BACKGROUND}, "
          f"{math.sqrt(read ** 2 + shot * PAPER):.2f} at {PAPER})", flush=True)
    print(f"  geometry: a UVC webcam of {HFOV_DEGREES:g} deg horizontal field at {DISTANCE_CM:g} cm (hardware.md: 15-30 cm): frame "
          f"{FRAME_CM:.1f} cm wide, {MM_PER_PX:.3f} mm/px, viewport {VW_CM:.1f} cm: 1 VW/s = {VW_CM:.1f} cm/s", flush=True)
    print("  modules: " + "; ".join(f"{code} " + ", ".join(f"{m:g} px ({m * MM_PER_PX:.2f} mm at {DISTANCE_CM:g} cm)" for m in sizes)
                                     for code, sizes in modules.items()), flush=True)
    print(f"  passes: direction l->r, r->l, diagonal in turn; turned 360/{args.passes} deg more each pass; "
          f"readers {','.join(args.readers)}; work {work}", flush=True)
    if state and state.done:
        print(f"  going on from --state {args.state}: {len(state.done)} codes and sizes done before, {len(loaded)} passes", flush=True)

    ahead = 2
    submitted = 0

    def submit_until(index):
        nonlocal submitted
        while submitted <= min(index, len(all_specs) - 1):
            if submitted not in loaded:
                jobs.put(all_specs[submitted])
            submitted += 1

    def wait_rendered(index):
        record = run.passes[index]
        while record.centres is None:
            try:
                done, result, seconds, error = results.get(timeout=0.05)
            except queue.Empty:
                run.pump(0)
                if not renderer.is_alive():
                    raise RuntimeError("the renderer exited")
                continue
            if error:
                raise RuntimeError(f"rendering {run.passes[done].label()}: {error}")
            run.passes[done].unit, run.passes[done].centres = result
            run.render_seconds += seconds

    printed = set()

    def print_ready(final=False):
        for key, records in report.groups().items():
            if key in printed:
                continue
            ready = all((record.played or not cameras) and run.offline_done(record) for record in records)
            if not ready:
                if final:
                    continue
                return
            fps, code, module, speed = key
            if (fps, code, module) not in {k[:3] for k in printed}:
                print(f"\n{fps} fps, {code}, {module:g} px per module ({module * MM_PER_PX:.2f} mm at {DISTANCE_CM:g} cm)", flush=True)
                print(report.header_row(), flush=True)
            print(report.row(speed, fps, records), flush=True)
            printed.add(key)
            group = (fps, code, module)
            if state and group not in state.done and all(other in printed for other in report.groups() if other[:3] == group):
                state.save(run, group, [record for other, items in report.groups().items() if other[:3] == group for record in items])

    try:
        submit_until(ahead)
        index = 0
        for fps in args.rates:
            block = [record for record in run.passes if record.spec["fps"] == fps]
            block_started = time.monotonic()
            run.cameras = []
            for name in cameras if any(record.spec["index"] not in loaded for record in block) else ():
                run.cameras.append(Camera(name, work, args, fps))
            run.pump(2.0)  # both open the camera and settle
            for record in block:
                if record.spec["index"] in loaded:
                    continue
                pass_started = time.monotonic()
                submit_until(record.spec["index"] + ahead)
                wait_rendered(record.spec["index"])
                # The oracle catches up while the slow passes play: it may fall behind by up to
                # ORACLE_BEHIND frames (a GiB of /dev/shm per 3,400), so that the frames on disk stay bounded.
                run.pump(until=lambda: run.oracle_pending <= 2 or run.oracle_frames <= ORACLE_BEHIND)
                if run.cameras:
                    run.play(record)
                    # Every frame is scanned for the passes ours missed, not zbarcam's alone (the
                    # linear codes' turned passes, every Data Matrix): zbarcam's misses need only
                    # whether the oracle read the pass, and that took 2/3 of its time.
                    watched = [camera for camera in run.cameras if camera.name != "zbarcam"] or run.cameras
                    missed = any(not record.reads.get(camera.name) for camera in watched)
                else:
                    record.played, missed = True, False
                if "oracle" in args.readers or "every" in args.readers:
                    record.full = missed
                    with run.oracle_lock:
                        run.oracle_pending += 1
                        run.oracle_frames += len(record.centres)
                    run.oracle_jobs.put(record)
                run.discard(record)
                record.seconds = time.monotonic() - pass_started
                print_ready()
            run.pump(until=lambda: run.oracle_pending == 0)
            for camera in run.cameras:
                camera.stop()
            rates = {}  # (a block loaded from --state has no cameras, its passes their stamps)
            for record in block:
                for name, stamps in record.stamps.items():
                    if len(stamps) > 1:
                        rates.setdefault(name, []).append((len(stamps) - 1) / ((stamps[-1] - stamps[0]) / 1e9))
            run.cameras = []
            print_ready()
            ticks = ", ".join(f"{name} {sorted(values)[len(values) // 2]:.1f}" for name, values in rates.items() if values)
            minutes = (time.monotonic() - block_started) / 60
            if any(record.spec["index"] in loaded for record in block):  # the wall time of its passes, before and after
                minutes = sum(record.seconds for record in block) / 60
            print(f"  ({fps} fps block: {minutes:.1f} min"
                  + (f"; camera ticks/s, median over passes: {ticks}" if ticks else "") + ")", flush=True)
        jobs.put(None)
        print_ready(final=True)
        print(report.summary(), flush=True)
        print(report.false_reads(), flush=True)
        print(report.misses(), flush=True)
        if state and state.resumed:
            print(f"\nwent on from --state {args.state} {state.resumed} time(s): {len(loaded)} passes loaded, played before", flush=True)
        print(f"\nwall time {(time.monotonic() - started) / 60:.1f} min; rendering {run.render_seconds / 60:.1f} min (one process, nice 10); "
              f"oracle {run.oracle_seconds / 60:.1f} min (nice 10)", flush=True)
    except (KeyboardInterrupt, SystemExit):
        # Stopped early (Ctrl-C, a kill): a long run still names the false reads, duplicates and
        # misses of the passes it played.
        print("\nstopped early; the passes played so far:", flush=True)
        print(report.false_reads(), flush=True)
        print(report.misses(), flush=True)
        raise
    finally:
        for camera in run.cameras:
            try:
                camera.stop()
            except Exception:
                pass
        renderer.kill()
        if args.keep:
            print(f"frames kept in {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
