import { createAdaPlanAgent, createReActAgent, evaluate, rollout } from '@pilotrl/agent';
import { corridorTasks, createCorridorEnv, createVectorEnv } from '@pilotrl/env-testkit';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';

// Any core Policy fits: a TfjsPolicy sampler, the OpenAI-compatible client, or this scripted one.
const plan = '<global_plan>Step 1: Look around.\nStep 2: Stop.</global_plan>';
const act = '<thought>Step 1: see where I am.</thought><action>look</action>';
const policy = createScriptedPolicy((request) => (request.stop.includes('</global_plan>') ? plan : act));
const vectorEnv = createVectorEnv(createCorridorEnv, { size: 8 });
const tasks = await corridorTasks.tasks('train', { limit: 4 });
const adaplan = createAdaPlanAgent(policy, { maxTurns: 5 });
const episodes = await rollout(adaplan, vectorEnv, { envId: corridorTasks.envId, tasks, groupSize: 2 });
const react = createReActAgent(policy, { maxTurns: 5 });
const report = await evaluate(react, { taskSource: corridorTasks, vectorEnv }, 'valid_seen', { limit: 8 });
console.log(episodes.length, report.successRate, report.ci95, report.meanSteps, report.formatErrorRate);
