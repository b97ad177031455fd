"""Tiny random Qwen3 and Llama models made with transformers, and what transformers computes on them,
for the engine tests of @pilotrl/policy-tfjs's Hugging Face decoders. No model hub is needed: each
family's byte-level BPE tokenizer is trained here with `tokenizers` on a small fixed text, with that
family's pre-tokenizer regex, special tokens and chat template, and the models get random weights from
a fixed seed.

    python tiny_hf_models.py make <dir>
        writes <dir>/qwen3 (tied embeddings, float32, one file), <dir>/llama (untied, GQA with one
        key-value head, attention biases, float32, sharded) and <dir>/qwen3-bf16 (bf16, sharded)
    python tiny_hf_models.py query <model-dir>...  < request.json
        prints what transformers computes for the request on each model, as JSON by the directory's
        name: "logits" of each id row (float32),
        "greedy" ids after each prompt (generate, do_sample=False), "encoded" ids of each text
        (add_special_tokens=False), "chat" (apply_chat_template's text and ids of each conversation)
"""

import json
import sys
from pathlib import Path

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

# The pre-tokenizer patterns of Qwen2/Qwen3's and Llama 3's tokenizer.json (Qwen/Qwen3-0.6B,
# meta-llama/Meta-Llama-3-8B-Instruct): they differ in how many digits make one piece.
QWEN_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)

# Qwen3's chat template as its tokenizer_config.json has it (Qwen/Qwen3-0.6B), tools included.
QWEN3_TEMPLATE = """{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0].role == 'system' %}
        {{- messages[0].content + '\\n\\n' }}
    {%- endif %}
    {{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0].role == 'system' %}
        {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}
{%- for message in messages[::-1] %}
    {%- set index = (messages|length - 1) - loop.index0 %}
    {%- if ns.multi_step_tool and message.role == "user" and message.content is string and not(message.content.startswith('<tool_response>') and message.content.endswith('</tool_response>')) %}
        {%- set ns.multi_step_tool = false %}
        {%- set ns.last_query_index = index %}
    {%- endif %}
{%- endfor %}
{%- for message in messages %}
    {%- if message.content is string %}
        {%- set content = message.content %}
    {%- else %}
        {%- set content = '' %}
    {%- endif %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}
        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {%- set reasoning_content = '' %}
        {%- if message.reasoning_content is string %}
            {%- set reasoning_content = message.reasoning_content %}
        {%- else %}
            {%- if '</think>' in content %}
                {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}
                {%- set content = content.split('</think>')[-1].lstrip('\\n') %}
            {%- endif %}
        {%- endif %}
        {%- if loop.index0 > ns.last_query_index %}
            {%- if loop.last or (not loop.last and reasoning_content) %}
                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}
            {%- else %}
                {{- '<|im_start|>' + message.role + '\\n' + content }}
            {%- endif %}
        {%- else %}
            {{- '<|im_start|>' + message.role + '\\n' + content }}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
    {%- if enable_thinking is defined and enable_thinking is false %}
        {{- '<think>\\n\\n</think>\\n\\n' }}
    {%- endif %}
{%- endif %}"""

# Llama 3's chat template (meta-llama/Meta-Llama-3-8B-Instruct's tokenizer_config.json).
LLAMA3_TEMPLATE = (
    "{% set loop_messages = messages %}{% for message in loop_messages %}"
    "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}"
    "{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
)

CORPUS = [
    "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 1,",
    "a drawer 2, a fridge 1, a garbagecan 1, a microwave 1, a shelf 3, a sinkbasin 1 and a toaster 1.",
    "Your task is to: put a clean mug in the coffeemachine. > go to countertop 1. You arrive at countertop 1.",
    "On the countertop 1, you see a apple 2, a mug 1 and a knife 3. > take mug 1 from countertop 2.",
    "Count from 1 to 20: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 2024.",
    "user assistant system The quick brown fox jumps over the lazy dog. Hello, world! It's I'll we've",
    "Crème brûlée, naïve café, 東京 and 😀 emoji.\n\nTabs\tand  spaces   here.\n",
]


def make_tokenizer(family: str):
    from transformers import PreTrainedTokenizerFast

    if family == "qwen3":
        specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
        tokenizer = Tokenizer(models.BPE())
        tokenizer.normalizer = normalizers.NFC()
        pattern = QWEN_PATTERN
    else:
        specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
        tokenizer = Tokenizer(models.BPE(ignore_merges=True))
        pattern = LLAMA3_PATTERN
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=420, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(CORPUS * 20, trainer=trainer)
    if family == "qwen3":
        # Qwen3's thinking markers are added tokens that are not special.
        from tokenizers import AddedToken
        tokenizer.add_tokens([AddedToken("<think>", normalized=False), AddedToken("</think>", normalized=False)])
        return PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                       additional_special_tokens=["<|im_start|>"], chat_template=QWEN3_TEMPLATE)
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<|begin_of_text|>", eos_token="<|eot_id|>",
                                   additional_special_tokens=["<|start_header_id|>", "<|end_header_id|>",
                                                              "<|end_of_text|>"],
                                   chat_template=LLAMA3_TEMPLATE)


def make(root: Path) -> None:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen3Config, Qwen3ForCausalLM

    for name, family, dtype, shard in [
        ("qwen3", "qwen3", torch.float32, None),
        ("llama", "llama", torch.float32, "150KB"),
        ("qwen3-bf16", "qwen3", torch.bfloat16, "80KB"),
    ]:
        tokenizer = make_tokenizer(family)
        ids = tokenizer.convert_tokens_to_ids
        torch.manual_seed(0)
        if family == "qwen3":
            # head_dim 24 with 4 heads: the attention is wider (96) than the model (64), as in Qwen3.
            config = Qwen3Config(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                 num_attention_heads=4, num_key_value_heads=2, head_dim=24, max_position_embeddings=256,
                                 rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
                                 initializer_range=0.2, tie_word_embeddings=True, rms_norm_eps=1e-6,
                                 bos_token_id=ids("<|endoftext|>"), eos_token_id=ids("<|im_end|>"),
                                 pad_token_id=ids("<|endoftext|>"))
            model = Qwen3ForCausalLM(config)
        else:
            config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=160, num_hidden_layers=2,
                                 num_attention_heads=4, num_key_value_heads=1, max_position_embeddings=256,
                                 rope_parameters={"rope_type": "default", "rope_theta": 500000.0},
                                 initializer_range=0.2, tie_word_embeddings=False, attention_bias=True,
                                 rms_norm_eps=1e-5, bos_token_id=ids("<|begin_of_text|>"),
                                 eos_token_id=[ids("<|end_of_text|>"), ids("<|eot_id|>")])
            model = LlamaForCausalLM(config)
        with torch.no_grad():
            # Norm weights start at 1 and biases at 0; moved so that reading them wrong shows.
            for pname, param in model.named_parameters():
                if pname.endswith("norm.weight"):
                    param.add_(0.1 * torch.randn_like(param))
                elif pname.endswith(".bias"):
                    param.normal_(0, 0.1)
        model = model.to(dtype)
        out = root / name
        kwargs = {"max_shard_size": shard} if shard else {}
        model.save_pretrained(out, **kwargs)
        tokenizer.save_pretrained(out)
        print(f"{out}: {family}, vocab {len(tokenizer)}, {dtype}, {'sharded' if shard else 'one file'}")


def query(model_dir: Path, request: dict) -> dict:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    model.eval()
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    answer = {"logits": [], "greedy": [], "encoded": [], "chat": []}
    with torch.no_grad():
        for row in request.get("ids", []):
            answer["logits"].append(model(torch.tensor([row])).logits[0].tolist())
        for prompt in request.get("prompts", []):
            generated = model.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                                       do_sample=False, max_new_tokens=request["max_new_tokens"],
                                       pad_token_id=tokenizer.pad_token_id or 0)
            answer["greedy"].append(generated[0, len(prompt):].tolist())
    for text in request.get("texts", []):
        answer["encoded"].append(tokenizer(text, add_special_tokens=False)["input_ids"])
    for chat in request.get("chats", []):
        kwargs = {k: chat[k] for k in ("add_generation_prompt", "enable_thinking") if k in chat}
        text = tokenizer.apply_chat_template(chat["messages"], tokenize=False, **kwargs)
        ids = tokenizer.apply_chat_template(chat["messages"], tokenize=True, return_dict=False, **kwargs)
        answer["chat"].append({"text": text, "ids": list(ids)})
    return answer


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(Path(sys.argv[2]))
    else:
        request = json.load(sys.stdin)
        json.dump({Path(d).name: query(Path(d), request) for d in sys.argv[2:]}, sys.stdout)
