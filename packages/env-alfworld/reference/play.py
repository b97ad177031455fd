"""Plays TextWorld PDDL games with the reference Python engine, for differential tests and benchmarks.

The reference is TextWorld's PddlEnv (the engine behind ALFWorld's text games) with ALFWorld's
name demangler on top, exactly as ALFWorld's AlfredTWEnv builds it. Jobs arrive as JSON lines on
stdin; every event goes out as one JSON line on stdout, so one process start serves many games.

Job (one JSON object per line):
  id        string, echoed on every output line
  game      {"pddl_domain", "grammar", "pddl_problem"}   or   gameFile: path to a .tw-pddl file
  names     "alfworld" (default: ALFWorld's demangled names such as "cabinet 3")
            or "pddl" (TextWorld's plain entity ids, as TextWorld's own tests use)
  actions   list of commands to play, in order (every one is played, even after a win)
  random    {"steps": N, "seed": S} instead of actions: pick each command uniformly from the
            admissible list with the xoshiro128** generator of @pilotrl/core's createRng(S)
            (same draws as rng.pick), stopping early on a win

Output lines for a job:
  {"id", "step": 0, "observation", "admissible", "won"}                  after reset
  {"id", "step": k, "action", "observation", "admissible", "won"}        after the k-th step
  {"id", "end": true, "steps": k, "loadSeconds", "stepSeconds"}          stepSeconds = time in step()
  {"id", "error": "..."}                                                 instead of the above on failure

Flags:
  --memoize          skip work whose result TextWorld already has or never reads: cache parses
                     of grammar and query strings and Fast Downward's translation of a domain +
                     problem (reset translates what load just translated; the replanner's
                     optimised translation is replaced by it, as nothing here replans), and
                     copy derivation contexts shallowly (their objects are never mutated).
                     Output is unchanged (the differential test checks it against the plain
                     mode); loads run about 3x and steps about 10x faster
  --check            print the versions of the reference packages as JSON and exit
  --smoke            play one step of TextWorld's own test game (fixtures/textworld) and exit: the
                     setup's proof that the engine, Fast Downward included, works on this machine
"""

import argparse
import json
import sys
import time

# Parse flags before importing textworld: Fast Downward's translator reads and rewrites sys.argv.
_parser = argparse.ArgumentParser(description="Reference TextWorld/ALFWorld player (JSON lines in and out).")
_parser.add_argument("--memoize", action="store_true")
_parser.add_argument("--check", action="store_true")
_parser.add_argument("--smoke", action="store_true")
ARGS = _parser.parse_args()
sys.argv = sys.argv[:1]

import copy  # noqa: E402
from importlib import metadata  # noqa: E402
from pathlib import Path  # noqa: E402

import fast_downward  # noqa: E402
import textworld  # noqa: E402
import textworld.envs.pddl.textgen as textgen  # noqa: E402
from textworld.envs.pddl import PddlEnv  # noqa: E402
from textworld.logic import Rule  # noqa: E402
from alfworld.agents.environment.alfred_tw_env import AlfredDemangler  # noqa: E402

MASK32 = 0xFFFFFFFF


def _imul(a, b):
    return (a * b) & MASK32


def _rotl(x, k):
    return ((x << k) | (x >> (32 - k))) & MASK32


def _fnv1a(text):
    value = 0x811C9DC5
    units = text.encode("utf-16-le")
    for i in range(0, len(units), 2):
        value ^= units[i] | (units[i + 1] << 8)
        value = _imul(value, 0x01000193)
    return value


def _seed_to_uint32(seed):
    if isinstance(seed, str):
        return _fnv1a(seed)
    high = seed // 0x100000000
    return ((seed % 0x100000000) ^ _imul(high % 0x100000000, 0x9E3779B1)) & MASK32


class CoreRng:
    """The generator of @pilotrl/core createRng: splitmix32 seeding, xoshiro128** stream."""

    def __init__(self, seed):
        state = _seed_to_uint32(seed)
        words = []
        for _ in range(4):
            state = (state + 0x9E3779B9) & MASK32
            z = state
            z = _imul(z ^ (z >> 16), 0x85EBCA6B)
            z = _imul(z ^ (z >> 13), 0xC2B2AE35)
            words.append((z ^ (z >> 16)) & MASK32)
        if not any(words):
            words[0] = 1
        self.s = words

    def uint32(self):
        s = self.s
        result = _imul(_rotl(_imul(s[1], 5), 7), 9)
        t = (s[1] << 9) & MASK32
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 11)
        return result

    def int(self, bound):
        limit = 0x100000000 - (0x100000000 % bound)
        while True:
            value = self.uint32()
            if value < limit:
                return value % bound


def memoize():
    """Caches the string parsers that dominate TextWorld's step time and the PDDL translation
    that dominates its load time. Callers mutate the symbols a grammar parse returns (they
    attach contexts), so each call gets a fresh copy; the other results are only read."""
    parse_symbols = textgen._parse_and_convert
    symbol_cache = {}

    def cached_parse_symbols(text, rule_name=None, **kwargs):
        key = (text, rule_name)
        if key not in symbol_cache:
            symbol_cache[key] = parse_symbols(text, rule_name=rule_name, **kwargs)
        return copy.deepcopy(symbol_cache[key])

    textgen._parse_and_convert = cached_parse_symbols

    parse_query = Rule.parse_conjunctive_query.__func__
    query_cache = {}

    def cached_parse_query(cls, expression):
        if expression not in query_cache:
            query_cache[expression] = parse_query(cls, expression)
        return query_cache[expression]

    Rule.parse_conjunctive_query = classmethod(cached_parse_query)

    translate = fast_downward.pddl2sas
    translation_cache = {}

    def cached_translate(domain, problem, verbose=False, optimize=False):  # noqa: ARG001
        if translation_cache.get("game") != (domain, problem):
            translation_cache.clear()  # one game at a time: memory stays flat over long batches
            translation_cache["game"] = (domain, problem)
        # The optimised translation only feeds TextWorld's replanner (policy commands and
        # walkthroughs), which this player never requests: the plain translation stands in.
        if "sas" not in translation_cache:
            translation_cache["sas"] = translate(domain, problem, verbose=verbose, optimize=False)
        return translation_cache["sas"]

    fast_downward.pddl2sas = cached_translate

    # Derivation copies its context at every symbol, deep-copying the entity infos and variables
    # it binds. Nothing mutates those objects once a game is loaded (derivation only rebinds
    # names in the copied dicts), so copying the dicts gives the same text without the cost.
    def copy_context(context):
        return {
            "state": context["state"],
            "facts": context["facts"],
            "variables": dict(context["variables"]),
            "mapping": dict(context["mapping"]),
            "entity_infos": context["entity_infos"],
        }

    textgen.copy_context = copy_context


def make_envs():
    infos = textworld.EnvInfos(won=True, admissible_commands=True)
    return {"alfworld": AlfredDemangler(PddlEnv(infos)), "pddl": PddlEnv(infos)}


def load_game(job):
    if "game" in job:
        game = job["game"]
    elif "gameFile" in job:
        with open(job["gameFile"]) as handle:
            game = json.load(handle)
    else:
        raise ValueError("a job needs 'game' (domain, grammar, problem) or 'gameFile'")
    for key in ("pddl_domain", "grammar", "pddl_problem"):
        if not isinstance(game.get(key), str):
            raise ValueError(f"the game lacks the string field '{key}'")
    return {key: game[key] for key in ("pddl_domain", "grammar", "pddl_problem")}


def event(job_id, state, step, action=None):
    line = {"id": job_id, "step": step}
    if action is not None:
        line["action"] = action
    line["observation"] = state.feedback
    line["admissible"] = list(state["admissible_commands"])
    line["won"] = bool(state["won"])
    return line


def run_job(job, envs):
    job_id = job.get("id")
    if not isinstance(job_id, str):
        raise ValueError("a job needs a string 'id'")
    names = job.get("names", "alfworld")
    if names not in envs:
        raise ValueError(f"'names' must be 'alfworld' or 'pddl', got {names!r}")
    env = envs[names]

    started = time.perf_counter()
    env.load(load_game(job))
    state = env.reset()
    load_seconds = time.perf_counter() - started
    lines = [event(job_id, state, 0)]

    step_seconds = 0.0
    if "random" in job:
        rng = CoreRng(job["random"]["seed"])
        budget = int(job["random"]["steps"])
        actions = None
    else:
        actions = job.get("actions", [])
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise ValueError("'actions' must be a list of strings")
        budget = len(actions)

    for step in range(1, budget + 1):
        if actions is None:
            if state["won"]:
                break
            admissible = state["admissible_commands"]
            action = admissible[rng.int(len(admissible))]
        else:
            action = actions[step - 1]
        started = time.perf_counter()
        state, _, _ = env.step(action)
        step_seconds += time.perf_counter() - started
        lines.append(event(job_id, state, step, action))

    lines.append({"id": job_id, "end": True, "steps": len(lines) - 1,
                  "loadSeconds": load_seconds, "stepSeconds": step_seconds})
    return lines


def smoke():
    fixtures = Path(__file__).parent / "fixtures" / "textworld"
    game = {key: (fixtures / name).read_text()
            for key, name in (("pddl_domain", "domain.pddl"), ("grammar", "grammar.twl2"),
                              ("pddl_problem", "problem.pddl"))}
    lines = run_job({"id": "smoke", "game": game, "names": "pddl", "random": {"steps": 1, "seed": 1}},
                    make_envs())
    if len(lines) != 3 or not lines[0]["admissible"] or "action" not in lines[1]:
        sys.exit(f"the reference engine did not play one step: {lines}")
    print(f"reset and one step ({lines[1]['action']!r}) in {lines[2]['loadSeconds'] + lines[2]['stepSeconds']:.2f} s")


def main():
    if ARGS.check:
        versions = {name: metadata.version(name) for name in ("textworld", "fast-downward-textworld", "alfworld")}
        print(json.dumps({"python": sys.version.split()[0], **versions}))
        return
    if ARGS.smoke:
        smoke()
        return
    if ARGS.memoize:
        memoize()
    envs = make_envs()
    out = sys.stdout
    for raw in sys.stdin:
        if not raw.strip():
            continue
        job_id = None
        try:
            job = json.loads(raw)
            job_id = job.get("id") if isinstance(job, dict) else None
            if not isinstance(job, dict):
                raise ValueError("a job must be a JSON object")
            lines = run_job(job, envs)
        except Exception as error:  # one bad job must not stop the batch
            lines = [{"id": job_id, "error": f"{type(error).__name__}: {error}"}]
        out.write("".join(json.dumps(line) + "\n" for line in lines))
        out.flush()


if __name__ == "__main__":
    main()
