// A uniform random Policy: the baseline a trained policy has to beat, and a policy that needs no
// model for trying a pipeline end to end. Offered choices, it picks one of them uniformly; asked
// for free text, it writes printable ASCII characters drawn uniformly, with an end token among
// them, until it draws the end, completes a stop string or reaches `maxTokens`. Tokens are UTF-8
// bytes (ids 0-255) plus END_TOKEN_ID, and every logprob is the exact one of that distribution, so
// episodes played with it carry real token ids, loss masks and logprobs for an optimizer to read
// (or none of them, with `tokens: 'none'`, where only the choices matter).
import {
  createRng,
  type GenerateRequest,
  type GenerateResult,
  generateRequestSchema,
  type Policy,
  parseOrThrow,
  type ResolvedGenerateRequest,
  type Rng,
} from '@pilotrl/core';
import { z } from 'zod';

export const randomPolicyOptionsSchema = z.strictObject({
  /** Which random policy: two seeds answer the same request differently. */
  seed: z.number().int().nonnegative().default(0),
  name: z.string().min(1).default('random'),
  /** The `policyVersion` stamped on every result; this policy has no weights to change. */
  version: z.number().int().nonnegative().default(0),
  /**
   * `bytes`: token ids, per-token logprobs and allowed ids as above; `none`: none of them (as from
   * a remote API), which spares a rollout the prompts' tokens where only the choices matter.
   * `choiceLogprobs` are given either way.
   */
  tokens: z.enum(['bytes', 'none']).default('bytes'),
});
export type RandomPolicyOptions = z.input<typeof randomPolicyOptionsSchema>;

/** The token that ends a free-text answer or a choice: the id after the 256 byte ids. */
export const END_TOKEN_ID = 256;

/** Characters of a free-text answer: printable ASCII, space to tilde, one byte each. */
const PRINTABLE_FIRST = 0x20;
const PRINTABLE_COUNT = 0x7f - PRINTABLE_FIRST;

/** A result before the prompt's tokens and the policy version are added. */
type Answer = Omit<GenerateResult, 'promptTokenIds' | 'policyVersion'>;
type Tokens = z.output<typeof randomPolicyOptionsSchema>['tokens'];

const encoder = new TextEncoder();
const bytesOf = (text: string) => [...encoder.encode(text)];

/** The prompt as the byte tokens see it: one `role: content` line block per message. */
const promptBytes = (request: ResolvedGenerateRequest) =>
  bytesOf(request.messages.map((message) => `${message.role}: ${message.content}\n`).join(''));

/**
 * A choice drawn uniformly among the distinct `choices`: a repeated choice counts once and is
 * reported at its first index.
 */
function chooseUniformly(choices: readonly string[], rng: Rng, tokens: Tokens): Answer {
  const distinct = choices.filter((choice, index) => choices.indexOf(choice) === index);
  const text = rng.pick(distinct);
  const logprob = -Math.log(distinct.length);
  return {
    text,
    finishReason: 'choice',
    choiceIndex: choices.indexOf(text),
    choiceLogprobs: choices.map(() => logprob),
    ...(tokens === 'bytes' ? spellChoice(text, distinct) : { tokenIds: [], logprobs: [] }),
  };
}

/**
 * The chosen choice as tokens: its bytes and END_TOKEN_ID. Each token's logprob is log(choices
 * under the prefix with that token / choices under the prefix), so they sum to -log(distinct
 * choices), and `allowedTokenIds` are the tokens that continue some choice there.
 */
function spellChoice(text: string, distinct: readonly string[]) {
  const spelled = distinct.map((choice) => [...bytesOf(choice), END_TOKEN_ID]);
  const tokenIds = spelled[distinct.indexOf(text)]!;
  const logprobs: number[] = [];
  const allowedTokenIds: number[][] = [];
  let sharing = spelled;
  for (const [position, token] of tokenIds.entries()) {
    allowedTokenIds.push([...new Set(sharing.map((ids) => ids[position]!))].sort((a, b) => a - b));
    const next = sharing.filter((ids) => ids[position] === token);
    logprobs.push(Math.log(next.length / sharing.length));
    sharing = next;
  }
  return { tokenIds, logprobs, allowedTokenIds };
}

/**
 * Free text: each token drawn uniformly among the printable characters and END_TOKEN_ID, until
 * the end token, a completed stop string (kept in the text) or `maxTokens`.
 */
function writeUniformly(request: ResolvedGenerateRequest, rng: Rng, tokens: Tokens): Answer {
  const logprob = -Math.log(PRINTABLE_COUNT + 1);
  const tokenIds: number[] = [];
  let text = '';
  const answer = (finishReason: 'stop' | 'length'): Answer =>
    tokens === 'bytes'
      ? { text, tokenIds, logprobs: tokenIds.map(() => logprob), finishReason }
      : { text, tokenIds: [], logprobs: [], finishReason };
  while (tokenIds.length < request.maxTokens) {
    const drawn = rng.int(PRINTABLE_COUNT + 1);
    if (drawn === PRINTABLE_COUNT) {
      tokenIds.push(END_TOKEN_ID);
      return answer('stop');
    }
    tokenIds.push(PRINTABLE_FIRST + drawn);
    text += String.fromCharCode(PRINTABLE_FIRST + drawn);
    if (request.stop.some((stop) => text.endsWith(stop))) return answer('stop');
  }
  return answer('length');
}

/**
 * A uniform random `Policy` (core's contract). A request with a `seed` gets the same answer from
 * the same policy seed whatever else is in its batch, as the agent's rollouts need to repeat; a
 * request without one draws from the policy's own seeded stream. `temperature` and `topP` leave a
 * uniform distribution as it is, so they change nothing.
 */
export function createRandomPolicy(options: RandomPolicyOptions = {}): Policy {
  const config = parseOrThrow(randomPolicyOptionsSchema, options, 'random policy options');
  const seeded = createRng(config.seed);
  const stream = createRng(config.seed);
  return {
    name: config.name,
    version: config.version,
    async generate(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
      return requests.map((raw, index) => {
        const request = parseOrThrow(generateRequestSchema, raw, `generate request ${index}`);
        const rng = request.seed === undefined ? stream : seeded.fork(request.seed);
        const answer =
          request.choices === undefined
            ? writeUniformly(request, rng, config.tokens)
            : chooseUniformly(request.choices, rng, config.tokens);
        const promptTokenIds = config.tokens === 'bytes' ? promptBytes(request) : [];
        return { ...answer, promptTokenIds, policyVersion: config.version };
      });
    },
    ...(config.tokens === 'bytes' ? { countTokens: (text: string) => encoder.encode(text).length } : {}),
  };
}
