"""Times AgentGym's own BabyAI text layer (its `agentenv_babyai` package: the `BabyAI` class and the
`BabyAIEnv` server object of environment.py) on commands our benchmark chose, for the text-layer
ratios of bench/steps.ts. Ours; it only calls AgentGym's classes. AgentGym's source is not on PyPI:
pass the folder that holds its `agentenv_babyai/` (a checkout's `agentenv-babyai/`). Needs gym,
gymnasium, matplotlib and minigrid (the BabyAI reference venv has them: reference/setup.sh).

  drive-agentgym-wrapper.py AGENTENV_BABYAI_DIR < job.json

One job on stdin, one answer on stdout:
  {"kind": "commands", "level": "BabyAI-GoToRedBall-v0", "seed": 0, "commands": [str, ...]}
      `BabyAI(game_name=level, seed=seed)`, then `step(command)` for each command, `reset()` first
      whenever the last one ended the episode (`done`)
  {"kind": "server", "episodes": [{"data_idx": int, "commands": [str, ...]}, ...]}
      AgentGym's server object without HTTP: `reset(id, data_idx)`, then `step(id, command)` for
      each command (each reset makes a new `BabyAI`, as the server does)
  answer: {"steps": commands played, "steps_per_second": commands per second (resets included in
           the time, not in the count), "digest": sha256 of the texts answered (reset observations
           and steps, in order, joined by NUL), to check that ours answered the same}
Everything after the setup (the first `BabyAI` of "commands", `create` of "server") is timed.
"""
import hashlib
import importlib
import json
import os
import sys
import time
import types

# pygame (which Gymnasium may import) greets on stdout, and stdout carries the answer.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def load_agentgym(package_parent):
    # The package's __init__ imports its FastAPI server; only the environment module is wanted here.
    package = types.ModuleType("agentenv_babyai")
    package.__path__ = [os.path.join(package_parent, "agentenv_babyai")]
    sys.modules["agentenv_babyai"] = package
    return importlib.import_module("agentenv_babyai.environment")


def play_commands(environment, job):
    env = environment.BabyAI(game_name=job["level"], seed=job["seed"])
    texts = []
    started = time.perf_counter()
    for command in job["commands"]:
        if env.done:
            env.reset()
        observation, _, _, _ = env.step(command)
        texts.append(observation)
    return len(job["commands"]), time.perf_counter() - started, texts


def play_server(environment, job):
    server = environment.BabyAIEnv()
    idx = server.create()["id"]
    texts = []
    steps = 0
    started = time.perf_counter()
    for episode in job["episodes"]:
        texts.append(server.reset(idx, episode["data_idx"])["observation"])
        for command in episode["commands"]:
            texts.append(server.step(idx, command)["observation"])
        steps += len(episode["commands"])
    return steps, time.perf_counter() - started, texts


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: drive-agentgym-wrapper.py AGENTENV_BABYAI_DIR < job.json")
    environment = load_agentgym(sys.argv[1])
    job = json.load(sys.stdin)
    play = {"commands": play_commands, "server": play_server}.get(job["kind"])
    if play is None:
        sys.exit("drive-agentgym-wrapper.py: unknown job kind %r, expected commands or server" % job["kind"])
    # Some levels print "Sampling rejected: ..." on stdout while they generate.
    answers = sys.stdout
    sys.stdout = sys.stderr
    steps, seconds, texts = play(environment, job)
    digest = hashlib.sha256("\0".join(texts).encode("utf-8")).hexdigest()
    answers.write(json.dumps({"steps": steps, "steps_per_second": steps / seconds, "digest": digest}) + "\n")


if __name__ == "__main__":
    main()
