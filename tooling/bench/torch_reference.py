"""PyTorch reference for the @pilotrl/policy-tfjs training benchmark.

Trains the same decoder-only transformer as packages/policy-tfjs/src/model.ts (pre-LayerNorm GPT,
fused QKV, learned positions, tied embedding, tanh-GELU, AdamW with gradient clipping) on random
tokens, and prints one JSON line with its training throughput, so the TypeScript bench can report
ours/PyTorch on the same CPU. Benchmark only: product code is TypeScript.

Setup (once, from the repository root):
    python3 -m venv tooling/bench/.venv
    tooling/bench/.venv/bin/pip install torch numpy
"""

import argparse
import json
import math
import time

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, d: int, heads: int, mlp_ratio: int):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, mlp_ratio * d)
        self.fc2 = nn.Linear(mlp_ratio * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        # Explicit attention (what the tfjs model computes), not a fused SDPA kernel.
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.heads)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        attended = scores.masked_fill(~mask, -1e9).softmax(-1) @ v
        x = x + self.proj(attended.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class Gpt(nn.Module):
    def __init__(self, vocab: int, d: int, layers: int, heads: int, context: int, mlp_ratio: int = 4):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(context, d)
        self.blocks = nn.ModuleList(Block(d, heads, mlp_ratio) for _ in range(layers))
        self.lnf = nn.LayerNorm(d)
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)
            if isinstance(module, nn.Linear):
                nn.init.zeros_(module.bias)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.wte(ids) + self.wpe(positions)
        for block in self.blocks:
            x = block(x)
        return self.lnf(x) @ self.wte.weight.T


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", type=int, default=512)
    parser.add_argument("--d-model", type=int, default=128)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--context", type=int, default=256, help="sequence length trained on")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--steps", type=int, default=5, help="timed steps")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    parser.add_argument("--threads", type=int, default=0, help="torch intra-op threads (0 = torch default)")
    args = parser.parse_args()

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = Gpt(args.vocab, args.d_model, args.layers, args.heads, args.context)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.01)
    ids = torch.randint(0, args.vocab, (args.batch, args.context + 1))
    inputs, targets = ids[:, :-1], ids[:, 1:]

    def step() -> float:
        optimizer.zero_grad(set_to_none=True)
        logits = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, args.vocab), targets.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return loss.item()

    for _ in range(args.warmup):
        step()
    start = time.perf_counter()
    cpu_start = time.process_time()
    for _ in range(args.steps):
        loss = step()
    seconds = (time.perf_counter() - start) / args.steps
    # CPU seconds per step: on a shared machine this is steadier than wall time.
    cpu_seconds = (time.process_time() - cpu_start) / args.steps
    print(
        json.dumps(
            {
                "torch": torch.__version__,
                "threads": torch.get_num_threads(),
                "parameters": sum(p.numel() for p in model.parameters()),
                "ms_per_step": seconds * 1000,
                "tokens_per_s": args.batch * args.context / seconds,
                "cpu_ms_per_step": cpu_seconds * 1000,
                "tokens_per_cpu_s": args.batch * args.context / cpu_seconds,
                "loss": loss,
            }
        )
    )


if __name__ == "__main__":
    main()
