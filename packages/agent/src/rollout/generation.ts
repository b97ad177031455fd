// A policy answer as the episode records it: the prompt and completion token ids in one sequence,
// the loss on the completion only.
import type { GenerateResult, Generation } from '@pilotrl/core';

/** A generation record: prompt + completion ids, loss on the completion only. */
export function toGeneration(kind: Generation['kind'], result: GenerateResult): Generation {
  const prompt = result.promptTokenIds.length;
  const completion = result.tokenIds.length;
  // Filled and concatenated rather than spread: this runs for every generation of every episode.
  return {
    kind,
    text: result.text,
    tokenIds: result.promptTokenIds.concat(result.tokenIds),
    lossMask: new Array<0 | 1>(prompt + completion).fill(0, 0, prompt).fill(1, prompt),
    logprobs: new Array<number>(prompt).fill(0).concat(result.logprobs),
    policyVersion: result.policyVersion,
    finishReason: result.finishReason,
    // Constrained decoding's logprobs are normalised over these sets; a trainer needs them too.
    ...(result.allowedTokenIds !== undefined
      ? { allowedTokenIds: new Array<number[] | null>(prompt).fill(null).concat(result.allowedTokenIds) }
      : {}),
  };
}
