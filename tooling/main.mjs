// The main job of `pnpm start` until the training app exists: plays the testkit envs with a
// scripted policy that follows the oracle, and with a seeded random policy for comparison, from
// the built packages (dist), printing one transcript per env and the success rates.
import { createRng } from '../packages/core/dist/index.js';
import { testkitEnvs } from '../packages/env-testkit/dist/index.js';
import { createScriptedPolicy } from '../packages/env-testkit/dist/test.js';

const TASKS_PER_SPLIT = 5;
const SPLITS = ['valid_seen', 'valid_unseen'];
const MAX_STEPS = 30;

const prompt = (result) => [
  { role: 'system', content: 'You play a text game. Answer with one line: "Action: <command>".' },
  {
    role: 'user',
    content: `${result.observation}\nAdmissible commands: ${result.admissibleActions.join(', ')}`,
  },
];

/** Plays one episode: the policy sees the observation and commands, the env gets its parsed action. */
async function playEpisode(env, task, policy) {
  let result = await env.reset(task);
  const lines = [`  [reset] ${result.observation.replace(/\n/g, '\n          ')}`];
  let steps = 0;
  while (!result.terminated && !result.truncated) {
    const [reply] = await policy.generate([{ messages: prompt(result), temperature: 0 }]);
    const action = /^Action: (.*)$/m.exec(reply.text)?.[1] ?? reply.text;
    result = await env.step(action);
    steps += 1;
    lines.push(`  > ${action}\n    ${result.observation}`);
  }
  const outcome = result.info.won ? 'won' : result.terminated ? 'lost' : 'truncated';
  lines.push(`  = ${outcome} after ${steps} steps, return ${result.reward}`);
  return { won: result.info.won, steps, lines };
}

const oraclePolicy = (solution) =>
  createScriptedPolicy(
    solution.actions.map((action) => `Action: ${action}`),
    { name: 'oracle' },
  );

const randomPolicy = (seed) => {
  const rng = createRng(seed);
  return createScriptedPolicy(
    (request) => {
      const commands = /Admissible commands: (.*)$/m.exec(request.messages.at(-1).content)[1].split(', ');
      return `Action: ${rng.pick(commands)}`;
    },
    { name: 'random' },
  );
};

const rows = [];
for (const { envId, create, tasks } of testkitEnvs) {
  const env = create({ maxSteps: MAX_STEPS });
  const tally = { oracle: { won: 0, steps: 0 }, random: { won: 0, steps: 0 }, episodes: 0 };
  for (const split of SPLITS) {
    for (const task of await tasks.tasks(split, { limit: TASKS_PER_SPLIT })) {
      const solution = await tasks.oracle(task);
      const oracle = await playEpisode(env, task, oraclePolicy(solution));
      const random = await playEpisode(env, task, randomPolicy(`${envId}/${task.taskId}`));
      if (tally.episodes === 0) {
        console.log(`\n${envId} · ${task.taskId} · scripted oracle policy`);
        console.log(`  plan: ${solution.plan.map((step, i) => `Step ${i + 1}: ${step}`).join(' ')}`);
        console.log(oracle.lines.join('\n'));
      }
      tally.episodes += 1;
      for (const [name, run] of [
        ['oracle', oracle],
        ['random', random],
      ]) {
        tally[name].won += run.won ? 1 : 0;
        tally[name].steps += run.steps;
      }
    }
  }
  rows.push([envId, tally]);
}

const percent = (part, whole) => `${((100 * part) / whole).toFixed(0)}%`.padStart(5);
console.log(
  `\nSuccess rate over ${SPLITS.join(' + ')} (${TASKS_PER_SPLIT} tasks each, step limit ${MAX_STEPS}):`,
);
console.log(
  `  ${'env'.padEnd(18)} ${'oracle'.padStart(6)} ${'steps'.padStart(6)} ${'random'.padStart(7)} ${'steps'.padStart(6)}`,
);
const total = { oracle: 0, random: 0, episodes: 0 };
for (const [envId, tally] of rows) {
  const meanSteps = (name) => (tally[name].steps / tally.episodes).toFixed(1).padStart(6);
  console.log(
    `  ${envId.padEnd(18)} ${percent(tally.oracle.won, tally.episodes).padStart(6)} ${meanSteps('oracle')} ` +
      `${percent(tally.random.won, tally.episodes).padStart(7)} ${meanSteps('random')}`,
  );
  total.oracle += tally.oracle.won;
  total.random += tally.random.won;
  total.episodes += tally.episodes;
}
console.log(
  `  ${'all'.padEnd(18)} ${percent(total.oracle, total.episodes).padStart(6)} ${''.padStart(6)} ` +
    `${percent(total.random, total.episodes).padStart(7)}`,
);
if (total.oracle !== total.episodes) {
  console.error('The oracle policy failed a task: the testkit envs or their oracles are broken.');
  process.exit(1);
}
