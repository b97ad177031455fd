// How TfjsPolicy samples: free requests in batches of `maxBatch`, choice requests scored in
// batches of similar packed length and drawn from the constrained distribution, raw-id prompts for
// benchmarks, and the checks that refuse a prompt (or prompt + choices) the context cannot hold.
import {
  createRng,
  type GenerateResult,
  InvalidArgumentError,
  type ResolvedGenerateRequest,
  type Rng,
} from '@pilotrl/core';
import {
  type GeneratedSequence,
  type GenerateOptions,
  generateBatch,
  type SamplingSettings,
} from './generate';
import type { TransformerModel } from './model';
import {
  type CandidateScores,
  type ConstrainedScores,
  packedLength,
  scoreCandidates,
  scoreChoices,
} from './packed-scoring';
import type { PrefixCache } from './prefix-cache';
import { END_ID, type Tokenizer } from './tokenizer';

/** What sampling reads of the policy: its model and tokenizer, batch size and current version. */
export interface SamplingTarget {
  model: TransformerModel;
  tokenizer: Tokenizer;
  /** Largest number of sequences in one forward pass. */
  maxBatch: number;
  /** Reported as `policyVersion` on every result. */
  version: number;
  /** Keys and values of prompts scored before, reused by choice requests that extend them. */
  prefixCache?: PrefixCache;
}

/**
 * Answers resolved generate requests whose messages were rendered to `prompts`, each with its own
 * rng; every prompt is checked before any batch runs.
 */
export function sampleReplies(
  target: SamplingTarget,
  requests: readonly ResolvedGenerateRequest[],
  prompts: readonly (readonly number[])[],
  rngs: readonly Rng[],
  signal?: AbortSignal,
): GenerateResult[] {
  const { model, tokenizer, maxBatch, version, prefixCache } = target;
  const results = new Array<GenerateResult>(requests.length);
  const free = requests.flatMap((r, i) => (r.choices === undefined ? [i] : []));
  const constrained = requests.flatMap((r, i) => (r.choices === undefined ? [] : [i]));
  prompts.forEach((prompt, i) => {
    checkPromptFits(model, prompt, `generate request ${i}`);
  });
  for (const chunk of chunks(free, maxBatch)) {
    signal?.throwIfAborted();
    const settings = chunk.map((i) => samplingSettings(requests[i]!, rngs[i]!));
    const outputs = generateBatch(
      model,
      tokenizer,
      chunk.map((i) => prompts[i]!),
      settings,
    );
    chunk.forEach((i, k) => {
      results[i] = freeResult(outputs[k]!, prompts[i]!, version);
    });
  }
  // Constrained requests are scored in batches of similar packed length, so that short ones are
  // not padded to the longest of a mixed batch; each keeps its own rng, so results do not depend
  // on the order.
  const candidates = new Map(constrained.map((i) => [i, choiceTokenIds(tokenizer, requests[i]!.choices!)]));
  const packed = new Map(
    constrained.map((i) => [
      i,
      checkChoicesFit(model, prompts[i]!, candidates.get(i)!, `generate request ${i}`),
    ]),
  );
  const byLength = [...constrained].sort((a, b) => packed.get(a)! - packed.get(b)!);
  for (const chunk of chunks(byLength, maxBatch)) {
    signal?.throwIfAborted();
    const scores = scoreChoices(
      model,
      chunk.map((i) => ({
        prompt: prompts[i]!,
        candidates: candidates.get(i)!,
        temperature: requests[i]!.temperature,
      })),
      prefixCache,
    );
    chunk.forEach((i, k) => {
      results[i] = choiceResult(requests[i]!, prompts[i]!, candidates.get(i)!, scores[k]!, rngs[i]!, version);
    });
  }
  return results;
}

/** Samples continuations of raw prompt ids (no chat template), prompt i with fork i of the seed. */
export function sampleFromIds(
  model: TransformerModel,
  tokenizer: Tokenizer,
  prompts: readonly (readonly number[])[],
  settings: Omit<SamplingSettings, 'rng'> & { seed?: number },
  options: GenerateOptions,
): GeneratedSequence[] {
  prompts.forEach((p, i) => {
    checkPromptFits(model, p, `prompt ${i}`);
  });
  const rng = createRng(settings.seed ?? 0);
  return generateBatch(
    model,
    tokenizer,
    prompts,
    prompts.map((_, i) => ({ ...settings, rng: rng.fork(i) })),
    options,
  );
}

/** Scores continuations of one prompt packed into one sequence, after checking they fit. */
export function scorePackedContinuations(
  model: TransformerModel,
  prompt: readonly number[],
  continuations: readonly (readonly number[])[],
): CandidateScores {
  if (continuations.length === 0 || continuations.some((c) => c.length === 0)) {
    throw new InvalidArgumentError(
      'scoreContinuations needs at least one continuation, each of one token or more',
    );
  }
  const request = { prompt, candidates: continuations };
  checkPromptFits(model, prompt, 'scoreContinuations prompt');
  const length = packedLength(request);
  if (length > model.config.contextLength) {
    throw new InvalidArgumentError(
      `prompt + continuations pack to ${length} tokens but the context holds ${model.config.contextLength}; score fewer continuations per call`,
    );
  }
  return scoreCandidates(model, [request])[0]!;
}

/** The token ids of each choice, each ended by `<|end|>`, as they are scored and trained on. */
export function choiceTokenIds(tokenizer: Tokenizer, choices: readonly string[]): number[][] {
  return choices.map((choice) => [...tokenizer.encode(choice), END_ID]);
}

function checkPromptFits(model: TransformerModel, prompt: readonly number[], where: string): void {
  const limit = model.config.contextLength;
  if (prompt.length === 0 || prompt.length >= limit) {
    throw new InvalidArgumentError(
      `${where}: the prompt has ${prompt.length} tokens but must have 1 to ${limit - 1} (contextLength ${limit}); shorten the history in the prompt`,
    );
  }
}

/** The packed length of prompt + choices, checked against the context. */
function checkChoicesFit(
  model: TransformerModel,
  prompt: readonly number[],
  candidates: readonly number[][],
  where: string,
): number {
  const length = packedLength({ prompt, candidates });
  if (length > model.config.contextLength) {
    throw new InvalidArgumentError(
      `${where}: prompt + choices pack to ${length} tokens but the context holds ${model.config.contextLength}; offer fewer choices or a shorter prompt`,
    );
  }
  return length;
}

function freeResult(output: GeneratedSequence, prompt: readonly number[], version: number): GenerateResult {
  return {
    text: output.text,
    tokenIds: output.tokenIds,
    logprobs: output.logprobs,
    promptTokenIds: [...prompt],
    finishReason: output.finishReason,
    policyVersion: version,
  };
}

/**
 * The reply to a choice request from its candidates' scores: the most likely choice at temperature
 * 0, else one drawn from the constrained distribution with `rng` (HfPolicy answers with it too).
 */
export function choiceResult(
  request: ResolvedGenerateRequest,
  prompt: readonly number[],
  candidates: readonly number[][],
  scores: ConstrainedScores,
  rng: Rng,
  version: number,
): GenerateResult {
  const choices = request.choices!;
  const logprobs = scores.constrainedLogprobs;
  // A repeated choice is one string of the distribution: only its first occurrence is drawn,
  // and every occurrence reports that string's logprob.
  const distinct = choices.map((choice, i) => choices.indexOf(choice) === i);
  // Greedy picks the most likely whole choice; sampling draws from the constrained distribution,
  // which equals sampling token by token within the trie.
  let index = 0;
  if (request.temperature === 0) {
    logprobs.forEach((lp, i) => {
      if (lp > logprobs[index]!) index = i;
    });
  } else {
    index = rng.weightedIndex(logprobs.map((lp, i) => (distinct[i] ? Math.exp(lp) : 0)));
  }
  return {
    text: choices[index]!,
    tokenIds: candidates[index]!,
    logprobs: scores.constrainedTokenLogprobs[index]!,
    allowedTokenIds: allowedAlong(candidates, index),
    promptTokenIds: [...prompt],
    finishReason: 'choice',
    choiceIndex: index,
    choiceLogprobs: logprobs,
    policyVersion: version,
  };
}

/**
 * Per token of candidates[chosen], the distinct next tokens of the candidates that share its
 * prefix so far: the set constrained decoding picked that token from.
 */
function allowedAlong(candidates: readonly (readonly number[])[], chosen: number): number[][] {
  const path = candidates[chosen]!;
  let sharing = candidates;
  return path.map((token, depth) => {
    const allowed = [...new Set(sharing.flatMap((c) => (c.length > depth ? [c[depth]!] : [])))];
    sharing = sharing.filter((c) => c[depth] === token);
    return allowed;
  });
}

function samplingSettings(request: ResolvedGenerateRequest, rng: Rng): SamplingSettings {
  return {
    maxTokens: request.maxTokens,
    temperature: request.temperature,
    topP: request.topP,
    stop: request.stop,
    rng,
  };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
