// The AgentGym dialects by the env id they speak for.
import { alfworldDialect } from './alfworld';
import { babyaiDialect } from './babyai';
import type { AgentGymDialect } from './dialect';
import { mazeDialect } from './maze';
import { textcraftDialect } from './textcraft';
import { wordleDialect } from './wordle';

export const agentgymDialects: ReadonlyMap<string, AgentGymDialect> = new Map(
  [alfworldDialect, textcraftDialect, babyaiDialect, mazeDialect, wordleDialect].map((d) => [d.envId, d]),
);
