// `pilotrl play`: a person plays an env in the terminal. Each turn shows the observation and the
// numbered admissible commands; the player types a number or a command (anything else is sent as
// typed, as the env would receive it from an agent). `quit` ends the session.
import { createInterface } from 'node:readline';
import type { StepResult } from '@pilotrl/core';
import { envProviders } from '../plugins/registry';
import type { CliIo } from './io';

export interface PlayOptions {
  env: string;
  split: string;
  task: number;
  maxSteps: number;
}

function show(io: CliIo, result: StepResult): void {
  io.stdout.write(`\n${result.observation}\n`);
  if (result.admissibleActions.length > 0) {
    io.stdout.write(
      `\nAdmissible commands:\n${result.admissibleActions.map((a, i) => `  ${i + 1}. ${a}`).join('\n')}\n`,
    );
  }
}

export async function play(options: PlayOptions, io: CliIo): Promise<number> {
  const provider = envProviders.get(options.env)({});
  const [task] = await provider.tasks.tasks(options.split, { offset: options.task, limit: 1 });
  if (task === undefined) {
    io.stderr.write(`pilotrl play: split "${options.split}" of ${options.env} has no task ${options.task}\n`);
    return 1;
  }
  const env = provider.createEnv({ maxSteps: options.maxSteps });
  let result = await env.reset({ seed: task.seed, taskId: task.taskId });
  io.stdout.write(
    `Task ${task.taskId}${task.taskType ? ` (${task.taskType})` : ''}${result.info.task ? `: ${result.info.task}` : ''}\n`,
  );
  show(io, result);
  let steps = 0;
  const lines = createInterface({ input: io.stdin, terminal: false });
  io.stdout.write('> ');
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === 'quit' || line === 'exit') break;
    if (line === '') {
      io.stdout.write('> ');
      continue;
    }
    const index = /^\d+$/.test(line) ? Number(line) - 1 : -1;
    const action =
      index >= 0 && index < result.admissibleActions.length ? result.admissibleActions[index]! : line;
    io.stdout.write(`${action}\n`);
    result = await env.step(action);
    steps++;
    show(io, result);
    if (result.terminated || result.truncated) {
      io.stdout.write(
        `\n${result.info.won ? 'You won' : result.truncated ? 'Out of steps' : 'Episode over'} after ${steps} steps.\n`,
      );
      lines.close();
      await env.close?.();
      return result.info.won ? 0 : 2;
    }
    io.stdout.write('> ');
  }
  await env.close?.();
  io.stdout.write(`\nStopped after ${steps} steps.\n`);
  return 0;
}
