"""Writes a tiny Qwen3 model and its tokenizer to a directory, for the engine tests of @pilotrl/tinker.

No model hub is needed: a byte-level BPE tokenizer is trained here with `tokenizers` on a small fixed
text (with ChatML's special tokens), and a 2-layer Qwen3 with random weights (fixed seed) is saved with
`save_pretrained`, which SkyRL's JAX backend loads as its base model.

    python make_tiny_model.py <dir> [--vocab-size N] [--max-positions N] [--init-std X] [--tokenizer-only]

--init-std sets the weights' initial spread (Qwen3's default 0.02). A LoRA trains neither the
embedding nor the norms, and with the default spread the tied embedding bounds the logits to about
±1.3, so no adapter can make one token likely; a larger spread (0.3) lets a LoRA learn a format.

--tokenizer-only writes just the tokenizer (the tests make a second, different one to check that a
tokenizer that is not the server's is refused).
"""

import argparse
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

CORPUS = [
    "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 1,",
    "a drawer 2, a fridge 1, a garbagecan 1, a microwave 1, a shelf 3, a sinkbasin 1 and a toaster 1.",
    "Your task is to: put a clean mug in the coffeemachine. > go to countertop 1. You arrive at countertop 1.",
    "On the countertop 1, you see a apple 2, a mug 1 and a knife 3. > take mug 1 from countertop 1.",
    "Count from 1 to 20: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20.",
    "user assistant system The quick brown fox jumps over the lazy dog. Hello, world!",
]


def make_tokenizer(vocab_size: int) -> PreTrainedTokenizerFast:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(CORPUS * 20, trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dir", type=Path)
    parser.add_argument("--vocab-size", type=int, default=344)
    parser.add_argument("--max-positions", type=int, default=512)
    parser.add_argument("--init-std", type=float, default=0.02)
    parser.add_argument("--tokenizer-only", action="store_true")
    args = parser.parse_args()

    tokenizer = make_tokenizer(args.vocab_size)
    tokenizer.save_pretrained(args.dir)
    if args.tokenizer_only:
        return

    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=args.max_positions,
        initializer_range=args.init_std,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.convert_tokens_to_ids("<|endoftext|>"),
        eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"),
        pad_token_id=tokenizer.convert_tokens_to_ids("<|endoftext|>"),
    )
    model = Qwen3ForCausalLM(config)
    model.save_pretrained(args.dir)
    print(f"{args.dir}: vocab {len(tokenizer)}, {sum(p.numel() for p in model.parameters())} parameters")


if __name__ == "__main__":
    main()
