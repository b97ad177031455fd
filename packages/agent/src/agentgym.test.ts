import { CORRIDOR_ENV_ID, corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { describe, expect, it } from 'vitest';
import { createExpert } from '../test/expert-policy';
import { createAdaPlanAgent, createReActAgent } from './agent';
import { agentGymToEpisode, episodeToAgentGym } from './agentgym';
import { oraclePlanProvider } from './plan-providers';
import { rollout } from './rollout';
import { createVectorEnv } from './vector-env';

async function play(kind: 'react' | 'adaplan' | 'oracle', edit?: Parameters<typeof createExpert>[3]) {
  const tasks = await corridorTasks.tasks('valid_unseen', { limit: 2 });
  const expert = await createExpert(corridorTasks, createCorridorEnv, tasks, edit);
  const agent =
    kind === 'react'
      ? createReActAgent(expert.policy)
      : createAdaPlanAgent(
          expert.policy,
          kind === 'oracle'
            ? {
                planSource: {
                  kind: 'provided',
                  source: 'oracle',
                  provider: oraclePlanProvider(corridorTasks),
                },
              }
            : {},
        );
  return rollout(agent, createVectorEnv(createCorridorEnv, { size: 2 }), { envId: CORRIDOR_ENV_ID, tasks });
}

/** What survives the text-only format: everything but token ids, masks and logprobs. */
const withoutTokens = (episode: Awaited<ReturnType<typeof play>>[number]) => ({
  ...episode,
  turns: episode.turns.map((turn) => ({
    ...turn,
    generations: turn.generations.map((generation) => ({ kind: generation.kind, text: generation.text })),
  })),
});

describe('AgentGym conversations', () => {
  it('writes alternating human/gpt messages with loss on the model turns only', async () => {
    const [episode] = await play('adaplan');
    const item = episodeToAgentGym(episode!);
    expect(item.item_id).toBe(episode!.id);
    expect(item.conversations.slice(0, 2).map((m) => [m.from, m.loss])).toEqual([
      ['human', false],
      ['gpt', false],
    ]);
    expect(item.conversations[1]!.value).toBe('OK');
    const rest = item.conversations.slice(2);
    rest.forEach((message, index) => {
      expect(message.from).toBe(index % 2 === 0 ? 'human' : 'gpt');
      expect(message.loss).toBe(message.from === 'gpt');
    });
    expect(rest[0]!.value).toContain(episode!.initialObservation);
    expect(rest[0]!.value).toContain('\nAVAILABLE ACTIONS: ');
    expect(rest[1]!.value.startsWith('<global_plan>')).toBe(true);
    expect(rest[1]!.value).toContain('<thought>');
    expect(item.success).toBe(true);
  });

  for (const kind of ['react', 'adaplan', 'oracle'] as const) {
    it(`round-trips a ${kind} episode apart from token data`, async () => {
      const episodes = await play(kind, {
        edit: (reply, { step, kind: phase }) =>
          phase === 'act' && step === 1 ? reply.replace('<thought>', '') : reply,
      });
      for (const episode of episodes) {
        const back = agentGymToEpisode(JSON.parse(JSON.stringify(episodeToAgentGym(episode))));
        expect(withoutTokens(back)).toEqual(withoutTokens(episode));
        expect(back.turns[0]!.generations[0]!.tokenIds).toEqual([]);
      }
    });
  }

  it('reads released-style items without our extras, in the Thought:/Action: style', async () => {
    const [episode] = await play('react');
    const { pilotrl: _extras, ...item } = episodeToAgentGym(episode!, { style: 'agentgym' });
    const released = {
      ...item,
      conversations: item.conversations.map((message) => ({
        ...message,
        loss: message.from === 'gpt' ? message.loss : null,
      })),
    };
    expect(released.conversations[3]!.value).toMatch(/^Thought:\n.*\n\nAction:\n/);
    const back = agentGymToEpisode(released, { envId: CORRIDOR_ENV_ID, split: 'valid_unseen' });
    expect(back.envId).toBe(CORRIDOR_ENV_ID);
    expect(back.paradigm).toBe('react');
    expect(back.won).toBe(true);
    expect(back.task).toBe(episode!.task.replace('Your task is to: ', ''));
    expect(back.turns.map((turn) => turn.action)).toEqual(episode!.turns.map((turn) => turn.action));
    expect(back.turns.map((turn) => turn.thought)).toEqual(episode!.turns.map((turn) => turn.thought));
    expect(back.turns.map((turn) => turn.observation)).toEqual(
      episode!.turns.map((turn) => turn.observation),
    );
    expect(back.turns.every((turn) => turn.valid)).toBe(true);
  });

  it('rejects items whose conversation cannot be an episode', () => {
    expect(() => agentGymToEpisode({ item_id: 'x', conversations: [] })).toThrow(/AgentGym item/);
    expect(() =>
      agentGymToEpisode({
        item_id: 'x',
        conversations: [
          { from: 'human', loss: null, value: 'start' },
          { from: 'human', loss: null, value: 'again' },
        ],
      }),
    ).toThrow(/alternation/);
  });
});
