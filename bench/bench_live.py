"""Benchmark live counting end to end: frames per second through the live page.

`cribcam serve` runs as its own process; headless Chromium opens /live with a clip of
synthetic hands (``cribcam data clip``, 640x480) as its camera, and the page sends frames
as fast as the server answers, one at a time, as a player's browser does. The figure is the
frames answered per second over the measured seconds (after a warm-up), with the time each
frame took from the page's own resource timing. ``--server-only`` also posts the clip's
frames from Python, one at a time, to tell the browser's share from the server's.

Run:
    python bench/bench_live.py [--model MODELS_DIR] [--seconds 20] [--server-only]
    python bench/bench_live.py --soak 10     # one live session of 10 minutes: memory flat?
Target (2-core machine, 640-pixel frames, issue 19): at least 8 frames per second server-side.
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"


def start_server(model: Path) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "cribcam", "serve", "--port", "0", "--model", str(model)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    line = process.stdout.readline()
    if not line.startswith("cribcam serve: http"):
        process.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return process, line.split()[2].rstrip("/")


def through_the_page(url: str, clip: Path, warmup: float, seconds: float) -> dict:
    """Frames per second and per-frame times of the live page playing ``clip``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--use-fake-ui-for-media-stream",
            "--use-fake-device-for-media-stream", f"--use-file-for-fake-video-capture={clip}"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.add_init_script("performance.setResourceTimingBufferSize(100000)")
        answered: list[float] = []
        page.on("response", lambda r: answered.append(time.perf_counter())
                if r.url.endswith("/api/live/frame") and r.status == 200 else None)
        page.goto(url + "/live")
        page.wait_for_timeout(warmup * 1000)
        start, first = time.perf_counter(), len(answered)
        page.wait_for_timeout(seconds * 1000)
        end, last = time.perf_counter(), len(answered)
        durations = page.evaluate("performance.getEntriesByType('resource')"
                                  ".filter(e => e.name.endsWith('/api/live/frame')).map(e => e.duration)")
        shown = page.locator("#fps").text_content()
        hands = page.locator("#history li").count()
        browser.close()
    durations = sorted(durations[first:last])
    return {"fps": (last - first) / (end - start), "frames": last - first, "shown": shown,
            "median_ms": statistics.median(durations), "p90_ms": durations[int(0.9 * len(durations)) - 1],
            "hands": hands}


def clip_jpegs(clip: Path, frames: int) -> list[bytes]:
    """The clip's first ``frames`` frames as JPEG, as the page sends them."""
    import cv2

    capture = cv2.VideoCapture(str(clip))
    jpegs = []
    while len(jpegs) < frames and (frame := capture.read())[0]:
        jpegs.append(cv2.imencode(".jpg", frame[1], [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes())
    capture.release()
    return jpegs


def post_frames(url: str, jpegs) -> Iterator[float]:
    """Posts ``jpegs`` one at a time to the live API in one session, as the page does, and
    yields each answer's seconds."""
    import http.client
    import uuid
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    boundary = uuid.uuid4().hex
    session = None
    try:
        for jpeg in jpegs:
            body = io.BytesIO()
            if session:
                body.write(f'--{boundary}\r\nContent-Disposition: form-data; name="session"\r\n\r\n'
                           f"{session}\r\n".encode())
            body.write(f'--{boundary}\r\nContent-Disposition: form-data; name="image"; filename="f.jpg"\r\n'
                       f"Content-Type: image/jpeg\r\n\r\n".encode() + jpeg + f"\r\n--{boundary}--\r\n".encode())
            start = time.perf_counter()
            connection.request("POST", "/api/live/frame", body.getvalue(),
                               {"Content-Type": f"multipart/form-data; boundary={boundary}"})
            response = connection.getresponse()
            answer = response.read()
            if response.status != 200:
                raise SystemExit(f"the server answered {response.status}: {answer[:200]!r}")
            session = json.loads(answer)["session"]
            yield time.perf_counter() - start
    finally:
        connection.close()


def server_only(url: str, clip: Path, frames: int) -> dict:
    """Frames per second posting the clip's frames (as JPEG, like the page) one at a time."""
    times = list(post_frames(url, clip_jpegs(clip, frames)))[5:]  # after a warm-up
    return {"fps": len(times) / sum(times), "median_ms": 1000 * statistics.median(times)}


def soak(url: str, pid: int, clip: Path, minutes: float, every: float = 30.0) -> dict:
    """The server's memory over ``minutes`` of one live session, the clip's frames sent over and
    over: resident MB sampled every ``every`` seconds, and the growth over the second half."""
    from load_test import rss_mb  # a sibling in bench/

    started = time.monotonic()
    samples, frames = [(0.0, rss_mb(pid))], 0
    for _ in post_frames(url, itertools.cycle(clip_jpegs(clip, 240))):
        frames += 1
        elapsed = time.monotonic() - started
        if elapsed - samples[-1][0] >= every:
            samples.append((elapsed, rss_mb(pid)))
        if elapsed >= minutes * 60:
            break
    samples.append((time.monotonic() - started, rss_mb(pid)))
    half = next(mb for seconds, mb in samples if seconds >= samples[-1][0] / 2)
    return {"frames": frames, "samples": samples, "second_half_growth_mb": samples[-1][1] - half}


def main() -> None:
    # Started in the background (nohup ... &), this process ignores Ctrl-C, and so would the
    # servers it starts and stops with Ctrl-C: give them a terminal's Ctrl-C.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=ROOT / "models",
                        help="folder with finder.onnx and classifier.onnx (default: the bundled models)")
    parser.add_argument("--clip", type=Path, help="a .y4m clip (default: render one, 640x480 at 30 fps)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds measured")
    parser.add_argument("--server-only", action="store_true", help="also post frames from Python")
    parser.add_argument("--soak", type=float, metavar="MINUTES",
                        help="instead, one live session of this many minutes from Python, the server's memory sampled")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-live-") as folder:
        folder = Path(folder)
        model = args.model
        if not (model / "finder.onnx").is_file():
            raise SystemExit(f"no models in {model}: pass --model DIR")
        clip = args.clip
        if clip is None:
            from cribcam.datagen.card_art import load_decks
            from cribcam.datagen.clips import ClipSpec, write_clip

            # 30 fps, as a webcam films: the page never sends a frame twice, so a slower clip
            # would cap the figure at its own rate.
            clip = folder / "hands.y4m"
            write_clip(clip, ClipSpec(hands=2, hold_seconds=4.0, fps=30, seed=1),
                       load_decks(split="heldout", progress=False))
        process, url = start_server(model)
        try:
            if args.soak:
                soaked = soak(url, process.pid, clip, args.soak)
            else:
                page = through_the_page(url, clip, args.warmup, args.seconds)
                alone = server_only(url, clip, 60) if args.server_only else None
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)
    if args.soak:
        samples = ", ".join(f"{seconds / 60:.1f} min: {mb:.0f} MB" for seconds, mb in soaked["samples"])
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; models: {model}")
        print(f"live soak: {soaked['frames']} frames in one session over {args.soak:g} min; server memory {samples}")
        print(f"growth over the second half: {soaked['second_half_growth_mb']:+.1f} MB")
        return

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    print(f"machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"models: {model}; load average {os.getloadavg()[0]:.2f}")
    print(f"clip: {args.clip or 'rendered, 640x480 at 30 fps'}; frames sent at 640 pixels (JPEG 0.8)")
    print(f"live page end to end: {page['fps']:.1f} frames/s over {page['frames']} frames "
          f"({args.seconds:.0f} s after {args.warmup:.0f} s warm-up); per frame median "
          f"{page['median_ms']:.0f} ms, p90 {page['p90_ms']:.0f} ms; page showed {page['shown']!r}; "
          f"hands locked {page['hands']}")
    if alone:
        print(f"server only (frames posted from Python): {alone['fps']:.1f} frames/s, "
              f"median {alone['median_ms']:.0f} ms")


if __name__ == "__main__":
    main()
