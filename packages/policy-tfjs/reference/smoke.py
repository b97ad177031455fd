"""The policy-tfjs reference's smoke check: makes the tiny Qwen3 and Llama models (tiny_hf_models.py,
no model hub) in a scratch directory and runs one forward pass of each through transformers, checking
the logits' shape. Exits non-zero, saying why, when any step fails."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

here = Path(__file__).parent
scratch = Path(tempfile.mkdtemp(prefix="pilotrl-policy-tfjs-smoke-"))
env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
try:
    subprocess.run([sys.executable, str(here / "tiny_hf_models.py"), "make", str(scratch)], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    names = ["qwen3", "llama", "qwen3-bf16"]
    answer = json.loads(subprocess.run(
        [sys.executable, str(here / "tiny_hf_models.py"), "query", *(str(scratch / n) for n in names)],
        input=json.dumps({"ids": [[1, 2, 3, 4]]}), capture_output=True, text=True, check=True, env=env).stdout)
    shapes = {n: (len(answer[n]["logits"][0]), len(answer[n]["logits"][0][0])) for n in names}
    if any(rows != 4 for rows, _ in shapes.values()):
        sys.exit(f"unexpected logits shapes: {shapes}")
    print("one forward pass of each tiny model: " + ", ".join(f"{n} {r}x{v}" for n, (r, v) in shapes.items()))
finally:
    shutil.rmtree(scratch, ignore_errors=True)
