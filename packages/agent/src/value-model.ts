// A value head as test-time search reads it: the estimated return after the last token of each
// sequence (prompt and completion, in the policy's own token ids), from a trainable policy's
// `forward`.
import { InvalidArgumentError, type TrainablePolicy } from '@pilotrl/core';

export interface ValueModel {
  readonly name: string;
  /** The value-head estimate at the last token of each sequence. */
  values(sequences: readonly (readonly number[])[]): Promise<number[]>;
  /** Token ids of `text` under the policy's tokenizer (for a choice that was scored, not generated). */
  encode(text: string): number[];
}

/** An error that says a search asked for a value head the policy does not have, and what to do. */
export function missingValueHead(policyName: string): InvalidArgumentError {
  return new InvalidArgumentError(
    `policy "${policyName}" has no value head, which a value scorer needs; use a checkpoint trained with policy.valueHead: true, or score with the judge (best-of-n) or a rollout (lookahead)`,
  );
}

/**
 * The value model of `policy`. Each call checks that `forward` returned values, so a policy
 * without a value head fails on its first use with an error that says so.
 */
export function valueModelOf(policy: Pick<TrainablePolicy, 'name' | 'forward' | 'encode'>): ValueModel {
  return {
    name: policy.name,
    encode: (text) => policy.encode(text),
    async values(sequences) {
      if (sequences.length === 0) return [];
      const results = await policy.forward(
        sequences.map((tokenIds, index) => {
          if (tokenIds.length < 2) {
            throw new InvalidArgumentError(
              `value model "${policy.name}": sequence ${index} has ${tokenIds.length} token ids; a value needs the prompt's and the completion's ids, which only a policy that returns token ids gives`,
            );
          }
          return { tokenIds: [...tokenIds], weights: tokenIds.map(() => 0) };
        }),
      );
      return results.map((result) => {
        if (result.values === undefined) throw missingValueHead(policy.name);
        return result.values[result.values.length - 1]!;
      });
    },
  };
}
