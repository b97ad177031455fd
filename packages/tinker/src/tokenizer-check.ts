// Whether the local tokenizer belongs to the server's model. The API names no vocabulary, and a
// model scores an id past its embedding table without complaint (JAX clamps or fills the lookup),
// so the client asks: it samples one token from the base model after a prompt that ends with the
// tokenizer's largest id, with prompt logprobs. A tokenizer with more ids than the model gets a
// non-finite logprob (or the server's refusal) for that id. A model with more ids than the
// tokenizer is normal (padded embeddings); sampled ids past the tokenizer are refused later.
import type { ApiClient } from './api-client';
import { TinkerFutureError, TinkerRequestError, TokenizerMismatchError } from './errors';
import type { TextTokenizer } from './tokenizer';
import { futureSchema } from './wire/json-schemas';
import { decodeSampleResponse } from './wire/proto-codec';

export async function checkTokenizerFits(
  api: ApiClient,
  baseModel: string,
  tokenizer: TextTokenizer,
): Promise<void> {
  const largest = tokenizer.vocabSize - 1;
  const prompt = [0, largest];
  const mismatch = (why: string) =>
    new TokenizerMismatchError(
      `The local tokenizer (${tokenizer.vocabSize} ids) does not fit the server's model ${baseModel}: ${why}. ` +
        "Give tokenizerDir the base model's own tokenizer.",
    );
  let logprobs: number[] | undefined;
  try {
    const result = await api.runFuture(
      'tokenizer check (asample)',
      async () =>
        futureSchema.parse(
          await api.postJson('/api/v1/asample', {
            prompt: { chunks: [{ type: 'encoded_text', tokens: prompt }] },
            num_samples: 1,
            sampling_params: { max_tokens: 1, temperature: 1, seed: 0 },
            base_model: baseModel,
            prompt_logprobs: true,
            type: 'sample',
          }),
        ).request_id,
      { protobuf: true },
    );
    logprobs = decodeSampleResponse(result.body).promptLogprobs;
  } catch (error) {
    // SkyRL 0.4.0 fails to serialize the logprob of an id past its model (500 on every poll).
    const failedThere =
      TinkerFutureError.isInstance(error) ||
      (TinkerRequestError.isInstance(error) && (error as TinkerRequestError).reason === 'http');
    if (failedThere) {
      throw mismatch(`scoring token id ${largest} failed (${(error as Error).message})`);
    }
    throw error;
  }
  // One logprob per prompt token after the first (SkyRL) or one per token with NaN first (SDK docs).
  const score = logprobs?.at(-1);
  if (score === undefined) throw mismatch('the server returned no prompt logprobs to check with');
  if (!Number.isFinite(score))
    throw mismatch(`token id ${largest} scores ${score}, so the model has fewer ids`);
}
