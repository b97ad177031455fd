// Choice requests on the Hugging Face decoder: each choice's tokens (its text, then the end of the
// turn) scored after the prompt by a causal pass over prompt + choice, and the distribution of
// decoding constrained to the choices: at every prefix, a softmax (at the request's temperature)
// over the distinct next tokens of the choices that share it, as TfjsPolicy's packed scoring gives.
import * as tf from '@tensorflow/tfjs-core';
import { inScope, targetLogprobs } from '../model';
import type { CandidateScores } from '../packed-scoring';
import type { BpeTokenizer } from './bpe-tokenizer';
import type { HfDecoderModel } from './llama';

/** The token ids of each choice, each ended by the end-of-turn id, as they are scored and trained on. */
export function hfChoiceIds(
  tokenizer: BpeTokenizer,
  endOfTurnId: number,
  choices: readonly string[],
): number[][] {
  return choices.map((choice) => [...tokenizer.encode(choice), endOfTurnId]);
}

/**
 * Scores `candidates` after `prompt`, at most `maxBatch` of them per pass (each a right-padded row
 * of prompt + candidate from position 0); the constrained distribution is at `temperature` (1 when 0).
 */
export async function scoreHfChoices(
  model: HfDecoderModel,
  prompt: readonly number[],
  candidates: readonly (readonly number[])[],
  temperature: number,
  maxBatch: number,
): Promise<CandidateScores> {
  const tokenLogprobs: number[][] = [];
  for (let first = 0; first < candidates.length; first += maxBatch) {
    const chunk = candidates.slice(first, first + maxBatch);
    const time = prompt.length + Math.max(...chunk.map((c) => c.length));
    const ids = chunk.map((c) => {
      const row = [...prompt, ...c];
      return [...row, ...new Array<number>(time - row.length).fill(0)];
    });
    // Row b's token d is predicted at position prompt.length - 1 + d of that row.
    const rows = chunk.flatMap((c, b) => c.map((_, d) => b * time + prompt.length - 1 + d));
    const targets = chunk.flat();
    const values = inScope(() => {
      const input = tf.tensor2d(ids, [chunk.length, time], 'int32');
      const positions = tf.tile(tf.range(0, time, 1, 'int32').expandDims(0), [
        chunk.length,
        1,
      ]) as tf.Tensor2D;
      const { hidden } = model.run(input, positions, null);
      const logits = model.logits(tf.gather(hidden, tf.tensor1d(rows, 'int32')));
      return tf.keep(targetLogprobs(logits, tf.tensor1d(targets, 'int32')));
    });
    const flat = (await values.data()) as Float32Array;
    values.dispose();
    let at = 0;
    for (const c of chunk) {
      tokenLogprobs.push(Array.from(flat.subarray(at, at + c.length)));
      at += c.length;
    }
  }
  return constrainedScores(candidates, tokenLogprobs, temperature);
}

/**
 * The constrained distribution from each candidate's token logprobs: candidates that share a prefix
 * share its next-token distribution, so the logprob of every allowed next token is some candidate's.
 */
export function constrainedScores(
  candidates: readonly (readonly number[])[],
  tokenLogprobs: number[][],
  temperature: number,
): CandidateScores {
  const scale = temperature === 0 ? 1 : 1 / temperature;
  // Per prefix (its tokens joined), the scaled logprob of each distinct next token.
  const next = new Map<string, Map<number, number>>();
  candidates.forEach((candidate, c) => {
    candidate.forEach((token, d) => {
      const key = candidate.slice(0, d).join(',');
      const tokens = next.get(key) ?? new Map<number, number>();
      tokens.set(token, tokenLogprobs[c]![d]! * scale);
      next.set(key, tokens);
    });
  });
  const constrainedTokenLogprobs = candidates.map((candidate, c) =>
    candidate.map((_, d) => {
      const allowed = [...next.get(candidate.slice(0, d).join(','))!.values()];
      const max = Math.max(...allowed);
      const total = allowed.reduce((sum, lp) => sum + Math.exp(lp - max), 0);
      return tokenLogprobs[c]![d]! * scale - (max + Math.log(total));
    }),
  );
  return {
    tokenLogprobs,
    constrainedTokenLogprobs,
    constrainedLogprobs: constrainedTokenLogprobs.map((lps) => lps.reduce((a, b) => a + b, 0)),
  };
}
