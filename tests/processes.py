"""Shared test helpers: stopping a cribcam process as a player does, with Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable

from waiting import wait_until


def stop_with_ctrl_c(process: subprocess.Popen) -> str:
    """Sends Ctrl-C (SIGINT) and asserts the process exits cleanly (0) within 20 s; killed
    whatever happens. Returns what it wrote to its standard error."""
    process.send_signal(signal.SIGINT)
    try:
        assert process.wait(timeout=20) == 0
    finally:
        process.kill()
        _, err = process.communicate()
    return err


def ctrl_c_from_terminal(command: list[str], under_way: Callable[[], bool],
                         wait: float = 120.0) -> subprocess.CompletedProcess:
    """Runs ``command`` in its own process group and, once ``under_way()`` (checked until
    ``wait`` seconds have passed, failing with what it wrote otherwise), sends Ctrl-C to the
    whole group, as a terminal does to every process of a command. Returns the finished
    process; killed whatever happens."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        wait_until(lambda: under_way() or process.poll() is not None, timeout=wait, step=0.2,
                   message="not under way")
        if not under_way():  # it ended before
            out, err = process.communicate(timeout=60)
            raise AssertionError(f"not under way: {(out + err)[-3000:]}")
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    return subprocess.CompletedProcess(command, process.returncode, out, err)
