// A two-turn bandit played by a policy's sampler: from `start` the policy says `left` or `right`,
// the environment answers `wall` or `door` (an env token inside the transcript), and the policy
// chooses again. Reward = number of `right` choices. Enough to see an update move a policy.
import { createRng, type Episode, type TrainablePolicy } from '@pilotrl/core';
import { episode } from './episodes';

export const BANDIT_VOCABULARY = ['start', 'left', 'right', 'wall', 'door'];

export async function playBandit(
  policy: TrainablePolicy,
  options: { groups: number; groupSize: number; seed: number },
): Promise<Episode[]> {
  const sampler = policy.sampler();
  const rng = createRng(options.seed);
  const episodes: Episode[] = [];
  for (let g = 0; g < options.groups; g++) {
    for (let s = 0; s < options.groupSize; s++) {
      const tokens = [policy.encode('start')[0]!];
      const logprobs = [0];
      const mask: (0 | 1)[] = [0];
      let rights = 0;
      for (let turn = 0; turn < 2; turn++) {
        const text = tokens.map((id) => BANDIT_VOCABULARY[id]).join(' ');
        const [result] = await sampler.generate([
          { messages: [{ role: 'user', content: text }], choices: ['left', 'right'], seed: rng.uint32() },
        ]);
        tokens.push(result!.tokenIds[0]!);
        logprobs.push(result!.logprobs[0]!);
        mask.push(1);
        if (result!.text === 'right') rights++;
        if (turn === 0) {
          tokens.push(policy.encode(result!.text === 'right' ? 'door' : 'wall')[0]!);
          logprobs.push(0);
          mask.push(0);
        }
      }
      const played = episode(`e${g}-${s}`, `g${g}`, rights, [{ masks: [mask], logprobs: [logprobs] }]);
      played.turns[0]!.generations[0]!.tokenIds = tokens;
      episodes.push(played);
    }
  }
  return episodes;
}
