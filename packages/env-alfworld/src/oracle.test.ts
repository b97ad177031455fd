import { describe, expect, it } from 'vitest';
import { GameEngine } from './engine';
import { compileScene, type Dialect } from './game-file';
import { generateScene, possibleTaskTypes, seenFloorPlans } from './generator';
import { solveGame } from './oracle';
import { taskTypes, unseenFloorPlans } from './vocabulary';

const plans = [...seenFloorPlans(), ...unseenFloorPlans];

describe('solveGame', () => {
  for (const dialect of ['legacy', 'current'] as Dialect[]) {
    for (const taskType of taskTypes) {
      it(`wins ${taskType} tasks on several floor plans (${dialect})`, () => {
        const candidates = plans.filter((plan) => possibleTaskTypes(plan).includes(taskType));
        for (let trial = 0; trial < 3; trial++) {
          const floorPlan = candidates[(trial * 11 + taskType.length) % candidates.length]!;
          const scene = generateScene({ floorPlan, trial, taskType });
          const game = compileScene(scene, dialect);
          const solution = solveGame(game);
          const engine = new GameEngine(game);
          engine.reset();
          expect(engine.won()).toBe(false);
          for (const action of solution.actions) expect(engine.step(action).valid).toBe(true);
          expect(engine.won(), `${scene.task.sentence} on floor plan ${floorPlan}`).toBe(true);
          expect(solution.actions.length).toBeLessThanOrEqual(14);
          expect(solution.plan.length).toBeGreaterThan(0);
        }
      });
    }
  }

  it('writes a plan of readable high-level steps', () => {
    const scene = generateScene({ floorPlan: 10, trial: 1, taskType: 'pick_clean_then_place_in_recep' });
    const { plan } = solveGame(compileScene(scene, 'legacy'));
    expect(plan).toHaveLength(3);
    expect(plan[0]).toMatch(/^Go to the \w+ \d+ and take the \w+ \d+\.$/);
    expect(plan[1]).toMatch(/^Clean the \w+ \d+ with the sinkbasin \d+\.$/);
    expect(plan[2]).toMatch(/^Go to the \w+ \d+ and put the \w+ \d+ in\/on it\.$/);
  });
});
