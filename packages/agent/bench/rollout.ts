// Rollout runner overhead: episodes and turns per second with a scripted expert on the corridor
// env (no model cost), for ReAct and AdaPlan at a few batch sizes. Prints figures and ratios.
import { CORRIDOR_ENV_ID, corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { createAdaPlanAgent, createReActAgent } from '../src/agent';
import { episodesToJsonl, parseEpisodesJsonl } from '../src/episode-jsonl';
import { rollout } from '../src/rollout';
import { createVectorEnv } from '../src/vector-env';
import { createExpert } from '../test/expert-policy';

const GROUP = 4;

async function measure(paradigm: 'react' | 'adaplan', tasksCount: number) {
  const tasks = await corridorTasks.tasks('train', { limit: tasksCount });
  const expert = await createExpert(corridorTasks, createCorridorEnv, tasks);
  const agent =
    paradigm === 'react'
      ? createReActAgent(expert.policy)
      : createAdaPlanAgent(expert.policy, { revision: { mode: 'every_turn' } });
  const vectorEnv = createVectorEnv(createCorridorEnv, { size: tasksCount * GROUP });
  const started = performance.now();
  const episodes = await rollout(agent, vectorEnv, { envId: CORRIDOR_ENV_ID, tasks, groupSize: GROUP });
  const seconds = (performance.now() - started) / 1000;
  const turns = episodes.reduce((sum, episode) => sum + episode.turns.length, 0);
  const jsonStarted = performance.now();
  const text = episodesToJsonl(episodes);
  parseEpisodesJsonl(text);
  const jsonSeconds = (performance.now() - jsonStarted) / 1000;
  return {
    episodes: episodes.length,
    turns,
    seconds,
    calls: expert.calls.length,
    jsonSeconds,
    bytes: text.length,
  };
}

const rows: string[] = [];
for (const paradigm of ['react', 'adaplan'] as const) {
  for (const tasksCount of [4, 16]) {
    const r = await measure(paradigm, tasksCount);
    rows.push(
      `${paradigm.padEnd(8)} envs=${String(tasksCount * GROUP).padStart(3)} episodes=${r.episodes} turns=${r.turns} ` +
        `policy calls=${r.calls} ${(r.turns / r.seconds).toFixed(0)} turns/s ${(r.episodes / r.seconds).toFixed(1)} episodes/s ` +
        `jsonl ${(r.bytes / 1e6).toFixed(2)} MB write+read ${(r.bytes / 1e6 / r.jsonSeconds).toFixed(1)} MB/s`,
    );
  }
}
console.log(rows.join('\n'));
