// The phases of a curriculum: the optional SFT warm start, then each configured stage, with the
// name its metrics, logs and progress bar carry and how many iterations it runs.
import type { CurriculumConfig, StageConfig } from '../config/curriculum-config';

export interface Phase {
  name: string;
  kind: 'sft' | StageConfig['kind'];
  iterations: number;
  stage?: StageConfig;
}

export function curriculumPhases(config: CurriculumConfig): Phase[] {
  const phases: Phase[] = [];
  if (config.sft !== undefined) {
    phases.push({
      name: 'sft',
      kind: 'sft',
      iterations: Math.ceil(config.sft.steps / config.sft.stepsPerIteration),
    });
  }
  config.stages.forEach((stage, index) => {
    const name =
      stage.name ??
      (config.stages.filter((s) => s.kind === stage.kind).length > 1
        ? `${stage.kind}-${index + 1}`
        : stage.kind);
    phases.push({ name, kind: stage.kind, iterations: stage.iterations, stage });
  });
  return phases;
}
