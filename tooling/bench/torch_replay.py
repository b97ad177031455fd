"""PyTorch peer of the loop bench (apps/pilotrl/bench/loop.ts): replays the model passes a tfjs run made.

The bench writes the tfjs policy's weights and every forward pass it made (token ids, positions,
batch shape, KV-cache length, logit rows, and for SFT the step each pass belongs to) to a folder.
This script loads the weights into tooling/bench/torch_reference.py's model, replays each group of
passes in order (sampling passes under no_grad; SFT steps as forward, cross-entropy, backward,
clipping and AdamW), and prints one JSON line with CPU and wall seconds per group. For the first
pass of each kind without a cache it also checks that the hidden states match the tfjs ones.

What a replay cannot know exactly costs the same either way: a pass with a KV cache attends to
random keys and values of the recorded length, an attention bias is the stored one where it was
stored and zeros of the same shape elsewhere, logits are computed for the first rows of the
recorded number, and SFT targets are the next token ids. Benchmark only: product code is TypeScript.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference import Gpt  # noqa: E402


def load_model(spec: dict, data: np.memmap) -> Gpt:
    c = spec["config"]
    model = Gpt(c["vocabSize"], c["dModel"], c["nLayers"], c["nHeads"], c["contextLength"], c["mlpRatio"])
    values = {}
    for w in spec["weights"]:
        count = int(np.prod(w["shape"]))
        values[w["name"]] = torch.from_numpy(np.array(data[w["offset"] : w["offset"] + 4 * count].view(np.float32))).reshape(
            w["shape"]
        )
    with torch.no_grad():
        model.wte.weight.copy_(values["wte"])
        model.wpe.weight.copy_(values["wpe"])
        for layer, block in enumerate(model.blocks):
            p = f"h{layer}"
            block.ln1.weight.copy_(values[f"{p}.ln1.g"])
            block.ln1.bias.copy_(values[f"{p}.ln1.b"])
            block.qkv.weight.copy_(values[f"{p}.attn.wqkv"].T)
            block.qkv.bias.copy_(values[f"{p}.attn.bqkv"])
            block.proj.weight.copy_(values[f"{p}.attn.wo"].T)
            block.proj.bias.copy_(values[f"{p}.attn.bo"])
            block.ln2.weight.copy_(values[f"{p}.ln2.g"])
            block.ln2.bias.copy_(values[f"{p}.ln2.b"])
            block.fc1.weight.copy_(values[f"{p}.mlp.w1"].T)
            block.fc1.bias.copy_(values[f"{p}.mlp.b1"])
            block.fc2.weight.copy_(values[f"{p}.mlp.w2"].T)
            block.fc2.bias.copy_(values[f"{p}.mlp.b2"])
        model.lnf.weight.copy_(values["lnf.g"])
        model.lnf.bias.copy_(values["lnf.b"])
    return model


def run(model: Gpt, ids, positions, bias, past):
    """Hidden states [batch*time, d] of the tfjs model's `run`: explicit positions, an additive bias, a KV cache."""
    b, t = ids.shape
    x = model.wte(ids) + model.wpe(positions)
    for layer, block in enumerate(model.blocks):
        d = x.shape[-1]
        hd = d // block.heads
        q, k, v = block.qkv(block.ln1(x)).view(b, t, 3, block.heads, hd).permute(2, 0, 3, 1, 4)
        if past is not None:
            k = torch.cat([past[layer][0], k], 2)
            v = torch.cat([past[layer][1], v], 2)
        scores = (q / math.sqrt(hd)) @ k.transpose(-1, -2)
        scores = scores + bias if bias is not None else scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), -1e9)
        attended = scores.softmax(-1) @ v
        x = x + block.proj(attended.transpose(1, 2).reshape(b, t, d))
        x = x + block.fc2(F.gelu(block.fc1(block.ln2(x)), approximate="tanh"))
    return model.lnf(x).reshape(b * t, -1)


def inputs_of(model: Gpt, p: dict, data: np.memmap, generator: torch.Generator) -> dict:
    """The tensors of one pass, built outside the timing (tfjs builds them outside its model too)."""
    heads = model.blocks[0].heads
    d = model.wte.weight.shape[1]
    b, t = p["batch"], p["time"]

    def ints(at: int) -> torch.Tensor:
        return torch.from_numpy(np.array(data[at : at + 4 * b * t].view(np.int32)).astype(np.int64)).reshape(b, t)

    bias = None
    if p["bias"]:
        stored = (p.get("check") or {}).get("bias")
        shape = (b, 1, t, p["past"] + t)
        count = int(np.prod(shape))
        bias = (
            torch.from_numpy(np.array(data[stored : stored + 4 * count].view(np.float32))).reshape(shape)
            if stored is not None
            else torch.zeros(shape)
        )
    past = None
    if p["past"] > 0:
        shape = (b, heads, p["past"], d // heads)
        past = [(torch.randn(shape, generator=generator), torch.randn(shape, generator=generator)) for _ in model.blocks]
    hidden = None
    if "check" in p:
        at = p["check"]["hidden"]
        hidden = torch.from_numpy(np.array(data[at : at + 4 * b * t * d].view(np.float32))).reshape(b * t, d)
    return {"ids": ints(p["ids"]), "positions": ints(p["positions"]), "bias": bias, "past": past, "hidden": hidden}


class Clock:
    """CPU and wall seconds summed over the timed blocks only."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.wall = 0.0

    def __enter__(self) -> "Clock":
        self._cpu, self._wall = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *_: object) -> None:
        self.cpu += time.process_time() - self._cpu
        self.wall += time.perf_counter() - self._wall


def replay_sampling(model: Gpt, passes: list, data: np.memmap, clock: Clock) -> float | None:
    """Replays sampling passes; returns the largest hidden-state difference from tfjs on the checked ones."""
    generator = torch.Generator().manual_seed(0)
    diffs = []
    with torch.no_grad():
        if passes:  # one untimed pass first, as the tfjs run had its warm-up rollout
            x = inputs_of(model, passes[0], data, generator)
            run(model, x["ids"], x["positions"], x["bias"], x["past"])
        for p in passes:
            x = inputs_of(model, p, data, generator)
            with clock:
                hidden = run(model, x["ids"], x["positions"], x["bias"], x["past"])
                (hidden[: p["rows"]] @ model.wte.weight.T).numpy()
            if x["hidden"] is not None:
                diffs.append(float((hidden - x["hidden"]).abs().max()))
    return max(diffs) if diffs else None


def replay_training(model: Gpt, passes: list, data: np.memmap, clock: Clock) -> None:
    generator = torch.Generator().manual_seed(0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.01)
    steps = sorted({p["step"] for p in passes})
    # One untimed step first, as the tfjs run had its warm-up step.
    for index, step in enumerate(steps[:1] + steps):
        step_passes = [(p, inputs_of(model, p, data, generator)) for p in passes if p["step"] == step]
        with clock if index > 0 else Clock():
            optimizer.zero_grad(set_to_none=True)
            for p, x in step_passes:
                hidden = run(model, x["ids"], x["positions"], x["bias"], x["past"])
                targets = torch.roll(x["ids"].reshape(-1), -1)[: p["rows"]]
                loss = F.cross_entropy(hidden[: p["rows"]] @ model.wte.weight.T, targets, reduction="sum")
                loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()


def matmul_rate() -> float:
    a, b = torch.randn(512, 512), torch.randn(512, 512)
    for _ in range(5):
        a @ b
    start = time.process_time()
    reps = 100
    for _ in range(reps):
        a @ b
    return reps * 2 * 512**3 / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True, help="folder with manifest.json and data.bin from the loop bench")
    parser.add_argument("--threads", type=int, default=0, help="torch intra-op threads (0 = torch default)")
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    with open(os.path.join(args.dir, "manifest.json")) as f:
        manifest = json.load(f)
    data = np.memmap(os.path.join(args.dir, "data.bin"), dtype=np.uint8, mode="r")
    results = {}
    for group in manifest["groups"]:
        model = load_model(manifest["models"][group["model"]], data)
        clock = Clock()
        diff = None
        if group["train"]:
            replay_training(model, group["passes"], data, clock)
        else:
            diff = replay_sampling(model, group["passes"], data, clock)
        results[group["name"]] = {"cpu": clock.cpu, "wall": clock.wall, "maxHiddenDiff": diff}
    print(
        json.dumps(
            {
                "torch": torch.__version__,
                "threads": torch.get_num_threads(),
                "matmul_flops_per_cpu_s": matmul_rate(),
                "groups": results,
            }
        )
    )


if __name__ == "__main__":
    main()
