// The envs a run trains on: one, or a mixture of several with weights, each with its provider and
// the curriculum as it plays it (its env section and agent). A mixture shares the training tasks,
// demonstrations and tokenizer corpus out by weight and reports success per env.
import { type Episode, mean, type Rng, type TextEnv } from '@pilotrl/core';
import { type CurriculumConfig, type EnvCurriculum, envCurricula } from '../config/curriculum-config';
import { type EnvProvider, envProviders } from '../plugins/registry';

export interface RunEnv {
  /** The env's registry id: what its per-env metrics and eval records are keyed by. */
  id: string;
  /** Its share of the training tasks, relative to the other envs' weights (1 for a single env). */
  weight: number;
  /** The curriculum as this env plays it. */
  config: EnvCurriculum;
  provider: EnvProvider;
  /** The options every env of the run is made with (the env section's, and its step limit), resolved once. */
  envOptions: Readonly<Record<string, unknown>>;
  /** A fresh env made with `envOptions`. */
  createEnv(): TextEnv;
}

export function envProviderFor(config: EnvCurriculum): EnvProvider {
  return envProviders.get(config.env.id)(envOptionsFor(config));
}

/** The env options of a curriculum as its env plays it: the env section's, and its step limit. */
export function envOptionsFor(config: EnvCurriculum): Record<string, unknown> {
  return { ...config.env.options, maxSteps: config.env.maxSteps };
}

/** One env of a run: its curriculum, provider and env options, resolved once. */
export function runEnvOf(
  config: EnvCurriculum,
  {
    id = config.env.id,
    weight = 1,
    provider = envProviderFor(config),
  }: Partial<Pick<RunEnv, 'id' | 'weight' | 'provider'>> = {},
): RunEnv {
  const envOptions = Object.freeze(envOptionsFor(config));
  return { id, weight, config, provider, envOptions, createEnv: () => provider.createEnv({ ...envOptions }) };
}

export function runEnvsFor(config: CurriculumConfig): RunEnv[] {
  return envCurricula(config).map(({ id, weight, config: env }) => runEnvOf(env, { id, weight }));
}

/**
 * `total` shared out by weight, largest remainders first (ties to the earlier env), every env
 * getting at least one while there are enough to go round: deterministic, for fixed budgets
 * (demonstrations, tokenizer corpus).
 */
export function shareByWeight(total: number, envs: readonly Pick<RunEnv, 'weight'>[]): number[] {
  const sum = envs.reduce((s, env) => s + env.weight, 0);
  const exact = envs.map((env) => (total * env.weight) / sum);
  const shares = exact.map(Math.floor);
  const byRemainder = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0]);
  for (let left = total - shares.reduce((s, n) => s + n, 0), k = 0; left > 0; left--, k++) {
    shares[byRemainder[k % envs.length]![1]]! += 1;
  }
  for (let i = 0; i < shares.length && total >= envs.length; i++) {
    if (shares[i] === 0) {
      const richest = shares.indexOf(Math.max(...shares));
      shares[richest]! -= 1;
      shares[i] = 1;
    }
  }
  return shares;
}

/**
 * How many of `count` tasks each env plays this iteration: each task's env drawn by weight from
 * the run's RNG. A single env takes them all without a draw, so its runs are as before mixtures.
 */
export function drawEnvCounts(rng: Rng, count: number, envs: readonly Pick<RunEnv, 'weight'>[]): number[] {
  if (envs.length === 1) return [count];
  const sum = envs.reduce((s, env) => s + env.weight, 0);
  const counts = envs.map(() => 0);
  for (let task = 0; task < count; task++) {
    let pick = rng.float() * sum;
    let index = 0;
    while (index < envs.length - 1 && pick >= envs[index]!.weight) pick -= envs[index++]!.weight;
    counts[index]! += 1;
  }
  return counts;
}

/**
 * A mixture's per-env training metrics (`charts/success_rate/<env>`, `charts/episodes/<env>`);
 * none for a single env, whose metrics stay as they were.
 */
export function perEnvMetrics(envs: readonly RunEnv[], episodes: readonly Episode[]): Record<string, number> {
  if (envs.length === 1) return {};
  const metrics: Record<string, number> = {};
  for (const env of envs) {
    const played = episodes.filter((episode) => episode.envId === env.provider.envId);
    metrics[`charts/episodes/${env.id}`] = played.length;
    if (played.length > 0)
      metrics[`charts/success_rate/${env.id}`] = mean(played.map((e) => (e.won ? 1 : 0)));
  }
  return metrics;
}
