// The SFT warm start: the oracle's demonstrations on training tasks (of each env, by weight), then
// supervised steps on random batches of them under a warmup-cosine learning rate,
// `stepsPerIteration` an iteration.
import { ConfigError, type Datum, mean } from '@pilotrl/core';
import { sftStep, warmupCosine } from '@pilotrl/optim';
import type { RunEnv } from '../run/run-envs';
import type { RunPolicy } from '../run/run-policy';
import { runDemonstrations } from '../run/run-setup';
import type { Demonstration } from './demonstrations';
import type { PhaseRunner, RunContext } from './phase-runner';

export async function sftRunner(context: RunContext): Promise<PhaseRunner> {
  const { config, envs, policy } = context;
  const sft = config.sft!;
  const of = (env: RunEnv) => (envs.length > 1 ? ` ${env.id}` : '');
  const splits = envs.map((env) => `${env.config.env.trainSplit}${of(env)}`).join(', ');
  context.log(`sft: playing ${sft.demonstrations} ${splits} tasks with the oracle for demonstrations`);
  const played = await runDemonstrations(envs, sft.demonstrations, policy.sampler());
  const demonstrations = played.flatMap((env) => env.demonstrations);
  for (const { env, demonstrations: turns, won, tasks } of played) {
    context.log(
      `sft${of(env)}: ${turns.length} demonstration turns from the ${won} of ${tasks} tasks the oracle won`,
    );
    if (turns.length === 0) {
      throw new ConfigError(
        `none of ${tasks} oracle demonstrations of "${env.id}" fit the agent's budget; raise env.maxSteps or the context length`,
      );
    }
  }
  const won = played.reduce((sum, env) => sum + env.won, 0);
  const schedule = warmupCosine({
    peak: sft.learningRate,
    warmupSteps: sft.warmupSteps,
    totalSteps: sft.steps,
  });
  return {
    async iterate(rng, iteration) {
      const losses: number[] = [];
      let tokens = 0;
      const first = iteration * sft.stepsPerIteration;
      const last = Math.min(sft.steps, first + sft.stepsPerIteration);
      for (let step = first; step < last; step++) {
        const batch = Array.from(
          { length: sft.batchSize },
          () => demonstrations[rng.int(demonstrations.length)]!,
        );
        const datums = batch.map((demo) => demonstrationDatum(policy, demo));
        const result = await sftStep(policy, datums, { learningRate: schedule(step) });
        tokens += result.tokens;
        losses.push(result.loss);
      }
      return {
        metrics: {
          'losses/sft_loss': mean(losses),
          'charts/learning_rate': schedule(last - 1),
          'charts/demonstrations': demonstrations.length,
          'charts/demonstration_tasks_won': won,
          'charts/tokens': tokens,
        },
        episodes: [],
      };
    },
    close: async () => {},
  };
}

/** A demonstration turn as an SFT example in the policy's tokens: its prompt, then the oracle's reply. */
export function demonstrationDatum(policy: RunPolicy, demo: Demonstration): Datum {
  return policy.replyDatum({ prompt: demo.messages, response: demo.reply });
}
