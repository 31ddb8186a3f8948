"""Shared test helper: stopping a cribcam process as a player does, with Ctrl-C."""

from __future__ import annotations

import signal
import subprocess


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
