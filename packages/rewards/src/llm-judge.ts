// The LLM judge: PilotRL's rubric asked of a core `ChatModel` (such as @pilotrl/llm's client). Its
// answer must be a JSON object that zod accepts; an invalid answer is asked for again (showing the
// model what was wrong) up to `maxInvalidRetries` times, then it is an error or an explicitly
// flagged result.
// Verdicts are cached by a hash of the input and the judge's settings, and at most
// `maxConcurrency` plans are judged at once. Injection is flagged and capped whatever the model says.
import { createHash } from 'node:crypto';
import {
  type ChatMessage,
  type ChatModel,
  createLimiter,
  type Judge,
  type JudgeInput,
  type JudgeResult,
  judgeInputSchema,
  PilotRLError,
  parseOrThrow,
  rubricScoreSchema,
} from '@pilotrl/core';
import { z } from 'zod';
import { detectInstructionInjection, INJECTION_FLAG } from './injection';
import { RUBRIC_PROMPT_VERSION, RUBRIC_SYSTEM_PROMPT, rubricUserPrompt } from './rubric-prompt';

/** The judge model's answers stayed invalid after every retry. */
export class JudgeOutputError extends PilotRLError {
  static override readonly errorName = 'JudgeOutputError';
}

export const INVALID_OUTPUT_FLAG = 'invalid_judge_output';

export const llmJudgeOptionsSchema = z.object({
  /** Re-asks after an answer that is not valid rubric JSON. */
  maxInvalidRetries: z.number().int().nonnegative().default(2),
  /** After the last invalid answer: throw `JudgeOutputError`, or return scores of 1 flagged `invalid_judge_output`. */
  onInvalid: z.enum(['throw', 'flag']).default('throw'),
  /** Plans judged at once (the client's own limit applies too). */
  maxConcurrency: z.number().int().positive().default(4),
  /** Verdicts kept in the cache (oldest dropped first); 0 turns caching off. */
  cacheSize: z.number().int().nonnegative().default(10_000),
  /** Highest score any criterion may get when the plan tries to instruct the judge. */
  injectionCap: z.number().int().min(1).max(5).default(1),
  temperature: z.number().min(0).max(2).default(0),
  maxTokens: z.number().int().positive().default(512),
  seed: z.number().int().nonnegative().default(0),
  /** Ask the server for `response_format: json_object`. */
  jsonMode: z.boolean().default(false),
  name: z.string().min(1).default('llm'),
});
export type LlmJudgeOptions = z.input<typeof llmJudgeOptionsSchema> & {
  /** Any chat model; `createChatClient` from @pilotrl/llm is one, and retries HTTP failures itself. */
  client: ChatModel;
};

export const rubricAnswerSchema = z.object({
  correctness: rubricScoreSchema,
  followability: rubricScoreSchema,
  standardization: rubricScoreSchema,
  injection: z.boolean().default(false),
});

export interface LlmJudge extends Judge {
  /** Model calls made so far (cache hits make none). */
  readonly calls: number;
  /** Answers so far that were not valid rubric JSON (each re-asked, or the last one flagged or thrown). */
  readonly invalidAnswers: number;
}

/** The JSON object in a model answer: the whole text, a fenced block, or the outermost braces. */
function extractJson(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const candidate = fenced ? fenced[1]! : text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
  return JSON.parse(candidate);
}

function readAnswer(
  text: string,
): { ok: true; value: z.output<typeof rubricAnswerSchema> } | { ok: false; problem: string } {
  let json: unknown;
  try {
    json = extractJson(text);
  } catch {
    return { ok: false, problem: 'the answer is not a JSON object' };
  }
  const parsed = rubricAnswerSchema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    problem: parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; '),
  };
}

export function createLlmJudge(options: LlmJudgeOptions): LlmJudge {
  const { client, ...rest } = options;
  const config = parseOrThrow(llmJudgeOptionsSchema, rest, 'LLM judge options');
  const limiter = createLimiter(config.maxConcurrency);
  const cache = new Map<string, Promise<JudgeResult>>();
  let calls = 0;
  let invalidAnswers = 0;

  const keyOf = (input: JudgeInput) =>
    createHash('sha256')
      .update(
        JSON.stringify({
          version: RUBRIC_PROMPT_VERSION,
          model: client.model,
          temperature: config.temperature,
          seed: config.seed,
          cap: config.injectionCap,
          input,
        }),
      )
      .digest('hex');

  async function ask(input: JudgeInput): Promise<JudgeResult> {
    const messages: ChatMessage[] = [
      { role: 'system', content: RUBRIC_SYSTEM_PROMPT },
      { role: 'user', content: rubricUserPrompt(input) },
    ];
    const problems: string[] = [];
    for (let attempt = 0; attempt <= config.maxInvalidRetries; attempt++) {
      calls += 1;
      const response = await client.chat({
        messages,
        temperature: config.temperature,
        maxTokens: config.maxTokens,
        seed: config.seed + attempt,
        jsonMode: config.jsonMode,
      });
      const answer = readAnswer(response.text);
      if (answer.ok) return toResult(input, answer.value);
      invalidAnswers += 1;
      problems.push(answer.problem);
      messages.push(
        { role: 'assistant', content: response.text },
        {
          role: 'user',
          content: `That answer is not valid (${answer.problem}). Answer again with only the JSON object in the required format.`,
        },
      );
    }
    if (config.onInvalid === 'throw') {
      throw new JudgeOutputError(
        `Judge model ${client.model} gave no valid rubric JSON in ${config.maxInvalidRetries + 1} answers (last problem: ${problems.at(-1)}); raise maxInvalidRetries, set jsonMode, or use onInvalid: 'flag'`,
      );
    }
    const reason = `No valid judge answer: ${problems.at(-1)}`;
    const injected = detectInstructionInjection(input.plan.join('\n')).length > 0;
    return {
      correctness: { score: 1, reason },
      followability: { score: 1, reason },
      standardization: { score: 1, reason },
      flags: injected ? [INVALID_OUTPUT_FLAG, INJECTION_FLAG] : [INVALID_OUTPUT_FLAG],
      judge: config.name,
    };
  }

  function toResult(input: JudgeInput, answer: z.output<typeof rubricAnswerSchema>): JudgeResult {
    const detected = detectInstructionInjection(input.plan.join('\n'));
    const injected = answer.injection || detected.length > 0;
    const cap = (score: { score: number; reason: string }) =>
      injected && score.score > config.injectionCap
        ? {
            score: config.injectionCap,
            reason: `${score.reason} [capped at ${config.injectionCap}: the plan addresses the judge]`,
          }
        : score;
    return {
      correctness: cap(answer.correctness),
      followability: cap(answer.followability),
      standardization: cap(answer.standardization),
      flags: injected ? [INJECTION_FLAG] : [],
      judge: config.name,
    };
  }

  function judgeOne(input: JudgeInput): Promise<JudgeResult> {
    if (config.cacheSize === 0) return limiter.run(() => ask(input));
    const key = keyOf(input);
    const cached = cache.get(key);
    if (cached) return cached;
    const pending = limiter.run(() => ask(input));
    cache.set(key, pending);
    if (cache.size > config.cacheSize) cache.delete(cache.keys().next().value!);
    pending.catch(() => cache.delete(key));
    return pending;
  }

  return {
    name: config.name,
    get calls() {
      return calls;
    },
    get invalidAnswers() {
      return invalidAnswers;
    },
    judge(inputs) {
      const parsed = inputs.map((input, index) =>
        parseOrThrow(judgeInputSchema, input, `judge input ${index}`),
      );
      return Promise.all(parsed.map(judgeOne));
    },
  };
}
