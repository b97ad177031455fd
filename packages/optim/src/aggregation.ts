// How per-token losses become one number. Losses here are weighted sums (as in Tinker), so an
// aggregation is a choice of per-token weights; the entropy bonus and value loss, which the
// policy weights the same way, then aggregate consistently.
import { z } from 'zod';

export const aggregationSchema = z.enum(['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean']);
/**
 * `token-mean`: every model token of the minibatch counts the same (long sequences weigh more).
 * `seq-mean-token-sum`: sum over each sequence's tokens, mean over sequences.
 * `seq-mean-token-mean`: mean over each sequence's tokens, then mean over sequences.
 */
export type Aggregation = z.infer<typeof aggregationSchema>;

/**
 * Per-token weights for a minibatch: `masks[d][t]` is 1 on model tokens, 0 elsewhere. Sequences
 * without model tokens do not count as sequences.
 */
export function aggregationWeights(
  masks: readonly (readonly number[])[],
  aggregation: Aggregation,
): number[][] {
  const counts = masks.map((mask) => mask.reduce((sum, m) => sum + (m > 0 ? 1 : 0), 0));
  const totalTokens = counts.reduce((sum, count) => sum + count, 0);
  const sequences = counts.filter((count) => count > 0).length;
  return masks.map((mask, d) =>
    mask.map((m) => {
      if (!(m > 0)) return 0;
      if (aggregation === 'token-mean') return 1 / totalTokens;
      if (aggregation === 'seq-mean-token-sum') return 1 / sequences;
      return 1 / (sequences * counts[d]!);
    }),
  );
}
