// What recording plan-step checks costs a `step_pass` stage on ALFWorld, two ways on the same
// episodes: checked by the rollout as it plays (what the app does), against replaying each finished
// episode on a fresh env in the reward step (`recordStepChecks`, for episodes read back from a file).
// An AdaPlan agent with plan steps picks uniformly among the choices and revises its plan every turn.
import { createRandomPolicy, createVectorEnv, rollout } from '@pilotrl/agent';
import { recordStepChecks } from '@pilotrl/rewards';
import { envCurricula, parseConfig } from '../src/config/curriculum-config';
import { runEnvOf } from '../src/run/run-envs';
import { agentOptionsFor, createAgent } from '../src/run/run-setup';
import { createStageScorer } from '../src/training/stage-rewards';

const EPISODES = 64;
const ROUNDS = 3;
// Every request of a rollout carries a seed from the rollout's, so both modes of a round play the
// same episodes; without token ids, the rollout's time is the env's and the agent's, not tokens'.
const randomChooser = createRandomPolicy({ seed: 7, name: 'random-chooser', tokens: 'none' });
const [{ config }] = envCurricula(
  parseConfig({
    env: { id: 'alfworld', maxSteps: 30 },
    agent: { actionSpace: 'choice', plan: 'steps', prompt: 'view', planRevision: 'every-turn' },
    stages: [
      {
        kind: 'joint',
        iterations: 1,
        tasksPerIteration: 2,
        groupSize: 2,
        learningRate: 1e-3,
        rewards: { outcome: 1, step_pass: 0.2, loop_penalty: 0.1 },
      },
    ],
  }),
) as [ReturnType<typeof envCurricula>[number]];
const env = runEnvOf(config);
const { provider } = env;
const stage = config.stages[0]!;
const agent = createAgent(config, randomChooser, {
  ...agentOptionsFor(config, { stage, provider, temperature: 1 }),
  contextTokens: 100_000,
});
const tasks = await provider.tasks.tasks('train', { limit: EPISODES });
const scorer = createStageScorer(config, stage, provider);
const vectorEnv = createVectorEnv(env.createEnv, { size: EPISODES });
const replayEnv = env.createEnv();

console.log(`step checks of ${EPISODES} ALFWorld episodes (30 turns at most), ${ROUNDS} rounds`);
const perEpisode = { 'in-loop': [] as number[], replay: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of ['in-loop', 'replay'] as const) {
    const started = performance.now();
    const episodes = await rollout(agent, vectorEnv, {
      envId: provider.envId,
      tasks,
      seed: round,
      recordStepChecks: mode === 'in-loop',
    });
    const played = performance.now();
    if (mode === 'replay') {
      for (const [i, episode] of episodes.entries()) {
        episodes[i] = { ...episode, stepChecks: await recordStepChecks(replayEnv, episode) };
      }
    }
    await scorer.score(episodes);
    const done = performance.now();
    const passed = episodes.reduce((sum, e) => sum + e.stepChecks!.passed.length, 0);
    perEpisode[mode].push((done - started) / episodes.length);
    console.log(
      `round ${round} ${mode.padEnd(7)}: rollout ${(played - started).toFixed(0)} ms, reward step ${(done - played).toFixed(0)} ms, ` +
        `${((done - started) / episodes.length).toFixed(1)} ms an episode in all; ${passed} steps passed`,
    );
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const inLoop = median(perEpisode['in-loop']);
const replay = median(perEpisode.replay);
console.log(
  `median rollout + reward step: in-loop ${inLoop.toFixed(1)} ms an episode, replay ${replay.toFixed(1)} ms (${(replay / inLoop).toFixed(2)}× the in-loop)`,
);
await vectorEnv.close();
await replayEnv.close?.();
