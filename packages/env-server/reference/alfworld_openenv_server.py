"""ALFWorld's reference engine served over OpenEnv with openenv-core's server library: the Python side
of @pilotrl/env-server's speed bench (bench/speed.ts drives it and our server with the same load).

  python alfworld_openenv_server.py serve <games dir> [--host 127.0.0.1] [--port 0] [--max-envs 512] [--memoize]
      serves the games of <dir>/games.json ([{task_id, file}], each file a .tw-pddl JSON of
      {pddl_domain, grammar, pddl_problem}) over OpenEnv (WebSocket /ws; HTTP /reset, /step, /state,
      /health, /schema, stateless as openenv-core makes them) and prints `listening http://<host>:<port>`
      once it accepts connections.
  python alfworld_openenv_server.py --check
      prints the versions of the packages that matter as JSON (bench-setup.sh's check).

The engine is ALFWorld's: TextWorld's PddlEnv with ALFWorld's AlfredDemangler on top, as ALFWorld's
AlfredTWEnv builds it (and as packages/env-alfworld/reference/play.py runs it), one per session. The
wire is @pilotrl/env-server's: action {"action": "<command>"}; observation {text, admissible_actions,
task, task_id, won, valid, truncated}, reward 1 on the step that wins, else 0; done on a win or after
max_steps (default 50, ALFWorld's) steps. Reset data {task_id, max_steps?}.

Concurrency: openenv-core runs each WebSocket session's calls on a thread of its own, but the engine
is not thread-safe: Fast Downward's translator keeps its options in module globals and rewrites
sys.argv, and in a trial run with resets locked and steps not, a reset beside other sessions' steps
failed ("pop from empty list"). So every reset and step holds one lock (ENGINE_LOCK); the GIL kept it to one core anyway. --memoize applies
play.py's caches (same output, faster loads and steps); without it the engine runs as shipped.
"""

import argparse
import asyncio
import json
import socket
import sys
import threading
from pathlib import Path
from typing import Any, Optional

# Parse flags before importing textworld: Fast Downward's translator reads and rewrites sys.argv.
_parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
_parser.add_argument("--check", action="store_true", help="print package versions as JSON and exit")
_commands = _parser.add_subparsers(dest="command")
_serving = _commands.add_parser("serve", help="serve the games over OpenEnv")
_serving.add_argument("dir", type=Path)
_serving.add_argument("--host", default="127.0.0.1")
_serving.add_argument("--port", type=int, default=0)
_serving.add_argument("--max-envs", type=int, default=512)
_serving.add_argument("--memoize", action="store_true", help="play.py's caches: same output, faster")
ARGS = _parser.parse_args()
sys.argv = sys.argv[:1]

from importlib import metadata  # noqa: E402

import textworld  # noqa: E402
import uvicorn  # noqa: E402
from alfworld.agents.environment.alfred_tw_env import AlfredDemangler  # noqa: E402
from openenv.core.env_server import Action, Environment, Observation, State, create_fastapi_app  # noqa: E402
from pydantic import Field  # noqa: E402
from textworld.envs.pddl import PddlEnv  # noqa: E402

DEFAULT_MAX_STEPS = 50
OVER = "The episode is over; send a reset to play again."
ENGINE_LOCK = threading.Lock()
INFOS = textworld.EnvInfos(won=True, admissible_commands=True)


class AlfworldAction(Action):
    action: str = Field(description="One ALFWorld command, e.g. 'go to cabinet 1'")


class AlfworldObservation(Observation):
    text: str = Field(description="The game's answer")
    admissible_actions: list[str] = Field(description="Commands the game accepts now")
    task: str = ""
    task_id: str = ""
    won: bool = False
    valid: bool = True
    truncated: bool = False


class AlfworldState(State):
    task_id: Optional[str] = None
    won: bool = False


class AlfworldEnvironment(Environment[AlfworldAction, AlfworldObservation, AlfworldState]):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, games_dir: Path, files: dict[str, str]):
        super().__init__()
        self.games_dir = games_dir
        self.files = files
        self.env = None
        self.loaded: Optional[str] = None
        self.last: Optional[AlfworldObservation] = None
        self.steps = 0
        self.max_steps = DEFAULT_MAX_STEPS
        self._state = AlfworldState()

    def reset(
        self,
        seed: Optional[int] = None,
        episode_id: Optional[str] = None,
        task_id: Optional[str] = None,
        max_steps: Optional[int] = None,
        **kwargs: Any,
    ) -> AlfworldObservation:
        if task_id is None:
            task_id = sorted(self.files)[(seed or 0) % len(self.files)]
        if task_id not in self.files:
            raise ValueError(f"No game {task_id!r} in {self.games_dir / 'games.json'}")
        with ENGINE_LOCK:
            if self.env is None:
                self.env = AlfredDemangler(PddlEnv(INFOS))
            if self.loaded != task_id:
                with open(self.games_dir / self.files[task_id]) as handle:
                    game = json.load(handle)
                self.env.load({key: game[key] for key in ("pddl_domain", "grammar", "pddl_problem")})
                self.loaded = task_id
            state = self.env.reset()
        self.steps = 0
        self.max_steps = max_steps or DEFAULT_MAX_STEPS
        self._state = AlfworldState(episode_id=episode_id, step_count=0, task_id=task_id)
        self.last = self._observation(state, valid=True, truncated=False)
        return self.last

    def step(self, action: AlfworldAction, timeout_s: Optional[float] = None, **kwargs: Any) -> AlfworldObservation:
        if self.last is None:
            raise RuntimeError("No game yet: send a reset first")
        if self.last.done:
            return self.last.model_copy(update={"text": OVER, "admissible_actions": [], "valid": False, "reward": 0})
        command = action.action
        valid = command.strip() in self.last.admissible_actions
        with ENGINE_LOCK:
            state, _score, _done = self.env.step(command)
        self.steps += 1
        self._state.step_count = self.steps
        self.last = self._observation(state, valid=valid, truncated=self.steps >= self.max_steps)
        return self.last

    def _observation(self, state, valid: bool, truncated: bool) -> AlfworldObservation:
        won = bool(state["won"])
        self._state.won = won
        return AlfworldObservation(
            text=state.feedback,
            admissible_actions=list(state["admissible_commands"]),
            task_id=self._state.task_id or "",
            won=won,
            valid=valid,
            truncated=truncated and not won,
            done=won or truncated,
            reward=1 if won else 0,
        )

    @property
    def state(self) -> AlfworldState:
        return self._state

    def close(self) -> None:
        if self.env is not None:
            with ENGINE_LOCK:
                self.env.close()
            self.env = None
            self.loaded = None


def serve(games_dir: Path, host: str, port: int, max_envs: int) -> None:
    files = {game["task_id"]: game["file"] for game in json.loads((games_dir / "games.json").read_text())}
    app = create_fastapi_app(
        lambda: AlfworldEnvironment(games_dir, files),
        AlfworldAction,
        AlfworldObservation,
        max_concurrent_envs=max_envs,
    )
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(1024)
    bound_host, bound_port = listener.getsockname()[:2]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="websockets-sansio", backlog=1024))

    async def run() -> None:
        task = asyncio.create_task(server.serve(sockets=[listener]))
        while not server.started and not task.done():
            await asyncio.sleep(0.02)
        print(f"listening http://{bound_host}:{bound_port}", flush=True)
        await task

    asyncio.run(run())


def main() -> None:
    if ARGS.check:
        names = ("openenv-core", "textworld", "fast-downward-textworld", "alfworld", "uvicorn")
        print(json.dumps({"python": sys.version.split()[0], **{name: metadata.version(name) for name in names}}))
        return
    if ARGS.command != "serve":
        _parser.error("give a command: serve <games dir>, or --check")
    if ARGS.memoize:
        # play.py parses its own flags on import; it sees none.
        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "env-alfworld" / "reference"))
        import play

        play.memoize()
    serve(ARGS.dir, ARGS.host, ARGS.port, ARGS.max_envs)


if __name__ == "__main__":
    main()
