// A value model that records what it reads, for tests that count the tokens a search scores.
import type { ValueModel } from './value-model';

/** `model`, with the length of every sequence it scores appended to `read`. */
export function recordingValueModel(model: ValueModel): { model: ValueModel; read: number[] } {
  const read: number[] = [];
  return {
    read,
    model: {
      ...model,
      values: (sequences) => {
        read.push(...sequences.map((sequence) => sequence.length));
        return model.values(sequences);
      },
    },
  };
}
