"""Replays AgentGym-RL's call pattern against one AgentGym dialect of a @pilotrl/env-server.

Standard library only. Usage: python agentgym_pattern.py <plan.json>
plan.json: {"env_addr", "reset_key", "sessions": [{"index", "actions": [...]}], "extra": {...},
"deadline_s"}. As AgentGym-RL's rollout does (verl/workers/rollout/agent_vllm_rollout): one client
per trajectory created one after another (POST /create), each reset with its item index, then
rounds in which every live trajectory steps concurrently from a ThreadPoolExecutor (one thread per
live trajectory), and close() for every client at the end inside try/except. Every session plays
its oracle actions; all must end done with the last reward the dialect's win reward.
Prints one JSON summary line; exits 1 on a failure or past the deadline.
"""

import json
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor


def call(url, body=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        assert response.status == 200, f"{url}: HTTP {response.status}"
        return json.loads(response.read())


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    base = plan["env_addr"]
    started = time.monotonic()
    deadline = started + plan["deadline_s"]
    sessions = plan["sessions"]

    ids = []
    for _ in sessions:  # sequential creates, as the client constructors run one after another
        created = call(f"{base}/create", {})
        assert "error" not in created, created
        ids.append(created["id"])
    for session, env_id in zip(sessions, ids):
        reset = call(f"{base}/reset", {"id": env_id, plan["reset_key"]: session["index"], **plan.get("extra", {})})
        assert "error" not in reset, reset

    last = {env_id: None for env_id in ids}
    live = list(zip(ids, sessions))
    rounds = 0
    with ThreadPoolExecutor(max_workers=len(live)) as pool:
        while live:
            assert time.monotonic() < deadline, f"past the deadline of {plan['deadline_s']} s"
            turn = [(env_id, s["actions"][rounds]) for env_id, s in live if rounds < len(s["actions"])]
            replies = list(pool.map(lambda pair: (pair[0], call(f"{base}/step", {"id": pair[0], "action": pair[1]})), turn))
            for env_id, reply in replies:
                assert "error" not in reply, reply
                last[env_id] = reply
            rounds += 1
            live = [(env_id, s) for env_id, s in live if rounds < len(s["actions"]) and not last[env_id]["done"]]

    for env_id in ids:
        reply = last[env_id]
        assert reply["done"] is True, f"session {env_id} not done: {reply}"
        reward = reply.get(plan.get("reward_key", "reward"))
        assert reward >= plan["win_reward_at_least"], f"session {env_id} last reward {reward!r}"
    closed = 0
    for env_id in ids:  # AgentGym-RL closes every client at the end, ignoring failures
        try:
            closed += call(f"{base}/close", {"id": env_id}) is True
        except Exception:
            pass
    print(json.dumps({
        "env_addr": base, "sessions": len(ids), "rounds": rounds, "closed": closed,
        "seconds": round(time.monotonic() - started, 2),
    }), flush=True)


if __name__ == "__main__":
    main()
