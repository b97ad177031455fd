"""Plays TextCraft episodes on AgentGym's own TextCraft (its `agentenv_textcraft` package: the
`TextCraftEnv` of environment.py and the `CraftingTree` of crafting_tree.py as released, commit
92479203b62d1a18964dbec256c195ca49304946) for the fixtures of test/agentgym-listed.test.ts. Ours; it
only calls AgentGym's classes. AgentGym's source is not on PyPI: pass the folder that holds its
`agentenv_textcraft/` (a checkout's `agentenv-textcraft/`). Needs numpy and gymnasium (the BabyAI
reference venv has both: packages/env-babyai/reference/setup.sh).

  play-agentgym.py AGENTENV_TEXTCRAFT_DIR RECIPES_PARENT_DIR < jobs.jsonl

RECIPES_PARENT_DIR holds `recipes/*.json`, loaded in sorted file-name order (AgentGym loads them in
`os.listdir` order, which differs between machines). One job a line, one answer a line:
  job:    {"id": str, "dialect": "2024" | "2025", "goal": "minecraft:...", "actions": [str, ...]}
  answer: {"id", "dialect", "goal", "opening", "steps": [{"action", "observation", "reward", "terminated"}]}
Each job gets a fresh CraftingTree, as a fresh server has. "2024": `reset(data_idx=i)` for the
`data_idx` whose goal is `goal`: the listing is drawn (Python's hashing makes it differ per run) and
the released traversal extends the tree's recipe lists as it walks them (quirk Q1). "2025":
`reset(commands=listing, goal=goal)` with a listing drawn that way on another fresh tree, which walks
nothing, so the lists stay as loaded: the rules of AgentGym 2025, whose only change is that walk.
Then the actions, stopping after the one that crafts the goal.
"""
import importlib
import json
import os
import sys
import types

# pygame (which Gymnasium may import) greets on stdout, and stdout carries the answers.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def load_agentgym(package_parent):
    # The package's __init__ imports its FastAPI server; only the game modules are wanted here.
    package = types.ModuleType("agentenv_textcraft")
    package.__path__ = [os.path.join(package_parent, "agentenv_textcraft")]
    sys.modules["agentenv_textcraft"] = package
    tree = importlib.import_module("agentenv_textcraft.crafting_tree")
    environment = importlib.import_module("agentenv_textcraft.environment")
    return tree.CraftingTree, environment.TextCraftEnv


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: play-agentgym.py AGENTENV_TEXTCRAFT_DIR RECIPES_PARENT_DIR < jobs.jsonl")
    CraftingTree, TextCraftEnv = load_agentgym(sys.argv[1])
    recipes_parent = sys.argv[2]
    listdir = os.listdir

    def fresh_tree():
        os.listdir = lambda path: sorted(listdir(path))
        try:
            return CraftingTree(minecraft_dir=recipes_parent)
        finally:
            os.listdir = listdir

    def drawn(goal):
        env = TextCraftEnv(crafting_tree=fresh_tree(), commands=None, goal=None)
        goals = [item for item, _ in sorted(list(env.crafting_tree.item_recipes_min_depth(1)), key=lambda x: x[1])]
        opening, _ = env.reset(data_idx=goals.index(goal))
        assert env.goal == goal, (env.goal, goal)
        return env, opening

    # The released tree prints ("Cycle detected ...", "Wrong Item Count for: ...") on stdout, which
    # carries the answers here: its prints go to stderr.
    answers = sys.stdout
    sys.stdout = sys.stderr
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        env, opening = drawn(job["goal"])
        if job["dialect"] == "2025":
            commands = env.commands
            env = TextCraftEnv(crafting_tree=fresh_tree(), commands=None, goal=None)
            opening, _ = env.reset(commands=commands, goal=job["goal"])
        steps = []
        for action in job["actions"]:
            observation, reward, terminated, _, _ = env.step(action)
            steps.append({"action": action, "observation": observation, "reward": reward, "terminated": terminated})
            if terminated:
                break
        answer = {"id": job["id"], "dialect": job["dialect"], "goal": job["goal"], "opening": opening, "steps": steps}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
