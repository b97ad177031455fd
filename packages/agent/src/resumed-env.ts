// An env copy presented as a fresh episode: its `reset` answers the state the copy stands in
// (whatever options it is given), so a rollout can play on from a branch of another episode.
// Closing it leaves the copy open: whoever made the copy still reads it (e.g. its step checks)
// and closes it.
import type { CopyableEnv, StepResult, TextEnv } from '@pilotrl/core';

export function resumedEnv(copy: CopyableEnv, current: StepResult): TextEnv {
  return {
    envId: copy.envId,
    reset: async () => current,
    step: (action) => copy.step(action),
  };
}
