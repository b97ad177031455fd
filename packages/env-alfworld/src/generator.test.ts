import { describe, expect, it } from 'vitest';
import {
  floorPlanReceptacles,
  generateScene,
  possibleTaskTypes,
  seenFloorPlans,
  taskDirectoryName,
} from './generator';
import { createGeneratedTaskSource, generatedTask } from './task-source';
import { goalTemplates, taskRooms, unseenFloorPlans } from './vocabulary';

describe('generateScene', () => {
  it('gives the same scene for the same floor plan and trial, and another for another trial', () => {
    expect(generateScene({ floorPlan: 12, trial: 4 })).toEqual(generateScene({ floorPlan: 12, trial: 4 }));
    expect(generateScene({ floorPlan: 12, trial: 5 })).not.toEqual(
      generateScene({ floorPlan: 12, trial: 4 }),
    );
  });

  it('keeps the receptacles of a floor plan across trials', () => {
    expect(generateScene({ floorPlan: 305, trial: 1 }).receptacles).toEqual(
      generateScene({ floorPlan: 305, trial: 9 }).receptacles,
    );
  });

  it('uses ALFWorld layout files for the unseen floor plans', () => {
    const ids = floorPlanReceptacles(424).map((r) => r.id);
    expect(ids).toContain('Sink|-00.30|+00.80|+02.42|SinkBasin');
    expect(
      floorPlanReceptacles(424)
        .filter((r) => r.type === 'Cabinet')
        .every((r) => r.openable),
    ).toBe(true);
  });

  it('phrases goals with ALFWorld templates and only in rooms where the task occurs', () => {
    for (let trial = 0; trial < 40; trial++) {
      const scene = generateScene({ floorPlan: [3, 207, 318, 411][trial % 4]!, trial });
      expect(taskRooms[scene.task.type]).toContain(scene.roomType);
      const [a, b] = goalTemplates[scene.task.type];
      const fill = (t: string) =>
        t
          .replace('{obj}', scene.task.object.toLowerCase())
          .replace('{recep}', scene.task.parent.toLowerCase())
          .replace('{toggle}', 'desklamp');
      expect([fill(a), fill(b)]).toContain(scene.task.sentence);
      expect(taskDirectoryName(scene)).toMatch(/^[a-z_]+-\w+-None-\w+-\d+$/);
    }
  });

  it('offers look tasks only where a desk lamp can stand, heat tasks only in kitchens', () => {
    expect(possibleTaskTypes(10)).toContain('pick_heat_then_place_in_recep');
    expect(possibleTaskTypes(308)).toContain('look_at_obj_in_light');
    expect(possibleTaskTypes(424)).not.toContain('pick_heat_then_place_in_recep');
  });
});

describe('generated task source', () => {
  it('never uses an unseen floor plan in train or valid_seen, and only those in valid_unseen', async () => {
    for (let i = 0; i < 300; i++) {
      expect(unseenFloorPlans).not.toContain(generatedTask('train', i).floorPlan);
      expect(unseenFloorPlans).not.toContain(generatedTask('valid_seen', i).floorPlan);
      expect(unseenFloorPlans).toContain(generatedTask('valid_unseen', i).floorPlan);
    }
    expect(seenFloorPlans()).toHaveLength(116);
    const source = createGeneratedTaskSource();
    const train = await source.tasks('train', { limit: 5 });
    const seen = await source.tasks('valid_seen', { limit: 5 });
    expect(new Set([...train, ...seen].map((t) => t.taskId)).size).toBe(10);
    expect(source.count('train')).toBe('unbounded');
  });
});
