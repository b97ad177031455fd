// The plug-ins the app ships with, one per env package of this repo. `pnpm new:env <name>` adds its
// package here (an import and an entry); envs published on their own are loaded by name instead.

import type { PilotrlPlugin } from '@pilotrl/core';
import { plugin as alfworld } from '@pilotrl/env-alfworld';
import { plugin as babyai } from '@pilotrl/env-babyai';
import { plugin as maze } from '@pilotrl/env-maze';
import { plugin as testkit } from '@pilotrl/env-testkit';
import { plugin as textcraft } from '@pilotrl/env-textcraft';
import { plugin as wordle } from '@pilotrl/env-wordle';

export const builtinPlugins: readonly PilotrlPlugin[] = [alfworld, babyai, maze, textcraft, wordle, testkit];
