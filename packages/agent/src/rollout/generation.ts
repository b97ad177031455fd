// A policy answer as the episode records it: the prompt and completion token ids in one sequence,
// the loss on the completion only.
import type { GenerateResult, Generation } from '@pilotrl/core';

/** A generation record: prompt + completion ids, loss on the completion only. */
export function toGeneration(kind: Generation['kind'], result: GenerateResult): Generation {
  const prompt = result.promptTokenIds.length;
  const completion = result.tokenIds.length;
  return {
    kind,
    text: result.text,
    tokenIds: [...result.promptTokenIds, ...result.tokenIds],
    lossMask: [...new Array<0>(prompt).fill(0), ...new Array<1>(completion).fill(1)],
    logprobs: [...new Array<number>(prompt).fill(0), ...result.logprobs],
    policyVersion: result.policyVersion,
    finishReason: result.finishReason,
    // Constrained decoding's logprobs are normalised over these sets; a trainer needs them too.
    ...(result.allowedTokenIds !== undefined
      ? { allowedTokenIds: [...new Array<null>(prompt).fill(null), ...result.allowedTokenIds] }
      : {}),
  };
}
