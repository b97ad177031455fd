// Real plans from real play: in ReAct's ALFWorld demonstrations (fixtures/alfworld-react-transcripts,
// MIT, see its SOURCES.md) the first thought states a plan ("I need to find and take a lettuce, then clean it
// with sinkbasin, then put it in diningtable.") and the actions that follow carry it out and win.
// The plan-adherence matching must see every step of those plans carried out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alignActionsToPlan } from '../src/plan-matching';
import { createReferenceJudge } from '../src/reference-judge';

const transcripts = join(import.meta.dirname, '../../../fixtures/alfworld-react-transcripts');
const kinds = ['clean', 'cool', 'examine', 'heat', 'put', 'puttwo'];

interface Transcript {
  steps: { action: string; is_think: boolean }[];
}

function load(name: string) {
  const transcript = JSON.parse(readFileSync(join(transcripts, `${name}.json`), 'utf8')) as Transcript;
  const firstThought = transcript.steps.find((step) => step.is_think)!.action;
  const planSentence = /I need to (.*?)\./.exec(firstThought)![1]!;
  return {
    plan: planSentence.split(/, then /),
    actions: transcript.steps.filter((step) => !step.is_think).map((step) => step.action),
  };
}

describe('plans stated in ReAct ALFWorld demonstrations', () => {
  it.each(kinds.flatMap((kind) => [`react_${kind}_0`, `react_${kind}_1`]))(
    '%s: every step is carried out',
    (name) => {
      const { plan, actions } = load(name);
      const alignment = alignActionsToPlan(plan, actions);
      // react_put_0 spells the object "sparybottle" in its plan; a misspelt object is not carried out.
      const expected = name === 'react_put_0' ? [0.5, 1] : plan.map(() => 1);
      expect(alignment.stepCoverage).toEqual(expected);
    },
  );
});

describe('the reference judge on those plans', () => {
  it('gives every stated plan full marks against its own demonstration', async () => {
    const judge = createReferenceJudge();
    for (const name of kinds.flatMap((kind) => [`react_${kind}_0`, `react_${kind}_1`])) {
      if (name === 'react_put_0') continue; // its plan misspells the object, see above
      const { plan, actions } = load(name);
      const [verdict] = await judge.judge([{ task: name, plan, reference: { plan, actions } }]);
      expect(
        [verdict!.correctness.score, verdict!.followability.score, verdict!.standardization.score],
        name,
      ).toEqual([5, 5, 5]);
    }
  });

  it('scores a plan that puts the object in the wrong place lower on correctness', async () => {
    const judge = createReferenceJudge();
    for (const name of ['react_clean_0', 'react_heat_1', 'react_cool_0']) {
      const { plan, actions } = load(name);
      const reference = { plan, actions };
      const wrongPlace = plan.map((step, index) =>
        index === plan.length - 1 ? 'put it in garbagecan' : step,
      );
      const [right, wrong] = await judge.judge([
        { task: name, plan, reference },
        { task: name, plan: wrongPlace, reference },
      ]);
      expect(right!.correctness.score, name).toBe(5);
      expect(wrong!.correctness.score, name).toBeLessThan(5);
    }
  });
});
