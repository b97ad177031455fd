// A small but complete TrainablePolicy for tests of the update step: a bigram softmax model
// (next-token logits indexed by the previous token) with a value table, exact gradients, Adam with
// global-norm clipping, and a sampler of one-token actions. Every number it returns can be
// checked by hand.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  adamParamsSchema,
  createRng,
  type Datum,
  type ForwardBackwardOptions,
  type ForwardResult,
  forwardBackwardOptionsSchema,
  type GenerateRequest,
  type GenerateResult,
  generateRequestSchema,
  type LossFn,
  type Policy,
  type TrainablePolicy,
} from '@pilotrl/core';

export interface TabularPolicy extends TrainablePolicy {
  /** logits[previous][next] */
  readonly logits: number[][];
  readonly values: number[];
  readonly vocabulary: readonly string[];
}

export function createTabularPolicy(vocabulary: readonly string[], seed = 0): TabularPolicy {
  const size = vocabulary.length;
  const ids = new Map(vocabulary.map((word, id) => [word, id]));
  const logits = Array.from({ length: size }, () => new Array<number>(size).fill(0));
  const values = new Array<number>(size).fill(0);
  const zeros = () => ({ logits: logits.map((row) => row.map(() => 0)), values: values.map(() => 0) });
  let gradient = zeros();
  let firstMoment = zeros();
  let secondMoment = zeros();
  let version = 0;
  let steps = 0;
  const sampleRng = createRng(seed);

  const distribution = (previous: number): number[] => {
    const row = logits[previous]!;
    const max = Math.max(...row);
    const exps = row.map((value) => Math.exp(value - max));
    const total = exps.reduce((sum, value) => sum + value, 0);
    return exps.map((value) => value / total);
  };
  const encode = (text: string): number[] =>
    text
      .split(/\s+/)
      .filter((word) => word.length > 0)
      .map((word) => {
        const id = ids.get(word);
        if (id === undefined) throw new Error(`tabular policy: "${word}" is not in the vocabulary`);
        return id;
      });
  const forwardOne = (datum: Datum): ForwardResult => {
    const result = { logprobs: [0], entropies: [0], values: [0] } satisfies ForwardResult;
    for (let t = 1; t < datum.tokenIds.length; t++) {
      const p = distribution(datum.tokenIds[t - 1]!);
      result.logprobs.push(Math.log(p[datum.tokenIds[t]!]!));
      result.entropies.push(-p.reduce((sum, q) => sum + (q > 0 ? q * Math.log(q) : 0), 0));
      result.values.push(values[datum.tokenIds[t - 1]!]!);
    }
    return result;
  };

  const policy: TabularPolicy = {
    name: 'tabular',
    logits,
    values,
    vocabulary,
    get version() {
      return version;
    },
    encode,
    async forward(datums) {
      return datums.map(forwardOne);
    },
    async forwardBackward(datums, loss: LossFn | 'cross_entropy', options: ForwardBackwardOptions = {}) {
      const { entropyCoef, valueCoef } = forwardBackwardOptionsSchema.parse(options);
      const forward = datums.map(forwardOne);
      const logprobs = forward.map((result) => result.logprobs);
      const output =
        loss === 'cross_entropy'
          ? {
              loss: -datums.reduce(
                (sum, d, i) => sum + d.weights.reduce((s, w, t) => s + w * logprobs[i]![t]!, 0),
                0,
              ),
              gradLogprobs: datums.map((d) => d.weights.map((w) => -w)),
            }
          : loss({ datums, logprobs });
      let total = output.loss;
      datums.forEach((datum, d) => {
        for (let t = 1; t < datum.tokenIds.length; t++) {
          const previous = datum.tokenIds[t - 1]!;
          const p = distribution(previous);
          const entropy = forward[d]!.entropies![t]!;
          const weight = datum.weights[t]!;
          const gradLogprob = output.gradLogprobs[d]![t]!;
          const row = gradient.logits[previous]!;
          for (let j = 0; j < p.length; j++) {
            // d logp(x)/d logit_j = 1[j = x] - p_j;  d H / d logit_j = -p_j (log p_j + H)
            row[j]! += gradLogprob * ((j === datum.tokenIds[t] ? 1 : 0) - p[j]!);
            if (entropyCoef > 0 && p[j]! > 0)
              row[j]! += entropyCoef * weight * p[j]! * (Math.log(p[j]!) + entropy);
          }
          total -= entropyCoef * weight * entropy;
          const target = datum.returns?.[t];
          if (valueCoef > 0 && target !== undefined) {
            const error = values[previous]! - target;
            gradient.values[previous]! += valueCoef * weight * error;
            total += (valueCoef * weight * error * error) / 2;
          }
        }
      });
      return { loss: total, logprobs, metrics: output.metrics ?? {} };
    },
    async optimStep(params) {
      const { learningRate, beta1, beta2, eps, weightDecay, gradClipNorm } = adamParamsSchema.parse(params);
      const flat = [...gradient.logits.flat(), ...gradient.values];
      const gradNorm = Math.sqrt(flat.reduce((sum, g) => sum + g * g, 0));
      const scale = gradClipNorm !== undefined && gradNorm > gradClipNorm ? gradClipNorm / gradNorm : 1;
      steps++;
      const update = (weights: number[], grads: number[], m: number[], v: number[]) => {
        for (let i = 0; i < weights.length; i++) {
          const g = grads[i]! * scale;
          m[i] = beta1 * m[i]! + (1 - beta1) * g;
          v[i] = beta2 * v[i]! + (1 - beta2) * g * g;
          const mHat = m[i]! / (1 - beta1 ** steps);
          const vHat = v[i]! / (1 - beta2 ** steps);
          weights[i] =
            weights[i]! - learningRate * (mHat / (Math.sqrt(vHat) + eps) + weightDecay * weights[i]!);
        }
      };
      logits.forEach((row, i) => {
        update(row, gradient.logits[i]!, firstMoment.logits[i]!, secondMoment.logits[i]!);
      });
      update(values, gradient.values, firstMoment.values, secondMoment.values);
      gradient = zeros();
      version++;
      return { gradNorm, version };
    },
    sampler(): Policy {
      return {
        name: 'tabular',
        version,
        generate: async (requests: readonly GenerateRequest[]) =>
          requests.map((raw): GenerateResult => {
            const request = generateRequestSchema.parse(raw);
            const promptTokenIds = encode(request.messages.map((m) => m.content).join(' '));
            const rng = request.seed === undefined ? sampleRng : createRng(request.seed);
            const last = promptTokenIds.at(-1) ?? 0;
            const p = distribution(last);
            if (request.choices !== undefined) {
              // One-token choices: the sampling distribution renormalised over the choices.
              const choiceIds = request.choices.map((choice) => encode(choice)[0]!);
              const mass = choiceIds.map((id) => p[id]!);
              const total = mass.reduce((sum, q) => sum + q, 0);
              const index = rng.weightedIndex(mass);
              return {
                text: request.choices[index]!,
                tokenIds: [choiceIds[index]!],
                logprobs: [Math.log(p[choiceIds[index]!]!)],
                promptTokenIds,
                finishReason: 'choice',
                choiceIndex: index,
                choiceLogprobs: mass.map((q) => Math.log(q / total)),
                policyVersion: version,
              };
            }
            const next = rng.weightedIndex(p);
            return {
              text: vocabulary[next]!,
              tokenIds: [next],
              logprobs: [Math.log(p[next]!)],
              promptTokenIds,
              finishReason: 'length',
              policyVersion: version,
            };
          }),
      };
    },
    async saveState(dir) {
      await mkdir(dir, { recursive: true });
      const state = JSON.stringify({ logits, values, firstMoment, secondMoment, version, steps });
      await writeFile(join(dir, 'state.json.tmp'), state);
      await rename(join(dir, 'state.json.tmp'), join(dir, 'state.json'));
    },
    async loadState(dir) {
      const state = JSON.parse(await readFile(join(dir, 'state.json'), 'utf8'));
      state.logits.forEach((row: number[], i: number) => {
        logits[i]!.splice(0, size, ...row);
      });
      values.splice(0, size, ...state.values);
      firstMoment = state.firstMoment;
      secondMoment = state.secondMoment;
      version = state.version;
      steps = state.steps;
    },
  };
  return policy;
}
