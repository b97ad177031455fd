"""The OpenEnv client environment's smoke check: a one-method environment served by openenv-core's
own server library on a free loopback port, reset and stepped once through the real client
(GenericEnvClient), as the engine tests drive our server."""

import asyncio
import socket
import sys
import threading
import time
from typing import Any, Optional

import uvicorn
from openenv.core import GenericEnvClient
from openenv.core.env_server import Action, Environment, Observation, State, create_fastapi_app


class EchoAction(Action):
    action: str


class EchoObservation(Observation):
    text: str


class EchoEnvironment(Environment[EchoAction, EchoObservation, State]):
    def __init__(self) -> None:
        super().__init__()
        self._state = State()

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> EchoObservation:
        self._state = State(episode_id=episode_id, step_count=0)
        return EchoObservation(text="ready", done=False, reward=None)

    def step(self, action: EchoAction, timeout_s: Optional[float] = None, **kwargs: Any) -> EchoObservation:
        self._state.step_count += 1
        return EchoObservation(text=action.action, done=True, reward=1.0)

    @property
    def state(self) -> State:
        return self._state


app = create_fastapi_app(EchoEnvironment, EchoAction, EchoObservation)
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)
port = listener.getsockname()[1]
server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[listener])), daemon=True)
thread.start()
deadline = time.monotonic() + 30
while not server.started:
    if time.monotonic() > deadline or not thread.is_alive():
        sys.exit("openenv-core's server did not start")
    time.sleep(0.05)
try:
    with GenericEnvClient(base_url=f"http://127.0.0.1:{port}").sync() as env:
        opening = env.reset()
        result = env.step({"action": "hello"})
    if opening.observation["text"] != "ready" or result.observation["text"] != "hello" or not result.done:
        sys.exit(f"the OpenEnv client read back {opening.observation!r} then {result.observation!r}")
    print("reset and one step through GenericEnvClient")
finally:
    server.should_exit = True
    thread.join(timeout=10)
