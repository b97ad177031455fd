"""A real OpenEnv server, built with openenv-core's server library, playing games made by TextWorld's tw-make.

@pilotrl/env-remote's engine tests play it through the remote env (src/textworld.engine.test.ts).

  python textworld_server.py make <dir> <count> [--seed S]
      runs TextWorld's `tw-make custom` <count> times (seeds S, S+1, ...) into <dir> and writes
      <dir>/games.json: each game's name (tw-game-<i>), file, objective and walkthrough, the last
      read back through textworld's API (EnvInfos extras=["walkthrough"]).
  python textworld_server.py serve <dir> [--host 127.0.0.1] [--port 0] [--max-envs 64]
      serves those games over OpenEnv (WebSocket /ws; HTTP /reset, /step, /state, /health, /schema)
      and prints one line, `listening http://<host>:<port>`, once it accepts connections.
  python textworld_server.py smoke
      makes one game in a scratch directory and plays a reset and one step on the environment the
      server serves: the setup's proof that tw-make and the game engine work on this machine.

The wire. Action {"action": "<command>"}. Observation {text, admissible_actions, won, lost, valid,
truncated, score, max_score, task, task_id}, with OpenEnv's reward (the score gained by the step)
and done. Reset data {seed?, task_id?, max_steps?}: task_id names a game of games.json, else the
game is number seed mod count (0 without a seed); max_steps (default 100) cuts an unfinished episode
(truncated, done). A command is valid when it is one of the admissible commands; one with characters
outside printable ASCII, or longer than 200, is not sent to the game. A step after the end answers
the episode-over text, done, no reward.
"""

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

import textworld
import uvicorn
from openenv.core.env_server import Action, Environment, Observation, State, create_fastapi_app
from pydantic import Field, field_validator

DEFAULT_MAX_STEPS = 100
MAX_COMMAND_CHARS = 200
OVER = "The game is over; send a reset to play again."
UNREADABLE = "That command has characters the game cannot read."
REQUESTS = textworld.EnvInfos(
    admissible_commands=True, won=True, lost=True, score=True, max_score=True, objective=True
)


class TextWorldAction(Action):
    action: str = Field(description="One TextWorld command, e.g. 'go east'")

    @field_validator("action", mode="before")
    @classmethod
    def _well_formed(cls, value: Any) -> Any:
        # JSON may carry lone surrogates, which pydantic refuses as str; the game refuses them later.
        if isinstance(value, str):
            return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        return value


class TextWorldObservation(Observation):
    text: str = Field(description="The game's answer: the objective and first room after a reset, then each command's result")
    admissible_actions: list[str] = Field(description="Commands the game accepts now")
    won: bool = False
    lost: bool = False
    valid: bool = True
    truncated: bool = False
    score: int = 0
    max_score: int = 0
    task: str = Field(default="", description="The objective in words")
    task_id: str = Field(default="", description="The game played")


class TextWorldState(State):
    game: Optional[str] = None
    score: int = 0
    won: bool = False


def readable(command: str) -> bool:
    return len(command) <= MAX_COMMAND_CHARS and all(32 <= ord(char) < 127 for char in command)


def clean(feedback: str, objective: Optional[str] = None) -> str:
    """The feedback without the prompt and status line after it (and, after a reset, the banner)."""
    if objective and objective in feedback:
        feedback = feedback[feedback.index(objective):]
    cut = feedback.rfind("\n>")
    if cut != -1:
        feedback = feedback[:cut]
    return feedback.strip()


class TextWorldEnvironment(Environment[TextWorldAction, TextWorldObservation, TextWorldState]):
    # Each session starts its own game engine (jericho loads its own copy of frotz per env).
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, games_dir: Path, games: list[dict]):
        super().__init__()
        self.games_dir = games_dir
        self.games = games
        self.engine = None
        self.game: Optional[dict] = None
        self.last: Optional[TextWorldObservation] = None
        self.steps = 0
        self.max_steps = DEFAULT_MAX_STEPS
        self._state = TextWorldState()

    def _pick(self, seed: Optional[int], task_id: Optional[str]) -> dict:
        if task_id is not None:
            for game in self.games:
                if game["name"] == task_id:
                    return game
            names = ", ".join(game["name"] for game in self.games)
            raise ValueError(f"No game named {task_id!r}; the games are {names}")
        return self.games[(seed or 0) % len(self.games)]

    def reset(
        self,
        seed: Optional[int] = None,
        episode_id: Optional[str] = None,
        task_id: Optional[str] = None,
        max_steps: Optional[int] = None,
        **kwargs: Any,
    ) -> TextWorldObservation:
        game = self._pick(seed, task_id)
        if self.game is not game:
            self.close()
            self.engine = textworld.start(str(self.games_dir / game["file"]), request_infos=REQUESTS)
            self.game = game
        state = self.engine.reset()
        self.steps = 0
        self.max_steps = max_steps or DEFAULT_MAX_STEPS
        self._state = TextWorldState(episode_id=episode_id, step_count=0, game=game["name"])
        self.last = self._observation(state, clean(state.feedback, state["objective"]), valid=True, reward=None)
        return self.last

    def step(self, action: TextWorldAction, timeout_s: Optional[float] = None, **kwargs: Any) -> TextWorldObservation:
        if self.last is None:
            raise RuntimeError("No game yet: send a reset first")
        if self.last.done:
            return self.last.model_copy(update={"text": OVER, "admissible_actions": [], "valid": False, "reward": 0})
        command = action.action
        self.steps += 1
        self._state.step_count = self.steps
        if not readable(command):
            self.last = self.last.model_copy(update={"text": UNREADABLE, "valid": False, "reward": 0})
            return self._cut(self.last)
        valid = command.strip().lower() in {known.lower() for known in self.last.admissible_actions}
        state, _score, _done = self.engine.step(command)
        self.last = self._observation(state, clean(state.feedback), valid=valid, reward=state["score"] - self.last.score)
        return self._cut(self.last)

    def _observation(self, state, text: str, valid: bool, reward: Optional[int]) -> TextWorldObservation:
        done = bool(state["won"] or state["lost"])
        self._state.score = state["score"]
        self._state.won = bool(state["won"])
        return TextWorldObservation(
            text=text,
            admissible_actions=[] if done else list(state["admissible_commands"]),
            won=bool(state["won"]),
            lost=bool(state["lost"]),
            valid=valid,
            score=state["score"],
            max_score=state["max_score"],
            task=state["objective"],
            task_id=self.game["name"],
            done=done,
            reward=reward,
        )

    def _cut(self, observation: TextWorldObservation) -> TextWorldObservation:
        """The step limit: an unfinished episode past max_steps ends, truncated."""
        if observation.done or self.steps < self.max_steps:
            return observation
        self.last = observation.model_copy(update={"truncated": True, "done": True, "admissible_actions": []})
        return self.last

    @property
    def state(self) -> TextWorldState:
        return self._state

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None
            self.game = None


def make(games_dir: Path, count: int, seed: int) -> None:
    games_dir.mkdir(parents=True, exist_ok=True)
    tw_make = Path(sys.executable).parent / "tw-make"
    games = []
    for i in range(count):
        file = f"tw-game-{i}.z8"
        subprocess.run(
            [str(tw_make), "custom", "--world-size", "3", "--nb-objects", "6", "--quest-length", "3",
             "--seed", str(seed + i), "--output", str(games_dir / file), "-f", "--silent"],
            check=True,
        )
        engine = textworld.start(
            str(games_dir / file), request_infos=textworld.EnvInfos(objective=True, extras=["walkthrough"])
        )
        opening = engine.reset()
        games.append({
            "name": f"tw-game-{i}",
            "file": file,
            "seed": seed + i,
            "objective": opening["objective"],
            "walkthrough": list(opening["extra.walkthrough"]),
        })
        engine.close()
    (games_dir / "games.json").write_text(json.dumps(games, indent=2))


def serve(games_dir: Path, host: str, port: int, max_envs: int) -> None:
    games = json.loads((games_dir / "games.json").read_text())
    app = create_fastapi_app(
        lambda: TextWorldEnvironment(games_dir, games),
        TextWorldAction,
        TextWorldObservation,
        max_concurrent_envs=max_envs,
    )
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(128)
    bound_host, bound_port = listener.getsockname()[:2]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="websockets-sansio"))

    async def run() -> None:
        task = asyncio.create_task(server.serve(sockets=[listener]))
        while not server.started and not task.done():
            await asyncio.sleep(0.02)
        print(f"listening http://{bound_host}:{bound_port}", flush=True)
        await task

    asyncio.run(run())


def smoke() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        games_dir = Path(scratch)
        make(games_dir, 1, 1234)
        env = TextWorldEnvironment(games_dir, json.loads((games_dir / "games.json").read_text()))
        opening = env.reset(seed=0)
        command = opening.admissible_actions[0]
        after = env.step(TextWorldAction(action=command))
        env.close()
        if not after.valid:
            sys.exit(f"the game refused its own admissible command {command!r}: {after.text!r}")
        print(f"made a game, reset it and played {command!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    making = commands.add_parser("make", help="make games with tw-make")
    making.add_argument("dir", type=Path)
    making.add_argument("count", type=int)
    making.add_argument("--seed", type=int, default=1234)
    serving = commands.add_parser("serve", help="serve the games over OpenEnv")
    serving.add_argument("dir", type=Path)
    serving.add_argument("--host", default="127.0.0.1")
    serving.add_argument("--port", type=int, default=0)
    serving.add_argument("--max-envs", type=int, default=64)
    commands.add_parser("smoke", help="make one game and play one step")
    args = parser.parse_args()
    if args.command == "make":
        make(args.dir, args.count, args.seed)
    elif args.command == "smoke":
        smoke()
    else:
        serve(args.dir, args.host, args.port, args.max_envs)


if __name__ == "__main__":
    main()
