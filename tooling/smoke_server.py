"""A reference server started by a setup's smoke check (llama.cpp's, SkyRL's): on a free loopback port,
its output kept in a file, ready when an URL answers; any failure exits naming how the server ended
(exit code or signal) with the last of its log."""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SmokeServer:
    def __init__(self, name, argv, **popen):
        self.name = name
        self.log = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True, **popen)

    def fail(self, why):
        """Exits with `why`, how the server ended (if it did) and the last of its log."""
        time.sleep(0.5)
        code = self.process.poll()
        how = "" if code is None else f" ({f'signal {-code}' if code < 0 else f'exit code {code}'})"
        self.log.seek(0)
        sys.exit(f"{self.name}: {why}{how}; the last of its log:\n{self.log.read()[-3000:]}")

    def wait_ready(self, url, timeout_s):
        deadline = time.monotonic() + timeout_s
        while True:
            if self.process.poll() is not None:
                self.fail("exited before it was ready")
            try:
                urllib.request.urlopen(url, timeout=2).read()
                return
            except OSError:
                if time.monotonic() > deadline:
                    self.fail(f"was not ready within {timeout_s} s")
                time.sleep(0.25)

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.log.close()
