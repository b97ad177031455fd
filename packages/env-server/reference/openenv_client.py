"""Drives a @pilotrl/env-server through the real OpenEnv client (openenv-core's GenericEnvClient).

Usage: python openenv_client.py <cases.json>
cases.json: [{"base_url", "reset": {...}, "actions": [...]}, ...], each played to a win. For each
case it also checks the state and an error path (a malformed action raises, the session goes on).
Prints one JSON line per case and exits 1 on the first failure.
"""

import json
import sys

from openenv.core import GenericEnvClient


def play(case):
    with GenericEnvClient(base_url=case["base_url"]).sync() as env:
        result = env.reset(**case["reset"])
        assert result.done is False, "reset ended the episode"
        assert result.reward is None, f"reset reward {result.reward!r}, want None"
        first = result.observation
        assert isinstance(first["text"], str) and first["text"], "empty first observation"
        try:
            env.step({"command": "look"})
            raise AssertionError("a malformed action did not raise")
        except RuntimeError as error:
            assert "VALIDATION_ERROR" in str(error), f"unexpected error: {error}"
        total = 0.0
        for action in case["actions"]:
            result = env.step({"action": action})
            total += result.reward or 0.0
        observation = result.observation
        assert result.done is True, "the oracle's actions did not end the episode"
        assert observation["won"] is True, "the oracle's actions did not win"
        # BabyAI's win reward is 1 - 0.9 * steps / max_steps; every other env gives 1.
        assert result.reward is not None and result.reward > 0, f"final reward {result.reward!r}"
        state = env.state()
        assert state["step_count"] == len(case["actions"]), f"step_count {state['step_count']}"
        assert state["won"] is True and state["done"] is True, f"state {state}"
        return {
            "base_url": case["base_url"],
            "task_id": first.get("task_id"),
            "steps": len(case["actions"]),
            "total_reward": total,
            "episode_id": state["episode_id"],
        }


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    for case in cases:
        try:
            print(json.dumps({"ok": True, **play(case)}), flush=True)
        except Exception as error:  # report which case failed, then fail the run
            print(json.dumps({"ok": False, "base_url": case["base_url"], "error": repr(error)}), flush=True)
            sys.exit(1)


if __name__ == "__main__":
    main()
