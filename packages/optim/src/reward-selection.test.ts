import { describe, expect, it } from 'vitest';
import { episode } from '../test/episodes';
import { episodeDatums, selectByReward } from './reward-selection';

const played = (id: string, group: string, reward: number) =>
  episode(id, group, reward, [{ masks: [[0, 1, 1]] }, { masks: [[0, 0, 1]] }]);
const kept = (episodes: ReturnType<typeof played>[], within: 'groups' | 'batch') =>
  selectByReward(episodes, { within }).map(({ episode, weight }) => [episode.id, weight]);

describe('selectByReward', () => {
  it('keeps every win at weight 1 when the outcome is the only reward', () => {
    const episodes = [played('a', 'g', 1), played('b', 'g', 0), played('c', 'g', 1), played('d', 'g', 0)];
    expect(kept(episodes, 'groups')).toEqual([
      ['a', 1],
      ['c', 1],
    ]);
  });

  it('weighs what is above its set mean by its share of the best one, per group', () => {
    const episodes = [
      played('a', 'g1', 1.5),
      played('b', 'g1', 1),
      played('c', 'g1', 0.5),
      played('d', 'g2', 0.2),
      played('e', 'g2', 0.1),
    ];
    const result = kept(episodes, 'groups');
    expect(result.map(([id]) => id)).toEqual(['a', 'd']);
    expect(result[0]![1]).toBeCloseTo(1);
    expect(result[1]![1]).toBeCloseTo(1);
    // Across the batch, g2's episodes fall below the mean (0.66) and b is halfway to the best.
    const batch = kept(episodes, 'batch');
    expect(batch.map(([id]) => id)).toEqual(['a', 'b']);
    expect(batch[1]![1]).toBeCloseTo((1 - 0.66) / (1.5 - 0.66));
  });

  it('keeps a set of equal rewards only where the reward is positive', () => {
    expect(
      kept(
        [played('a', 'g1', 1), played('b', 'g1', 1), played('c', 'g2', 0), played('d', 'g2', 0)],
        'groups',
      ),
    ).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    expect(kept([played('a', 'g', -0.1), played('b', 'g', -0.1)], 'groups')).toEqual([]);
  });

  it('refuses episodes without a reward rather than guessing one', () => {
    expect(() => selectByReward([episode('x', 'g', undefined, [])], { within: 'groups' })).toThrow(
      /no finite reward/,
    );
  });
});

describe('episodeDatums', () => {
  it("renders each generation with a model token in the episode's own tokens, weighted", () => {
    const datums = episodeDatums({ episode: played('a', 'g', 1), weight: 0.5 });
    expect(datums).toEqual([
      { tokenIds: [1, 2, 3], weights: [0, 0.5, 0.5] },
      { tokenIds: [1, 2, 3], weights: [0, 0, 0.5] },
    ]);
  });

  it('refuses a weight that would train nothing or unlearn', () => {
    expect(() => episodeDatums({ episode: played('a', 'g', 1), weight: 0 })).toThrow(/must be positive/);
  });
});
