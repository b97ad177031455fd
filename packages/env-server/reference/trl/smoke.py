"""The TRL recipe environment's smoke check: TRL's GRPOTrainer and the OpenEnv client import, and a
tiny Llama made from a config (no model hub) runs one forward pass on torch."""

import torch
import transformers
from openenv.core import GenericEnvClient  # noqa: F401
from trl import GRPOConfig, GRPOTrainer  # noqa: F401

config = transformers.LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                  num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32)
torch.manual_seed(0)
model = transformers.LlamaForCausalLM(config)
with torch.no_grad():
    logits = model(torch.tensor([[1, 2, 3, 4]])).logits
if tuple(logits.shape) != (1, 4, 64) or not torch.isfinite(logits).all():
    raise SystemExit(f"a tiny Llama's forward pass gave logits of shape {tuple(logits.shape)}")
print(f"torch {torch.__version__}, transformers {transformers.__version__}: one forward pass")
