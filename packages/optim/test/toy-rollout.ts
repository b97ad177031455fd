// A minimal lock-step rollout loop for learning tests on the testkit's toy envs: a short prompt
// (task + current observation), decoding constrained to the admissible actions, reward 1 for a
// win. Short prompts keep a from-scratch model's learning within a test's time.
import { EPISODE_FORMAT_VERSION, type Episode, type Policy, type TextEnv, type Turn } from '@pilotrl/core';

export interface ToyRolloutOptions {
  createEnv: () => TextEnv;
  /** Task ids of the toy env (e.g. `train-3`); each is played `groupSize` times. */
  taskIds: readonly string[];
  groupSize: number;
  /** Base of the sampling seeds. */
  seed: number;
  /** Sampling temperature; 0 is greedy. */
  temperature?: number;
}

export async function toyRollout(policy: Policy, options: ToyRolloutOptions): Promise<Episode[]> {
  const slots = await Promise.all(
    options.taskIds.flatMap((taskId, task) =>
      Array.from({ length: options.groupSize }, async (_, sample) => {
        const env = options.createEnv();
        const first = await env.reset({ seed: task, taskId });
        return {
          env,
          taskId,
          sample,
          task: first.info.task ?? '',
          current: first,
          turns: [] as Turn[],
          done: false,
          won: false,
          truncated: false,
        };
      }),
    ),
  );
  for (let turn = 0; slots.some((slot) => !slot.done); turn++) {
    const live = slots.filter((slot) => !slot.done);
    const prompts = live.map((slot) => `${slot.task}\n${slot.current.observation}`);
    const results = await policy.generate(
      live.map((slot, i) => ({
        messages: [{ role: 'user' as const, content: prompts[i]! }],
        choices: slot.current.admissibleActions,
        temperature: options.temperature ?? 1,
        seed: options.seed * 1_000_003 + slots.indexOf(slot) * 1_009 + turn,
      })),
    );
    await Promise.all(
      live.map(async (slot, i) => {
        const result = results[i]!;
        const next = await slot.env.step(result.text);
        slot.turns.push({
          index: turn,
          observation: slot.current.observation,
          admissibleActions: slot.current.admissibleActions,
          generations: [
            {
              kind: 'act',
              text: result.text,
              tokenIds: [...result.promptTokenIds, ...result.tokenIds],
              lossMask: [
                ...result.promptTokenIds.map(() => 0 as const),
                ...result.tokenIds.map(() => 1 as const),
              ],
              logprobs: [...result.promptTokenIds.map(() => 0), ...result.logprobs],
              policyVersion: result.policyVersion,
              finishReason: result.finishReason,
            },
          ],
          thought: null,
          action: result.text,
          formatError: null,
          envReward: next.reward,
          valid: next.info.valid,
          rewards: {},
        });
        slot.current = next;
        if (next.terminated || next.truncated) {
          slot.done = true;
          slot.won = next.info.won;
          slot.truncated = next.truncated;
        }
      }),
    );
  }
  return slots.map((slot, index) => ({
    formatVersion: EPISODE_FORMAT_VERSION,
    id: `${slot.taskId}/${slot.sample}`,
    envId: slot.env.envId,
    taskId: slot.taskId,
    split: 'train',
    seed: index,
    groupId: slot.taskId,
    sampleIndex: slot.sample,
    paradigm: 'act-only',
    task: slot.task,
    initialObservation: slot.turns[0]?.observation ?? '',
    turns: slot.turns,
    planHistory: [],
    won: slot.won,
    terminated: !slot.truncated,
    truncated: slot.truncated,
    envReturn: slot.turns.reduce((sum, t) => sum + t.envReward, 0),
    rewardComponents: { outcome: slot.won ? 1 : 0 },
    reward: slot.won ? 1 : 0,
    metadata: {},
  }));
}
