"""Drives the original engine, Minigrid from PyPI (pinned in requirements.txt), for the differential
test, the level generator and the benchmark. It only calls Minigrid's public API: it makes a level
with gymnasium.make(level), resets it with a seed, plays primitive actions and prints what the
engine holds after each one. No text layer: the package's AgentGym text is checked by the fixture
replays in test/replay.test.ts.

  drive-minigrid.py --versions             versions of Python, Minigrid, Gymnasium and NumPy as JSON
  drive-minigrid.py < jobs.jsonl           one job a line, one answer a line, in order:
      job:    {"id": str, "level": "BabyAI-GoToRedBall-v0", "seed": int, "actions": ["left", ...],
               "step_count"?: int (set after reset, as if that many steps had been taken)}
      answer: {"id", "start": start state in the shape of levels.jsonl (with "carrying" and
               "box_contents" where the level has them), "unsupported": [what that shape cannot
               hold], "states": [the state after reset, then after each action]}
  drive-minigrid.py --bench LEVEL SEED STEPS RNG
      primitive steps per second of env.step under uniformly random primitive actions, played on
      without a reset (Minigrid steps on after the end), so level generation is not timed

A state is {"action", "agent_pos", "agent_dir", "carrying", "grid", "image", "mission", "reward",
"terminated", "truncated"}: `grid` is grid.encode() and `image` the observation's 7x7 image, both as
rows of three-digit cells (object, colour, state), `grid[y]` listing x = 0..width-1 and `image[j]`
listing i = 0..6 (j = 6 is the agent's row); `carrying` is the carried object's encoding or null.
"""
import contextlib
import json
import os
import random
import sys
import time

# pygame prints a greeting on stdout when imported, and stdout carries the JSON lines.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import gymnasium  # noqa: E402
import minigrid  # noqa: E402  (the import registers the BabyAI levels with gymnasium)
import numpy as np  # noqa: E402
from minigrid.core.actions import Actions  # noqa: E402
from minigrid.envs.babyai.core.verifier import (  # noqa: E402
    AfterInstr,
    AndInstr,
    BeforeInstr,
    GoToInstr,
    OpenInstr,
    PickupInstr,
    PutNextInstr,
)

ACTIONS = {action.name: action for action in Actions}


def cells(encoded, rows, cols):
    """Rows of an encoded (col, row, 3) array as strings of three-digit cells."""
    return [" ".join("%d%d%d" % tuple(int(v) for v in encoded[c, r]) for c in range(cols)) for r in range(rows)]


def description(desc):
    positions = [[int(x), int(y)] for x, y in desc.obj_poss]
    return {"type": desc.type, "color": desc.color, "loc": desc.loc, "obj_poss": positions}


def instruction(instr):
    """The verifier's instruction tree with the objects it matched at reset, as levels.jsonl holds it."""
    kind = type(instr).__name__
    if isinstance(instr, (BeforeInstr, AfterInstr, AndInstr)):
        return {"kind": kind, "a": instruction(instr.instr_a), "b": instruction(instr.instr_b), "strict": bool(instr.strict)}
    if isinstance(instr, PutNextInstr):
        return {"kind": kind, "move": description(instr.desc_move), "fixed": description(instr.desc_fixed), "strict": bool(instr.strict)}
    if isinstance(instr, GoToInstr):
        return {"kind": kind, "desc": description(instr.desc)}
    if isinstance(instr, (PickupInstr, OpenInstr)):
        return {"kind": kind, "desc": description(instr.desc), "strict": bool(instr.strict)}
    raise ValueError("drive-minigrid.py: no start-state shape for instruction " + kind)


def held(obj):
    """An object off the grid as the start-state format holds it: its cell, or a box with its contents."""
    cell = "%d%d%d" % tuple(int(v) for v in obj.encode())
    if obj.type == "box" and obj.contains is not None:
        return {"cell": cell, "contains": held(obj.contains)}
    return cell


def start_state(level, seed, game):
    state = {
        "level": level,
        "seed": seed,
        "mission": game.mission,
        "width": game.width,
        "height": game.height,
        "agent_pos": [int(v) for v in game.agent_pos],
        "agent_dir": int(game.agent_dir),
        "max_steps": int(game.max_steps),
        "grid_rows": cells(game.grid.encode(), game.height, game.width),
        "instrs": instruction(game.instrs),
    }
    if game.step_count != 0:
        state["step_count"] = int(game.step_count)
    if game.carrying is not None:
        state["carrying"] = held(game.carrying)
    boxes = [
        {"pos": [i % game.width, i // game.width], "contains": held(o.contains)}
        for i, o in enumerate(game.grid.grid)
        if o is not None and o.type == "box" and o.contains is not None
    ]
    if boxes:
        state["box_contents"] = boxes
    unsupported = []
    if game.carrying is not None and not game.carrying.can_pickup():
        unsupported.append("the agent starts carrying an object it could not pick up")
    return state, unsupported


def snapshot(game, observation, action, reward, terminated, truncated):
    carrying = None if game.carrying is None else [int(v) for v in game.carrying.encode()]
    return {
        "action": action,
        "agent_pos": [int(v) for v in game.agent_pos],
        "agent_dir": int(game.agent_dir),
        "carrying": carrying,
        "grid": cells(game.grid.encode(), game.height, game.width),
        "image": cells(observation["image"], 7, 7),
        "mission": game.mission,
        "reward": float(reward),
        "terminated": bool(terminated),
        "truncated": bool(truncated),
    }


def make(level, seed):
    # Some levels print "Sampling rejected: ..." on stdout while they generate.
    with contextlib.redirect_stdout(sys.stderr):
        env = gymnasium.make(level)
        observation, _ = env.reset(seed=seed)
    return env, observation


def play(job):
    env, observation = make(job["level"], job["seed"])
    game = env.unwrapped
    if job.get("step_count"):
        # A start state further into the episode: the steps taken count towards max_steps and the reward.
        game.step_count = int(job["step_count"])
    start, unsupported = start_state(job["level"], job["seed"], game)
    states = [snapshot(game, observation, None, 0.0, False, False)]
    for name in job["actions"]:
        if name not in ACTIONS:
            raise ValueError("drive-minigrid.py: unknown action %r, expected one of %s" % (name, ", ".join(ACTIONS)))
        observation, reward, terminated, truncated, _ = env.step(ACTIONS[name])
        states.append(snapshot(game, observation, name, reward, terminated, truncated))
    return {"id": job["id"], "start": start, "unsupported": unsupported, "states": states}


def bench(level, seed, steps, rng_seed):
    env, _ = make(level, seed)
    rng = random.Random(rng_seed)
    actions = list(Actions)
    started = time.perf_counter()
    for _ in range(steps):
        env.step(rng.choice(actions))
    return steps / (time.perf_counter() - started)


def main():
    args = sys.argv[1:]
    if args[:1] == ["--versions"]:
        versions = {"python": sys.version.split()[0], "minigrid": minigrid.__version__, "gymnasium": gymnasium.__version__, "numpy": np.__version__}
        print(json.dumps(versions))
    elif args[:1] == ["--bench"] and len(args) == 5:
        print(json.dumps({"steps_per_second": bench(args[1], int(args[2]), int(args[3]), int(args[4]))}))
    elif not args:
        for line in sys.stdin:
            if line.strip():
                print(json.dumps(play(json.loads(line))), flush=True)
    else:
        sys.exit("usage: drive-minigrid.py [--versions | --bench LEVEL SEED STEPS RNG] (jobs as JSON lines on stdin)")


if __name__ == "__main__":
    main()
