"""The Tinker reference's smoke check: makes a tiny Qwen3 (make_tiny_model.py, no model hub), starts
SkyRL's Tinker server on it (JAX on the CPU) on a free loopback port, and trains one step through the
official `tinker` SDK: a LoRA model, one cross-entropy forward_backward and one AdamW optim_step.
Exits non-zero, saying why, when the server does not start, dies, or the step fails."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tooling"))
from smoke_server import SmokeServer, free_port  # noqa: E402

here = Path(__file__).parent
scratch = Path(tempfile.mkdtemp(prefix="pilotrl-tinker-smoke-"))
model = scratch / "tiny-qwen3"
subprocess.run([sys.executable, str(here / "make_tiny_model.py"), str(model)], check=True,
               env={**os.environ, "TOKENIZERS_PARALLELISM": "false"}, stdout=subprocess.DEVNULL)

port = free_port()
bin_dir = Path(sys.prefix) / "bin"
server = SmokeServer("skyrl.tinker.api", [
    str(bin_dir / "uv"), "run", "--no-project", "--python", sys.executable, "-m", "skyrl.tinker.api",
    "--base-model", str(model), "--backend", "jax", "--host", "127.0.0.1", "--port", str(port),
    "--database-url", f"sqlite:///{scratch / 'tinker.db'}", "--checkpoints-base", str(scratch / "ckpts")],
    cwd=scratch, env={**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", "JAX_PLATFORMS": "cpu"})
try:
    base = f"http://127.0.0.1:{port}"
    server.wait_ready(f"{base}/api/v1/healthz", 180)

    import tinker
    from tinker import types

    try:
        client = tinker.ServiceClient(base_url=base, api_key="tml-smoke")
        trainer = client.create_lora_training_client(base_model=str(model), rank=4, seed=1)
        tokens = [1, 2, 3, 4, 5, 6]
        datum = types.Datum(
            model_input=types.ModelInput.from_ints(tokens[:-1]),
            loss_fn_inputs={"target_tokens": tokens[1:], "weights": [1.0] * (len(tokens) - 1)},
        )
        result = trainer.forward_backward([datum], "cross_entropy").result(timeout=300)
        trainer.optim_step(types.AdamParams(learning_rate=1e-3)).result(timeout=300)
    except Exception as error:  # any failure of the step is the answer, with the server's log
        server.fail(f"one training step through the tinker SDK failed: {type(error).__name__}: {error}")
    print(f"one LoRA step on a tiny Qwen3: forward_backward ({len(result.loss_fn_outputs)} outputs) and optim_step")
finally:
    server.stop()
    shutil.rmtree(scratch, ignore_errors=True)
