"""Load test of the web app on loopback: photos and card lists, several at a time.

Starts `cribcam serve` on a free loopback port (or uses --url, a server already running on
this machine), sends --requests requests, --concurrency at a time, on keep-alive
connections, mixing POST /api/read photos and POST /api/count card lists, and reports
p50/p95/p99 latency per kind, the errors (any answer but 200, or a failed connection: must
be 0) and the server's resident memory before and after (sampled as it runs, so that growth
shows). Bounded: at most --requests requests and --time-limit seconds, loopback only.

Run:
    python bench/load_test.py                          # 600 requests, 8 at a time
    python bench/load_test.py --model models --requests 1000
    python bench/load_test.py --url http://127.0.0.1:8000 --server-pid 12345

Photos are sent only when the server has a model (GET /api/status); without one only card
lists are sent, and the report says so. Exit status 1 when any request failed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = ROOT / "tests" / "data" / "photos"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
DECK = [rank + suit for suit in "CDHS" for rank in "A23456789TJQK"]


@dataclass
class Job:
    kind: str  # "count" or "photo"
    path: str
    body: bytes
    content_type: str


@dataclass
class Result:
    kind: str
    status: int  # 0: no answer (connection failed)
    seconds: float
    error: str = ""


def count_job(rng: random.Random) -> Job:
    variant = rng.choice(["six-card", "six-card", "six-card", "five-card"])
    crib = rng.random() < 0.3
    size = 4 if crib or variant == "six-card" else 3
    cards = rng.sample(DECK, size + 1)
    body = {"hand": cards[:size], "starter": cards[size], "crib": crib, "variant": variant}
    if rng.random() < 0.6:
        body["claim"] = rng.randint(0, 29)
    return Job("count", "/api/count", json.dumps(body).encode(), "application/json")


def photo_job(rng: random.Random, photos: list[tuple[str, bytes]]) -> Job:
    name, data = rng.choice(photos)
    boundary = f"loadtest{rng.getrandbits(48):x}"
    fields = {"annotate": "true"} if rng.random() < 0.5 else {}
    if rng.random() < 0.3:
        fields["claim"] = str(rng.randint(0, 29))
    body = b"".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"
                    .encode() for k, v in fields.items())
    body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; "
             f"filename=\"{name}\"\r\nContent-Type: image/jpeg\r\n\r\n").encode()
    body += data + f"\r\n--{boundary}--\r\n".encode()
    return Job("photo", "/api/read", body, f"multipart/form-data; boundary={boundary}")


class Client:
    """One keep-alive connection per worker thread."""

    def __init__(self, host: str, port: int, timeout: float):
        self.host, self.port, self.timeout = host, port, timeout
        self.local = threading.local()

    def send(self, job: Job) -> Result:
        start = time.perf_counter()
        for attempt in (1, 2):  # a keep-alive connection the server closed is reopened once
            connection = getattr(self.local, "connection", None)
            if connection is None:
                connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
                self.local.connection = connection
            try:
                connection.request("POST", job.path, body=job.body,
                                   headers={"Content-Type": job.content_type})
                response = connection.getresponse()
                payload = response.read()
                elapsed = time.perf_counter() - start
                if response.status != 200:
                    return Result(job.kind, response.status, elapsed, payload[:200].decode("utf-8", "replace"))
                json.loads(payload)  # a 200 must be JSON
                return Result(job.kind, 200, elapsed)
            except (http.client.HTTPException, OSError, ValueError) as exc:
                connection.close()
                self.local.connection = None
                if attempt == 2 or isinstance(exc, ValueError):
                    return Result(job.kind, 0, time.perf_counter() - start, repr(exc))
        raise AssertionError("unreachable")


def rss_mb(pid: int | None) -> float | None:
    """Resident memory of a process in MB (Linux /proc; psutil elsewhere if installed)."""
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    try:
        import psutil

        return psutil.Process(pid).memory_info().rss / 2**20
    except Exception:
        return None


def start_server(model: Path | None, threads: int | None) -> tuple[subprocess.Popen, str]:
    command = [sys.executable, "-m", "cribcam", "serve", "--host", "127.0.0.1", "--port", "0"]
    if threads:
        command += ["--threads", str(threads)]
    if model:
        command += ["--model", str(model)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT)
    line = process.stdout.readline()
    if not line.startswith("cribcam serve: http://"):
        process.kill()
        raise SystemExit(f"the server did not start: {line}{process.stderr.read()}")
    return process, line.split()[2].rstrip("/")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=600, help="requests to send (default 600)")
    parser.add_argument("--concurrency", type=int, default=8, help="at a time (default 8)")
    parser.add_argument("--photo-share", type=float, default=0.35,
                        help="share of photo requests when the server has a model (default 0.35)")
    parser.add_argument("--photos", type=Path, default=PHOTOS, help="folder of .jpg photos")
    parser.add_argument("--model", type=Path, help="model for the server this script starts")
    parser.add_argument("--threads", type=int, help="server threads (default: cribcam serve's)")
    parser.add_argument("--url", help="a server already running on loopback (default: start one)")
    parser.add_argument("--server-pid", type=int, help="its process id, to report its memory")
    parser.add_argument("--time-limit", type=float, default=600,
                        help="stop sending after this many seconds (default 600)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    if not 1 <= args.requests <= 100_000 or not 1 <= args.concurrency <= 64:
        parser.error("--requests 1-100000 and --concurrency 1-64")

    process = None
    if args.url:
        url, pid = args.url.rstrip("/"), args.server_pid
    else:
        process, url = start_server(args.model, args.threads)
        pid = process.pid
    parts = urlsplit(url)
    if parts.hostname not in LOOPBACK:
        parser.error(f"--url must be on loopback ({', '.join(sorted(LOOPBACK))}), not {parts.hostname}")
    try:
        return run(args, url, parts, pid)
    finally:
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def run(args, url: str, parts, pid: int | None) -> int:
    client = Client(parts.hostname, parts.port or 80, timeout=120)
    connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=30)
    connection.request("GET", "/api/status")
    status = json.loads(connection.getresponse().read())
    connection.close()

    rng = random.Random(args.seed)
    photos = [(p.name, p.read_bytes()) for p in sorted(args.photos.glob("*.jpg"))]
    use_photos = bool(status.get("model")) and bool(photos) and args.photo_share > 0
    if not use_photos:
        why = "the server has no model" if not status.get("model") else "no photos given"
        print(f"note: {why}: sending card lists only (photos would all be 503s)")

    def make_job() -> Job:
        if use_photos and rng.random() < args.photo_share:
            return photo_job(rng, photos)
        return count_job(rng)

    # Warm-up: the first requests allocate buffers (onnxruntime, Flask); memory is measured after.
    warm = [photo_job(rng, photos) for _ in range(4)] if use_photos else []
    warm += [count_job(rng) for _ in range(12)]
    with ThreadPoolExecutor(args.concurrency) as pool:
        warm_results = list(pool.map(client.send, warm))
    if any(r.status != 200 for r in warm_results):
        bad = next(r for r in warm_results if r.status != 200)
        print(f"warm-up failed: {bad.status} {bad.error}")
        return 1

    jobs = [make_job() for _ in range(args.requests)]
    memory = [(0, rss_mb(pid))]
    results: list[Result] = []
    lock = threading.Lock()
    deadline = time.monotonic() + args.time_limit
    every = max(1, args.requests // 10)

    def work(job: Job) -> None:
        if time.monotonic() > deadline:
            return
        result = client.send(job)
        with lock:
            results.append(result)
            if len(results) % every == 0:
                memory.append((len(results), rss_mb(pid)))

    start = time.perf_counter()
    with ThreadPoolExecutor(args.concurrency) as pool:
        list(pool.map(work, jobs))
    wall = time.perf_counter() - start
    memory.append((len(results), rss_mb(pid)))

    errors = [r for r in results if r.status != 200]
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "server": url, "model": bool(status.get("model")), "photos_sent": use_photos,
        "requests": len(results), "planned": args.requests, "concurrency": args.concurrency,
        "wall_s": round(wall, 2), "throughput_rps": round(len(results) / wall, 1),
        "errors": len(errors), "kinds": {},
        "memory_mb": [(n, round(m, 1) if m is not None else None) for n, m in memory],
    }
    for kind in ("count", "photo", "all"):
        times = [r.seconds * 1000 for r in results if kind in ("all", r.kind)]
        if times:
            report["kinds"][kind] = {
                "n": len(times), "p50_ms": round(percentile(times, 50), 1),
                "p95_ms": round(percentile(times, 95), 1), "p99_ms": round(percentile(times, 99), 1),
                "max_ms": round(max(times), 1), "mean_ms": round(statistics.fmean(times), 1)}

    print(f"{report['requests']} requests ({args.concurrency} at a time) to {url} in "
          f"{report['wall_s']} s: {report['throughput_rps']} requests/s; "
          f"model: {'yes' if report['model'] else 'no'}")
    print(f"{'kind':<6} {'n':>5} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for kind, f in report["kinds"].items():
        print(f"{kind:<6} {f['n']:>5} {f['p50_ms']:>8} {f['p95_ms']:>8} {f['p99_ms']:>8} {f['max_ms']:>8}")
    print(f"errors: {len(errors)}" + (f" (first: {errors[0].status} {errors[0].error})" if errors else ""))
    samples = [m for _, m in memory if m is not None]
    if samples:
        half = samples[len(samples) // 2]
        print(f"server memory (RSS): {samples[0]:.1f} MB after warm-up, {samples[-1]:.1f} MB after, "
              f"peak {max(samples):.1f} MB; second half {samples[-1] - half:+.1f} MB")
        print("  samples (requests done: MB): "
              + ", ".join(f"{n}: {m:.0f}" for n, m in memory if m is not None))
        report["rss_before_mb"], report["rss_after_mb"] = round(samples[0], 1), round(samples[-1], 1)
        report["rss_second_half_growth_mb"] = round(samples[-1] - half, 1)
    else:
        print("server memory: unknown (give --server-pid for a server this script did not start)")
    if len(results) < args.requests:
        print(f"stopped at the time limit: {len(results)} of {args.requests} requests sent")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
