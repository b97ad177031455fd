// Env steps per second of our engine and of the reference engine (TextWorld's PDDL env with
// ALFWorld's demangler, run by reference/play.py) on the same generated scenes and actions, with
// the admissible commands computed on every step, on one core each. Prints both and the ratio.
import { createRng } from '@pilotrl/core';
import {
  playReference,
  type ReferenceEpisode,
  type ReferenceJob,
  referenceInstalled,
  referenceSetupCommand,
  referenceVersions,
} from '../reference/client';
import { GameEngine } from '../src/engine';
import { compileGame } from '../src/game';
import { type Dialect, writeGameFile } from '../src/game-file';
import { generateScene, possibleTaskTypes } from '../src/generator';
import { taskTypes } from '../src/vocabulary';

const scenesPerTaskType = 2;
const stepsPerScene = 50;
/** Our engine replays each scene this many times, so its timing spans more than a few milliseconds. */
const ourRepeats = 20;

const floorPlans = Array.from({ length: 30 }, (_, i) => [1 + i, 201 + i, 301 + i, 401 + i]).flat();

interface BenchScene {
  id: string;
  game: { pddl_domain: string; grammar: string; pddl_problem: string };
  actions: string[];
}

function scenes(): BenchScene[] {
  const out: BenchScene[] = [];
  for (let i = 0; i < scenesPerTaskType * taskTypes.length; i++) {
    const taskType = taskTypes[i % taskTypes.length]!;
    const dialect: Dialect = Math.floor(i / taskTypes.length) % 2 === 0 ? 'legacy' : 'current';
    const plans = floorPlans.filter((plan) => possibleTaskTypes(plan).includes(taskType));
    const scene = generateScene({ floorPlan: plans[(i * 11) % plans.length]!, trial: 1000 + i, taskType });
    const { pddl_domain, grammar, pddl_problem } = writeGameFile(scene, { dialect });
    const game = { pddl_domain, grammar, pddl_problem };
    // The actions: uniform draws from our engine's admissible commands.
    const engine = new GameEngine(compileGame({ domain: pddl_domain, problem: pddl_problem, grammar }));
    engine.reset();
    const rng = createRng(`bench/${i}`);
    const actions: string[] = [];
    for (let k = 0; k < stepsPerScene; k++) {
      const action = rng.pick(engine.admissibleCommands());
      actions.push(action);
      engine.step(action);
    }
    out.push({ id: `scene-${i}-${taskType}-${dialect}`, game, actions });
  }
  return out;
}

interface Timing {
  steps: number;
  stepSeconds: number;
  loadSeconds: number;
  loads: number;
}

function timeOurs(benchScenes: readonly BenchScene[]): {
  timing: Timing;
  transcripts: Map<string, string[]>;
} {
  const timing: Timing = { steps: 0, stepSeconds: 0, loadSeconds: 0, loads: 0 };
  const transcripts = new Map<string, string[]>();
  for (const scene of benchScenes) {
    const { pddl_domain: domain, pddl_problem: problem, grammar } = scene.game;
    const loadStart = performance.now();
    const engine = new GameEngine(compileGame({ domain, problem, grammar }));
    engine.reset();
    engine.admissibleCommands();
    timing.loadSeconds += (performance.now() - loadStart) / 1000;
    timing.loads++;
    const lines = [engine.reset(), engine.admissibleCommands().join('|')];
    for (const action of scene.actions) {
      const { feedback } = engine.step(action);
      lines.push(feedback, engine.admissibleCommands().join('|'), String(engine.won()));
    }
    transcripts.set(scene.id, lines);
    for (let repeat = 0; repeat < ourRepeats; repeat++) {
      engine.reset();
      const start = performance.now();
      for (const action of scene.actions) {
        engine.step(action);
        engine.admissibleCommands();
        engine.won();
      }
      timing.stepSeconds += (performance.now() - start) / 1000;
      timing.steps += scene.actions.length;
    }
  }
  return { timing, transcripts };
}

function referenceTiming(episodes: readonly ReferenceEpisode[]): Timing {
  return {
    steps: episodes.reduce((sum, episode) => sum + episode.steps.length - 1, 0),
    stepSeconds: episodes.reduce((sum, episode) => sum + episode.stepSeconds, 0),
    loadSeconds: episodes.reduce((sum, episode) => sum + episode.loadSeconds, 0),
    loads: episodes.length,
  };
}

function sameTranscript(ours: readonly string[], episode: ReferenceEpisode): number {
  let same = 0;
  episode.steps.forEach((step, k) => {
    const agrees =
      k === 0
        ? ours[0] === step.observation && ours[1] === step.admissible.join('|')
        : ours[3 * k - 1] === step.observation &&
          ours[3 * k] === step.admissible.join('|') &&
          ours[3 * k + 1] === String(step.won);
    if (agrees && k > 0) same++;
  });
  return same;
}

const perSecond = (timing: Timing) => timing.steps / timing.stepSeconds;
const loadMs = (timing: Timing) => (1000 * timing.loadSeconds) / timing.loads;
const fmt = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function main(): Promise<void> {
  const benchScenes = scenes();
  const totalSteps = benchScenes.length * stepsPerScene;
  console.log(
    `ALFWorld engine vs reference: ${benchScenes.length} generated scenes (${taskTypes.length} task types x 2 dialects) x ${stepsPerScene} random admissible steps, admissible commands on every step, one core each`,
  );
  const { timing: ours, transcripts } = timeOurs(benchScenes);
  const row = (name: string, timing: Timing) =>
    `  ${name.padEnd(34)}${fmt(perSecond(timing)).padStart(12)} steps/s${fmt(loadMs(timing), 1).padStart(12)} ms load+reset per scene`;
  console.log(row(`ours (TypeScript, ${ourRepeats} replays)`, ours));

  if (!referenceInstalled()) {
    console.log(`  reference: not installed; run ${referenceSetupCommand} to compare against it`);
    return;
  }
  const versions = referenceVersions();
  const jobs: ReferenceJob[] = benchScenes.map((scene) => ({
    id: scene.id,
    game: scene.game,
    actions: scene.actions,
  }));
  const plain = await playReference(jobs);
  const memoized = await playReference(jobs, { memoize: true });
  const reference = referenceTiming(plain);
  const fast = referenceTiming(memoized);
  const label = `reference (textworld ${versions.textworld}, alfworld ${versions.alfworld}, python ${versions.python})`;
  console.log(row('reference, as shipped', reference));
  console.log(row('reference, play.py --memoize', fast));
  console.log(`  ${label}`);
  console.log(
    `  ratio ours/reference: ${fmt(perSecond(ours) / perSecond(reference))}x steps/s (${fmt(perSecond(ours) / perSecond(fast))}x against --memoize), ${fmt(loadMs(reference) / loadMs(ours), 1)}x load+reset`,
  );
  const agreeing = plain.reduce(
    (sum, episode) => sum + sameTranscript(transcripts.get(episode.id)!, episode),
    0,
  );
  console.log(`  identical observation, admissible commands and won: ${agreeing} of ${totalSteps} steps`);
}

await main();
