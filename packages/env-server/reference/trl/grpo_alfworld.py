"""GRPO with TRL on ALFWorld served by @pilotrl/env-server, through TRL's `environment_factory`.

Usage: python grpo_alfworld.py --url http://127.0.0.1:8000 [--out run.json] [--max-steps 3]
where --url is an OpenEnv base URL of our server: the root of `pilotrl serve-env --env alfworld`, or
`<server>/openenv/alfworld` when it serves several envs. This script starts no server.

Everything is built here, with no model hub: a byte-level BPE tokenizer trained on the games' own
text, speaking Qwen2.5's chat format (TRL ships that template and knows how to parse its tool
calls), and a 2-layer Qwen2 of random weights. A few seconds of supervised warm-up teach it the
tool-call format, so that its rollouts call the `act` tool, which plays the command on our server
over OpenEnv's WebSocket (openenv-core's GenericEnvClient). The reward of a rollout is the sum of
the rewards our server sent in its `observation` replies. The model learns nothing at this size;
what the run shows is the plumbing, end to end: prompts, tool calls, server steps, rewards, updates.

Prints one JSON line per training step and writes a summary (steps, episodes) to --out.
"""

import argparse
import json
import os
import random
import tempfile
import time

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

import torch  # noqa: E402
from datasets import Dataset  # noqa: E402
from openenv.core import GenericEnvClient  # noqa: E402
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers  # noqa: E402
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM  # noqa: E402
from transformers.utils import get_json_schema  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402
from trl.chat_template_utils import qwen2_5_chat_template  # noqa: E402

INSTRUCTION = (
    "You are in a household. Reach the goal by calling the act tool with one command at a time, "
    "for example go to cabinet 1, open drawer 2, take apple 1 from countertop 1."
)

# One record per rollout, in the order TRL scored them: what our server answered, reward by reward.
EPISODES = []


class ALFWorldEnv:
    """One rollout's ALFWorld episode on our server: one OpenEnv WebSocket session per episode."""

    url = ""

    def __init__(self):
        self.client = None
        self.episode = None

    def reset(self, split="train", index=0, **row):
        """Starts task `index` of `split` (dataset columns); returns the game's opening text."""
        self._close()
        self.client = GenericEnvClient(base_url=self.url).sync()
        self.client.connect()
        result = self.client.reset(split=split, index=index)
        observation = result.observation
        self.episode = {"task_id": observation["task_id"], "commands": [], "rewards": []}
        self.episode.update(done=False, won=False)
        return "\n\n" + observation["text"]

    def act(self, command: str) -> str:
        """
        Plays one command in the household game and returns what the game answers.

        Args:
            command: One game command, e.g. "go to cabinet 1" or "take apple 1 from countertop 1".

        Returns:
            The game's answer to the command.
        """
        if self.episode["done"]:
            return "The episode is over."
        result = self.client.step({"action": command})
        self.episode["commands"].append(command)
        self.episode["rewards"].append(result.reward)
        self.episode["done"] = result.done
        self.episode["won"] = result.observation["won"]
        return result.observation["text"]

    def get_reward(self) -> float:
        """The rollout's reward: the sum of the rewards in our server's step replies."""
        state = self.client.state()  # the server's own account of the episode, kept beside ours
        self.episode.update(server_step_count=state["step_count"], server_total_reward=state["total_reward"])
        self.episode["reward"] = float(sum(self.episode["rewards"]))
        EPISODES.append(self.episode)
        self._close()  # the episode is scored: free its session
        return self.episode["reward"]

    def _close(self):
        if self.client is not None:
            self.client.close()
            self.client = None


def opening_texts(url, tasks):
    """The opening text and admissible commands of each task (resets only: no step is taken)."""
    openings = []
    for split, index in tasks:
        with GenericEnvClient(base_url=url).sync() as client:
            observation = client.reset(split=split, index=index).observation
        openings.append((observation["text"], observation["admissible_actions"]))
    return openings


def tool_call(command):
    """What the model writes to call `act`, in Qwen2.5's format."""
    arguments = json.dumps({"command": command})
    return f'<tool_call>\n{{"name": "act", "arguments": {arguments}}}\n</tool_call><|im_end|>'


def build_tokenizer(openings):
    """A byte-level BPE trained on the games' text and the chat format, with Qwen2.5's template."""
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    markers = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]
    schema = json.dumps({"type": "function", "function": get_json_schema(ALFWorldEnv.act)})
    corpus = [qwen2_5_chat_template, INSTRUCTION, schema]
    for text, commands in openings:
        corpus += [text, *commands, *(tool_call(command) for command in commands)]
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1024, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    bpe.train_from_iterator(corpus, trainer=trainer)
    bpe.add_tokens([AddedToken(marker, special=False, normalized=False) for marker in markers])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>", padding_side="left"
    )
    tokenizer.chat_template = qwen2_5_chat_template
    return tokenizer


def build_model(tokenizer):
    """A 2-layer Qwen2 of random weights, about 0.1 M parameters."""
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
    )
    return Qwen2ForCausalLM(config)


def teach_tool_format(model, tokenizer, openings, steps):
    """
    Supervised warm-up on the tool-call format: the answer to a task's opening is a call of `act`
    with one of its admissible commands, and so is the answer to the game's reply to that call
    (here "Nothing happens.", ALFWorld's answer to a command it cannot carry out).
    """
    tools = [ALFWorldEnv().act]
    encode = lambda text: tokenizer(text, add_special_tokens=False)["input_ids"]  # noqa: E731
    examples = []
    for text, commands in openings:
        user = [{"role": "user", "content": INSTRUCTION + "\n\n" + text}]
        for first, second in zip(commands, random.sample(commands, len(commands))):
            call = {"type": "function", "function": {"name": "act", "arguments": {"command": first}}}
            reply = [
                {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "name": "act", "content": "Nothing happens."},
            ]
            render = dict(tools=tools, add_generation_prompt=True, tokenize=False)
            opening = tokenizer.apply_chat_template(user, **render)
            both = tokenizer.apply_chat_template(user + reply, **render)
            answered = opening + tool_call(first)
            assert both.startswith(answered), "the chat template is not prefix-preserving"
            ids, labels = [], []
            for context, command in ((opening, first), (both[len(answered) :], second)):
                ids += encode(context) + encode(tool_call(command))
                labels += [-100] * len(encode(context)) + encode(tool_call(command))
            examples.append((ids, labels))
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3)
    model.train()
    for _ in range(steps):
        batch = random.sample(examples, min(4, len(examples)))
        width = max(len(ids) for ids, _ in batch)
        ids = torch.tensor([x + [tokenizer.pad_token_id] * (width - len(x)) for x, _ in batch])
        labels = torch.tensor([y + [-100] * (width - len(y)) for _, y in batch])
        loss = model(input_ids=ids, attention_mask=ids != tokenizer.pad_token_id, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    return loss.item() if steps else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="OpenEnv base URL of ALFWorld on our server")
    parser.add_argument("--out", help="write the run's summary (JSON) here")
    parser.add_argument("--max-steps", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=4, help="ALFWorld train tasks in the dataset")
    parser.add_argument("--warmup-steps", type=int, default=80)
    args = parser.parse_args()
    random.seed(0)
    torch.manual_seed(0)
    torch.set_num_threads(1)  # a model this small runs slower on more threads, the more so on a busy machine
    ALFWorldEnv.url = args.url
    started = time.monotonic()

    tasks = [("train", index) for index in range(args.tasks)]
    openings = opening_texts(args.url, tasks)
    tokenizer = build_tokenizer(openings)
    model = build_model(tokenizer)
    warmup_loss = teach_tool_format(model, tokenizer, openings, args.warmup_steps)
    built = {
        "vocab": len(tokenizer),
        "parameters": model.num_parameters(),
        "warmup_loss": round(warmup_loss, 4),
        "seconds": round(time.monotonic() - started, 1),
    }
    print(json.dumps(built), flush=True)

    dataset = Dataset.from_list(
        [
            {"prompt": [{"role": "user", "content": INSTRUCTION}], "split": split, "index": index}
            for split, index in tasks
        ]
    )
    batch = 4  # rollouts per step: 2 prompts x 2 generations
    config = GRPOConfig(
        output_dir=tempfile.mkdtemp(prefix="grpo-alfworld-"),
        max_steps=args.max_steps,
        per_device_train_batch_size=batch,
        num_generations=2,
        max_completion_length=256,
        max_tool_calling_iterations=5,
        learning_rate=1e-4,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=config,
        train_dataset=dataset,
        environment_factory=ALFWorldEnv,
    )
    started = time.monotonic()
    trainer.train()
    train_seconds = round(time.monotonic() - started, 1)

    # get_reward ran once per rollout, in order, `batch` rollouts per step.
    logged = [entry for entry in trainer.state.log_history if "reward" in entry]
    steps = []
    for k, entry in enumerate(logged):
        episodes = EPISODES[k * batch : (k + 1) * batch]
        steps.append(
            {
                "step": k + 1,
                "rewards": [episode["reward"] for episode in episodes],
                "env_steps": [len(episode["commands"]) for episode in episodes],
                "trl_reward_mean": entry["reward"],
                "tool_calls_per_rollout": entry.get("tools/call_frequency"),
                "loss": entry.get("loss"),
                "grad_norm": entry.get("grad_norm"),
            }
        )
        print(json.dumps(steps[-1]), flush=True)
    if args.out:
        summary = {"url": args.url, "model": built, "train_seconds": train_seconds, "steps": steps}
        summary["episodes"] = EPISODES
        with open(args.out, "w") as f:
            json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
