#!/usr/bin/env python3
"""The daemon beside zbarcam, on the same emulated camera, in one run.

Both read frames through libv4l2, so both run in front of the same emulator
(Tests/Emulators/libv4l2emu, preloaded before libv4l2). Printed as ours / zbarcam:
  - CPU seconds per minute on an empty, slightly noisy scene at 30 fps;
  - latency from the first frame carrying a code to its line (socket for us,
    stdout for zbarcam), p50 and p99 over many appearances;
  - RSS at the end of the idle phase;
  - throughput: the highest frame rate at which every code is still read when
    the code changes on every frame (a new QR code per camera tick, N codes per
    rate, rates swept up then bisected);
  - RSS over a soak of mixed scenes (empty noisy scene, codes appearing and
    disappearing, codes changing), sampled every 10 s: at minute 2, at the end,
    the growth between them, and where our RSS comes from (/proc/PID/smaps).
`--only idle,throughput,soak` picks parts (default: all three, in that order;
each part runs ours, then zbarcam).
zbarcam is Debian 12's, run as `zbarcam --nodisplay --infmt=GREY` (without
--infmt it segfaults in zbar_negotiate_format).
"""
import argparse, bisect, collections, os, re, select, signal, socket, statistics, struct, subprocess, sys, tempfile, time

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


def hwm_kib(pid):
    """VmHWM: the peak resident set the kernel recorded for the process."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def memory_kib(pid):
    """VmRSS and its split (RssAnon, RssFile, RssShmem) from /proc/PID/status, KiB."""
    fields = {}
    for line in open(f"/proc/{pid}/status"):
        key = line.split(":", 1)[0]
        if key in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
            fields[key] = int(line.split()[1])
    return fields


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
        # Seconds to wait for the socket at start and for the exit at stop (longer under valgrind).
        self.start_timeout, self.stop_timeout = 20, 5

    def start(self):
        if getattr(self.args, "drop_caches", False):
            # The binaries and libraries come from disk, as after a boot: the kernel maps what a
            # freshly written file has in page cache differently (see README, "Memory").
            os.sync()
            with open("/proc/sys/vm/drop_caches", "w") as caches:
                caches.write("3\n")
        if self.name == "ours":
            sock_path = os.path.join(self.work, "scan.sock")
            conf = os.path.join(self.work, "bench.conf")
            with open(conf, "w") as f:
                f.write(f'camera:\n  device: "{self.node}"\nsocket:\n  format: plain\n  path: {sock_path}\n')
                # gate-bench and order-symbols make their own arguments, without --ack.
                if getattr(self.args, "ack", False):
                    f.write("  acknowledge: required\n")
                f.write(self.args.extra_config.replace("\\n", "\n"))
            self.process = subprocess.Popen(
                [self.args.binary, "run", "--config", conf, "--log-level", "warning"],
                env=self.env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.work, "ours.log"), "w"))
            deadline = time.time() + self.start_timeout
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

    def drain(self):
        """Every complete line that has arrived so far, without waiting."""
        lines = []
        while select.select([self.fd], [], [], 0)[0]:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                break
            self.buffer += chunk
        while b"\n" in self.buffer:
            line, self.buffer = self.buffer.split(b"\n", 1)
            lines.append(line.decode(errors="replace"))
        return lines

    def counters(self):
        """Ours only: the daemon's frame counters, from `metrics` on a second connection."""
        if self.name != "ours":
            return {}
        found, text = {}, b""
        with socket.socket(socket.AF_UNIX) as query:
            query.settimeout(3)
            query.connect(os.path.join(self.work, "scan.sock"))
            query.sendall(b"metrics\n")
            while not re.search(rb"(^|\n)ok\n", text):
                chunk = query.recv(65536)
                if not chunk:
                    break
                text += chunk
        for line in text.decode(errors="replace").splitlines():
            match = re.match(r'kiosk_scanner_(frames_total\{outcome="(\w+)"\}|decode_seconds_sum|decode_seconds_count) (\S+)', line)
            if match:
                found[match.group(2) or match.group(1)] = float(match.group(3))
        return found

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(self.stop_timeout)
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

    latencies, acks = [], []
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
            if args.ack and name == "ours":
                # The POS acks at once; the read is delivered when the daemon has the ack, which
                # its reply (`ok`) tells: the figure is the frame to that reply.
                reader.stream.sendall(b"ack\n")
                while True:
                    reply, replied = reader.line(3)
                    if reply is None or reply == "ok" or reply.startswith("error"):
                        break
                if reply == "ok" and shown:
                    acks.append((replied - shown[0]) / 1e6)
        # Blank long enough for the code to count as gone (our absence time is 0.5 s).
        plug(node, background=200, noise=3, fps=30, formats="GREY", sizes=f"{args.width}x{args.height}")
        time.sleep(0.6)
        open(log, "w").close()  # keep the log short: only this appearance's frames matter
    peak = hwm_kib(reader.process.pid)
    reader.stop()
    return idle, rss, latencies, missed, peak, acks


# ---------------------------------------------------------------- throughput

class Ticks:
    """The emulator's log, written into a FIFO: one `frame` or `drop` line per camera tick, read as
    it happens, so that the next code is put in the node file right after each tick. Held open
    read-write so that the emulator's open-per-line never finds it without a reader."""

    def __init__(self, path):
        os.mkfifo(path)
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        self.buffer = b""

    def lines(self):
        try:
            while True:
                chunk = os.read(self.fd, 65536)
                self.buffer += chunk
                if len(chunk) < 65536:
                    break
        except BlockingIOError:
            pass
        *complete, self.buffer = self.buffer.split(b"\n")
        events = []
        for line in complete:
            parts = line.decode(errors="replace").split()
            if parts and parts[0] in ("frame", "drop"):
                events.append((parts[0], dict(part.split("=", 1) for part in parts[1:] if "=" in part)))
        return events

    def close(self):
        os.close(self.fd)


def qr_codes(work, texts, module=4):
    """PNG of each text (qrencode, `module` pixels per module), made once per text."""
    paths = []
    for text in texts:
        png = os.path.join(work, f"{text}.png" if module == 4 else f"{text}-s{module}.png")
        if not os.path.exists(png):
            subprocess.run(["qrencode", "-s", str(module), "-m", "4", "-o", png, text], check=True)
        paths.append(png)
    return paths


def pump(reader, ticks, seconds, received):
    """Keeps both pipes drained for `seconds` (the emulator blocks on a full FIFO)."""
    deadline = time.monotonic() + seconds
    while (remaining := deadline - time.monotonic()) > 0:
        select.select([reader.fd] + ([ticks.fd] if ticks else []), [], [], remaining)
        received.update(reader.drain())
        if ticks:
            ticks.lines()


def run_rate(reader, ticks, node, scene, fps, work, codes, module):
    """Shows `codes` QR codes at `fps`, one per camera tick, and counts those the reader delivered.

    A code counts as presented once a tick is known to have carried it: a `frame` line naming its
    image, or a `drop` line (no buffer was queued, as a real camera loses the frame) stamped after
    the code was written. Only then is the next code written, so no code is skipped by this
    driver; a tick that still carried the previous code (the driver was late) is counted as late."""
    texts = [f"tp{fps:04d}-{index:03d}" for index in range(codes)]
    images = qr_codes(work, texts, module)
    received = set()
    plug(node, **scene, fps=fps)
    pump(reader, ticks, 1.5, received)  # settle at the new rate on a blank scene
    before = reader.counters()
    received.clear()
    cpu_start = cpu_seconds(reader.process.pid)

    writes = 0

    def show(index):
        # The pad changes the file's size from one write to the next: the emulator re-reads the node
        # when its inode, mtime or size changed, and ext4 may hand the same inode back within one
        # timestamp tick.
        nonlocal writes
        writes += 1
        plug(node, **scene, fps=fps, frame=images[index], pad="x" * (1 + writes % 4))
        return time.monotonic_ns()

    received.update(reader.drain())
    ticks.lines()  # ticks of the blank scene so far: not this run's
    index, written = 0, show(0)
    shown = dropped = late = behind = 0
    first = last = None
    while index < codes:
        if not select.select([ticks.fd, reader.fd], [], [], 3)[0]:
            raise RuntimeError(f"{reader.name}: no camera tick for 3 s at {fps} fps")
        received.update(reader.drain())
        for event, fields in ticks.lines():
            if index >= codes:
                break
            stamp = int(fields["t"])
            if event == "frame" and fields.get("image") == images[index]:
                shown += 1
            elif event == "drop" and stamp > written + 200_000:
                dropped += 1
            else:
                late += 1
                behind += 1
                if behind >= 3:  # never seen so far: write it again
                    written, behind = show(index), 0
                continue
            behind = 0
            first = first or stamp
            last = stamp
            index += 1
            if index < codes:
                written = show(index)
    after = reader.counters()  # frames of the codes only, before the blank scene that follows
    cpu = cpu_seconds(reader.process.pid) - cpu_start
    plug(node, **scene, fps=fps)
    pump(reader, ticks, 2, received)  # lines of the last frames (zbarcam works through its queue)
    delivered = len(received & set(texts))
    span = (last - first) / 1e9 if last and first and last > first else float("nan")
    detail = {
        "fps": fps, "delivered": delivered, "codes": codes, "achieved": (codes - 1) / span if span == span else float("nan"),
        "shown": shown, "dropped": dropped, "late": late, "cpu": cpu,
    }
    for key in ("decoded", "gated", "skipped", "decode_seconds_sum", "decode_seconds_count"):
        if key in after:
            detail[key] = after[key] - before.get(key, 0)
    return detail


def describe_rate(name, d):
    text = (f"  {name:8} {d['fps']:4d} fps: {d['delivered']:3d}/{d['codes']} read, ticks at {d['achieved']:6.1f}/s "
            f"({d['shown']} shown, {d['dropped']} dropped by the camera, {d['late']} late), CPU {d['cpu']:.2f} s")
    if "decoded" in d:
        mean = d["decode_seconds_sum"] / d["decode_seconds_count"] * 1e3 if d.get("decode_seconds_count") else float("nan")
        text += (f"; frames decoded {d['decoded']:.0f}, skipped for a newer {d['skipped']:.0f}, gated {d['gated']:.0f},"
                 f" decode {mean:.2f} ms")
    return text


def throughput(name, args, work):
    """Sweeps the frame rate up (the ladder) until a rate misses a code, then bisects between the
    last rate that held and the first that did not. Returns the highest rate that held and every run."""
    node = os.path.join(work, "video0")
    fifo = os.path.join(work, f"ticks-{name}")
    ticks = Ticks(fifo)
    env = dict(os.environ, LD_PRELOAD=args.emulator, KSEMU_DEVICE=node, KSEMU_LOG=fifo)
    scene = dict(background=200, noise=3, formats="GREY", sizes=f"{args.width}x{args.height}")
    plug(node, **scene, fps=30)
    reader = Reader(name, work, node, env)
    reader.args = args
    reader.start()
    pump(reader, ticks, 2, set())
    runs = {}

    def attempt(fps):
        runs[fps] = run_rate(reader, ticks, node, scene, fps, work, args.throughput_codes, args.module_px)
        print(describe_rate(name, runs[fps]), flush=True)
        return runs[fps]["delivered"] == runs[fps]["codes"]

    held = failed = None
    try:
        for fps in args.rates:
            if attempt(fps):
                held = fps
            else:
                failed = fps
                break
        low = held or 0
        for _ in range(args.bisect_steps if failed else 0):
            middle = (low + failed) // 2
            if middle <= low or middle >= failed:
                break
            if attempt(middle):
                low = held = middle
            else:
                failed = middle
    finally:
        reader.stop()
        ticks.close()
        os.unlink(fifo)
    return {"held": held, "failed": failed, "runs": runs}


# ---------------------------------------------------------------- soak

SOAK_CYCLE = 60  # seconds: empty scene, then codes appearing and disappearing, then codes changing


def soak_scene(elapsed, images):
    """The scene `elapsed` seconds into the soak: each minute, 20 s of the empty noisy scene, 20 s of
    codes shown for 1 s with 1 s of empty scene between them, 20 s of a new code every 1/30 s."""
    cycle, phase = divmod(elapsed, SOAK_CYCLE)
    if phase < 20:
        return None
    if phase < 40:
        step, within = divmod(phase - 20, 2)
        return images[int(cycle * 10 + step) % len(images)] if within < 1 else None
    return images[int(elapsed * 30) % len(images)]


def smaps_breakdown(pid, executable):
    """RSS by mapping group from /proc/PID/smaps, KiB: {group: [rss, of which anonymous]}; and the
    libraries one by one. The emulator keeps its frames in memfds that the reader does not map,
    so the only frames in the reader's RSS are the camera buffers it maps, as with a real driver."""
    groups = collections.defaultdict(lambda: [0, 0])
    libraries = collections.defaultdict(int)
    group = library = None
    for line in open(f"/proc/{pid}/smaps"):
        parts = line.split()
        if re.match(r"[0-9a-f]+-[0-9a-f]+ ", line):
            name = " ".join(parts[5:])
            library = None
            if name and os.path.realpath(name.split(" (deleted)")[0]) == executable:
                group = "the executable's own mappings"
            elif name == "[heap]":
                group = "[heap] (brk malloc arena)"
            elif name == "[stack]":
                group = "[stack] (main thread)"
            elif name.startswith("/memfd:ksemu-buffer"):
                group = "camera buffers (memfds the reader maps, as a driver's buffers)"
            elif ".so" in name:
                group, library = "shared libraries", os.path.basename(name)
            elif not name:
                group = "anonymous (malloc arenas, thread stacks, large mallocs)"
            else:
                group = f"other ({name})" if not name.startswith("/usr/lib/locale") else "locale files"
        elif parts and parts[0] == "Rss:":
            groups[group][0] += int(parts[1])
            if library:
                libraries[library] += int(parts[1])
        elif parts and parts[0] == "Anonymous:":
            groups[group][1] += int(parts[1])
    rollup = {}
    for line in open(f"/proc/{pid}/smaps_rollup"):
        parts = line.split()
        if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
            rollup[parts[0][:-1]] = int(parts[1])
    return groups, libraries, rollup


def anonymous_by_mapping(pid):
    """Anonymous KiB of each mapping, keyed by its start address and name, with its size: which
    mapping a growth is in (the brk heap, a malloc arena of 64 MiB reserved, a thread stack)."""
    mappings, key = {}, None
    for line in open(f"/proc/{pid}/smaps"):
        parts = line.split()
        if re.match(r"[0-9a-f]+-[0-9a-f]+ ", line):
            start, end = (int(part, 16) for part in parts[0].split("-"))
            key = (parts[0].split("-")[0], " ".join(parts[5:]) or "[anonymous]", (end - start) >> 10)
        elif parts and parts[0] == "Anonymous:" and int(parts[1]):
            mappings[key] = int(parts[1])
    return mappings


def section_residency(pid, executable):
    """The executable's resident pages by ELF section, KiB: the file offset of every page present in
    its mappings (/proc/PID/pagemap), looked up in the section headers (readelf -SW)."""
    sections = []
    listing = subprocess.run(["readelf", "-SW", executable], capture_output=True, text=True).stdout
    for match in re.finditer(r"\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+\S+\s+(\S*A\S*)\s", listing):
        name, kind, offset, size = match.group(1), match.group(2), int(match.group(3), 16), int(match.group(4), 16)
        if kind != "NOBITS" and size:
            sections.append((offset, offset + size, name))
    sections.sort()
    starts = [section[0] for section in sections]
    resident = collections.defaultdict(int)
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for line in maps:
            parts = line.split()
            if len(parts) < 6 or os.path.realpath(parts[5]) != executable:
                continue
            start, end = (int(value, 16) for value in parts[0].split("-"))
            offset = int(parts[2], 16)
            pagemap.seek(start // 4096 * 8)
            entries = pagemap.read((end - start) // 4096 * 8)
            for page, (entry,) in enumerate(struct.iter_unpack("<Q", entries)):
                if not entry >> 63 & 1:
                    continue
                position = offset + page * 4096
                # The section holding most of the page (a page may straddle a boundary).
                best, name = 0, "headers and padding"
                for index in range(max(0, bisect.bisect_right(starts, position) - 1), len(sections)):
                    low, high, section = sections[index]
                    if low >= position + 4096:
                        break
                    overlap = min(high, position + 4096) - max(low, position)
                    if overlap > best:
                        best, name = overlap, section
                resident[f"{name} ({parts[1]})"] += 4
    return resident


def soak(name, args, work, images):
    """Plays the mixed scenes for `--soak-minutes`, sampling /proc/PID/status every 10 s."""
    node = os.path.join(work, "video0")
    env = dict(os.environ, LD_PRELOAD=args.emulator, KSEMU_DEVICE=node)
    env.pop("KSEMU_LOG", None)  # no per-frame log: it would grow for the whole soak
    scene = dict(background=200, noise=3, fps=30, formats="GREY", sizes=f"{args.width}x{args.height}")
    plug(node, **scene)
    reader = Reader(name, work, node, env)
    reader.args = args
    reader.start()
    received = []
    pump(reader, None, 2, set())
    duration = args.soak_minutes * 60
    start = time.monotonic()
    cpu_start = cpu_seconds(reader.process.pid)
    samples = [(0.0, memory_kib(reader.process.pid))]
    mappings = [(0.0, anonymous_by_mapping(reader.process.pid))]
    shown, changes = None, 0
    while (elapsed := time.monotonic() - start) < duration:
        image = soak_scene(elapsed, images)
        if image != shown:
            plug(node, **scene, **({"frame": image} if image else {}))
            shown, changes = image, changes + 1
        if elapsed >= len(samples) * 10:
            samples.append((elapsed, memory_kib(reader.process.pid)))
            mappings.append((elapsed, anonymous_by_mapping(reader.process.pid)))
        # Wake at the next 1/30 s step, reading lines meanwhile (a full socket or pipe would stall the reader).
        wait = (int(elapsed * 30) + 1) / 30 - elapsed
        if select.select([reader.fd], [], [], max(0.0, wait))[0]:
            received.extend(reader.drain())
    elapsed = time.monotonic() - start
    samples.append((elapsed, memory_kib(reader.process.pid)))
    cpu = (cpu_seconds(reader.process.pid) - cpu_start) / elapsed * 60
    executable = os.path.realpath(args.binary if name == "ours" else "/usr/bin/zbarcam")
    breakdown = smaps_breakdown(reader.process.pid, executable)
    peak = hwm_kib(reader.process.pid)
    try:
        sections = section_residency(reader.process.pid, executable)
    except (OSError, ValueError):
        sections = {}
    reader.stop()
    # Each mapping whose anonymous memory changed between minute 2 and the end, with when it did.
    early, late = sample_at(mappings, 120), mappings[-1][1]
    growth = []
    for key in sorted(set(early) | set(late)):
        if late.get(key, 0) != early.get(key, 0):
            steps = [f"{when:.0f} s: {previous.get(key, 0)} -> {current.get(key, 0)}"
                     for (when, current), (_, previous) in zip(mappings[1:], mappings[:-1])
                     if when >= 120 and current.get(key, 0) != previous.get(key, 0)]
            growth.append((key, early.get(key, 0), late.get(key, 0), steps[:6]))
    return {"samples": samples, "reads": len(received), "scene_changes": changes, "cpu": cpu, "breakdown": breakdown, "sections": sections,
            "hwm": peak, "anonymous_growth": growth}


def sample_at(samples, seconds):
    """The sample nearest `seconds` into the soak."""
    return min(samples, key=lambda sample: abs(sample[0] - seconds))[1]


def print_anonymous_growth(name, growth):
    if not growth:
        print(f"{name}: no mapping's anonymous memory changed from minute 2 to the end")
        return
    print(f"{name}: mappings whose anonymous memory changed from minute 2 to the end (start, name, size KiB: KiB at 2 min -> end; changes):")
    for (start, mapping, size), early, late, steps in growth:
        print(f"  {start} {mapping} {size}: {early} -> {late} ({', '.join(steps)})")


def print_breakdown(name, breakdown, sections):
    groups, libraries, rollup = breakdown
    print(f"{name}: RSS at the end of the soak by mapping (/proc/PID/smaps), KiB:")
    total = sum(rss for rss, _ in groups.values())
    for group, (rss, anonymous) in sorted(groups.items(), key=lambda item: -item[1][0]):
        print(f"  {rss:8d}  {100 * rss / total if total else 0:5.1f} %  {group} (anonymous {anonymous})")
    top = sorted(libraries.items(), key=lambda item: -item[1])[:8]
    print("  largest libraries: " + ", ".join(f"{library} {rss}" for library, rss in top))
    keys = ("Rss", "Pss", "Shared_Clean", "Shared_Dirty", "Private_Clean", "Private_Dirty", "Anonymous")
    print("  smaps_rollup: " + ", ".join(f"{key} {rollup[key]}" for key in keys if key in rollup))
    if sections:
        top = sorted(sections.items(), key=lambda item: -item[1])
        print("  the executable's resident pages by ELF section (mapping permissions): " +
              ", ".join(f"{section} {kib}" for section, kib in top[:10]) +
              (f", {len(top) - 10} more {sum(kib for _, kib in top[10:])}" if len(top) > 10 else ""))


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


PARTS = ("idle", "throughput", "soak")


def ratio(a, b):
    return a / b if a is not None and b else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/kiosk-scanner"))
    parser.add_argument("--emulator", default=os.path.join(ROOT, ".build/emulators/libv4l2emu.so"))
    parser.add_argument("--only", default=",".join(PARTS),
                        help="comma-separated parts to run: idle (idle CPU, latency, RSS), throughput, soak (default: all)")
    parser.add_argument("--idle-seconds", type=float, default=60)
    parser.add_argument("--appearances", type=int, default=200)
    parser.add_argument("--throughput-codes", type=int, default=200, help="codes per rate, one per frame (default 200)")
    parser.add_argument("--module-px", type=int, default=8,
                        help="pixels per QR module of the throughput codes (default 8: 232 px, big enough that each new "
                             "code passes the change gate at its defaults; at 4, a quarter of the codes are gated)")
    parser.add_argument("--rates", default="30,60,120,240,480",
                        help="frame rates tried in turn until one misses a code (default 30,60,120,240,480)")
    parser.add_argument("--bisect-steps", type=int, default=3,
                        help="bisections between the last rate that held and the first that did not (default 3)")
    parser.add_argument("--soak-minutes", type=float, default=10)
    parser.add_argument("--readers", default="ours,zbarcam", help="comma-separated readers to run (default ours,zbarcam)")
    parser.add_argument("--extra-config", default="", help="YAML appended to our config, \\n for newlines (e.g. 'decoder:\\n  preprocessing: []\\n')")
    parser.add_argument("--drop-caches", action="store_true",
                        help="drop the page cache before each reader starts (root), so peak RSS is measured as after a boot")
    parser.add_argument("--ack", action="store_true",
                        help="ours with socket.acknowledge: required, acking each read: adds frame-to-ack figures (use with --only idle)")
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    args = parser.parse_args()
    parts = [part for part in args.only.split(",") if part]
    if not parts or any(part not in PARTS for part in parts):
        parser.error(f"--only takes a comma-separated list of {', '.join(PARTS)}")
    args.rates = [int(rate) for rate in args.rates.split(",")]
    readers = [name for name in args.readers.split(",") if name]

    work = tempfile.mkdtemp(prefix="kiosk-bench-")
    results = {name: {} for name in readers}
    if "idle" in parts:
        frames = qr_codes(work, [f"bench-{index:02d}" for index in range(20)])
        print(f"daemon vs zbarcam, {args.width}x{args.height} GREY at 30 fps, emulated camera; "
              f"idle {args.idle_seconds:.0f} s, {args.appearances} appearances each", flush=True)
        for name in readers:
            results[name]["idle"] = measure(name, args, work, frames)
    if "throughput" in parts:
        print(f"throughput: {args.throughput_codes} QR codes per rate ({args.module_px} px per module), a new one on every frame; rates "
              f"{', '.join(map(str, args.rates))} until one misses a code, then {args.bisect_steps} bisections", flush=True)
        for name in readers:
            results[name]["throughput"] = throughput(name, args, work)
    if "soak" in parts:
        images = qr_codes(work, [f"soak-{index:03d}" for index in range(120)])
        print(f"soak: {args.soak_minutes:g} min of mixed scenes at 30 fps, RSS sampled every 10 s", flush=True)
        for name in readers:
            results[name]["soak"] = soak(name, args, work, images)
            samples = results[name]["soak"]["samples"]
            print(f"  {name:8} VmRSS MiB every minute: " + " ".join(
                f"{sample_at(samples, minute * 60)['VmRSS'] / 1024:.1f}" for minute in range(int(args.soak_minutes) + 1)), flush=True)
            for key in ("VmRSS", "RssAnon"):
                print(f"  {name:8} {key} KiB every 10 s: " + " ".join(str(sample[1][key]) for sample in samples), flush=True)

    ours, zbar = results.get("ours", {}), results.get("zbarcam", {})
    print(f"{'figure':34} {'ours':>10} {'zbarcam':>10} {'ours/zbarcam':>13}")

    def row(label, a, b, digits=1):
        text = lambda value: f"{value:10.{digits}f}" if value is not None else f"{'-':>10}"
        print(f"{label:34} {text(a)} {text(b)} {ratio(a, b):13.3f}")

    if "idle" in parts:
        get = lambda result, index: result["idle"][index] if result else None
        row("idle CPU s/min (empty, noisy)", get(ours, 0), get(zbar, 0), 2)
        for label, fraction in (("latency p50 ms", 0.5), ("latency p99 ms", 0.99)):
            row(label, percentile(ours["idle"][2], fraction) if ours else None,
                percentile(zbar["idle"][2], fraction) if zbar else None)
        if args.ack and ours:
            for label, fraction in (("frame to ack reply p50 ms", 0.5), ("frame to ack reply p99 ms", 0.99)):
                row(label, percentile(ours["idle"][5], fraction), percentile(zbar["idle"][2], fraction) if zbar else None)
        row("RSS MiB", get(ours, 1) / 1024 if ours else None, get(zbar, 1) / 1024 if zbar else None)
        row("peak RSS (VmHWM) MiB", get(ours, 4) / 1024 if ours else None, get(zbar, 4) / 1024 if zbar else None)
        print(f"{'appearances missed':34} {ours['idle'][3] if ours else '-':>10} {zbar['idle'][3] if zbar else '-':>10}")
        for name, result in (("ours", ours), ("zbarcam", zbar)):
            if result:
                slowest = sorted(result["idle"][2])[-5:][::-1]
                print(f"  {name} slowest appearances, ms (with their order): " + ", ".join(
                    f"{value:.1f} (#{result['idle'][2].index(value) + 1})" for value in slowest))
    if "throughput" in parts:
        def best(result):
            if not result or result["throughput"]["held"] is None:
                return None
            return result["throughput"]["runs"][result["throughput"]["held"]]["achieved"]
        def nominal(result):
            if not result:
                return "-"
            held, failed = result["throughput"]["held"], result["throughput"]["failed"]
            return f"{held or 0}" + ("+" if failed is None else f"<{failed}")
        print(f"{'throughput: rate held (nominal)':34} {nominal(ours):>10} {nominal(zbar):>10}")
        row(f"throughput fps, all {args.throughput_codes} read", best(ours), best(zbar))
    if "soak" in parts:
        minutes = args.soak_minutes
        early = min(2.0, minutes / 2) * 60
        def at(result, seconds, key="VmRSS"):
            return sample_at(result["soak"]["samples"], seconds)[key] / 1024 if result else None
        for key in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
            row(f"soak {key} MiB at {early / 60:g} min", at(ours, early, key), at(zbar, early, key))
            row(f"soak {key} MiB at {minutes:g} min", at(ours, minutes * 60, key), at(zbar, minutes * 60, key))
        growth = lambda result: (at(result, minutes * 60) - at(result, early)) * 1024 if result else None
        peak = lambda result: max(s[1]["VmRSS"] for s in result["soak"]["samples"]) / 1024 if result else None
        row(f"soak VmRSS growth KiB, {early / 60:g}-{minutes:g} min", growth(ours), growth(zbar), 0)
        row("soak VmRSS peak MiB", peak(ours), peak(zbar))
        row("soak VmHWM MiB (kernel's peak)", ours["soak"]["hwm"] / 1024 if ours else None, zbar["soak"]["hwm"] / 1024 if zbar else None)
        row("soak CPU s/min", ours["soak"]["cpu"] if ours else None, zbar["soak"]["cpu"] if zbar else None, 2)
        print(f"{'soak lines read':34} {ours['soak']['reads'] if ours else '-':>10} {zbar['soak']['reads'] if zbar else '-':>10}")
        for name in readers:
            print_breakdown(name, results[name]["soak"]["breakdown"], results[name]["soak"]["sections"])
            print_anonymous_growth(name, results[name]["soak"]["anonymous_growth"])

if __name__ == "__main__":
    main()
