// Loaders of real ALFWorld data: a `game.tw-pddl` file, or an `initial_state.pddl` problem with
// its `traj_data.json`, or a trial directory holding either. Bad files give a ParseError that names
// the file, the line and the problem; a file over `MAX_GAME_FILE_BYTES` is refused before it is read.
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ParseError } from '@pilotrl/core';
import { z } from 'zod';
import { type CompiledGame, compileGame } from './game';
import { type Dialect, dialectSources, grammarWithTask } from './game-file';
import { jsonErrorOffset } from './json-error';
import { MAX_GAME_FILE_BYTES } from './limits';
import { goalTemplates, type TaskType, taskTypes } from './vocabulary';

export interface LoadedGame {
  readonly game: CompiledGame;
  /** The goal sentence as the game states it (`Your task is to: <sentence>.`). */
  readonly task: string;
  readonly taskType: TaskType | undefined;
  readonly dialect: Dialect;
  /** The expert command list stored in the game file, when it has one. */
  readonly walkthrough: readonly string[] | undefined;
}

const gameFileSchema = z.object({
  pddl_domain: z.string(),
  grammar: z.string(),
  pddl_problem: z.string(),
  solvable: z.boolean().optional(),
  walkthrough: z.array(z.string()).nullable().optional(),
});

const trajDataSchema = z.looseObject({
  task_id: z.string().optional(),
  task_type: z.string(),
  pddl_params: z.looseObject({
    object_target: z.string(),
    parent_target: z.string().optional().default(''),
    toggle_target: z.string().optional().default(''),
  }),
});

/**
 * The file's text, read under the size cap from what it is when opened: only a regular file (a
 * FIFO, a device such as /dev/zero or a directory is refused, without blocking: the open does not
 * wait for a FIFO's writer), and never more than `MAX_GAME_FILE_BYTES` + 1 bytes.
 */
function readText(path: string): string {
  const unreadable = (error: unknown) =>
    new ParseError(path, undefined, `cannot read the file (${(error as Error).message})`, { cause: error });
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    throw unreadable(error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ParseError(path, undefined, 'not a regular file');
    if (stat.size > MAX_GAME_FILE_BYTES) {
      throw new ParseError(
        path,
        undefined,
        `file is ${stat.size} bytes; the limit is ${MAX_GAME_FILE_BYTES} (MAX_GAME_FILE_BYTES)`,
      );
    }
    const buffer = Buffer.alloc(Math.min(stat.size, MAX_GAME_FILE_BYTES) + 1);
    let read = 0;
    for (;;) {
      const got = readSync(fd, buffer, read, buffer.length - read, null);
      if (got === 0) break;
      read += got;
      if (read > MAX_GAME_FILE_BYTES) {
        throw new ParseError(path, undefined, `file grew past the limit of ${MAX_GAME_FILE_BYTES} bytes`);
      }
      if (read === buffer.length) break;
    }
    return buffer.subarray(0, read).toString('utf8');
  } catch (error) {
    if (ParseError.isInstance(error)) throw error;
    throw unreadable(error);
  } finally {
    closeSync(fd);
  }
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const offset = jsonErrorOffset(text);
    const line = offset === undefined ? undefined : text.slice(0, offset).split('\n').length;
    throw new ParseError(path, line, `not valid JSON (${(error as Error).message})`, { cause: error });
  }
}

function schemaProblem(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
}

/** Reads the task sentence from a grammar's `"task"` rule. */
export function taskSentence(grammar: string): string {
  const match = /"task"\s*:\s*\[\s*\{\s*"rhs"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(grammar);
  if (match === null) return '';
  const rhs = JSON.parse(`"${match[1]}"`) as string;
  return rhs.replace(/^Your task is to:\s*/, '').replace(/\.$/, '');
}

/** The dialect of a grammar: `move X to Y` means current, `put X in/on Y` legacy. */
export function detectDialect(grammar: string): Dialect {
  return grammar.includes('template :: "move {o} to {r}"') ? 'current' : 'legacy';
}

/** Loads a `game.tw-pddl` file. */
export function loadGameFile(path: string): LoadedGame {
  const parsed = gameFileSchema.safeParse(parseJson(readText(path), path));
  if (!parsed.success)
    throw new ParseError(path, undefined, `not a game.tw-pddl file: ${schemaProblem(parsed.error)}`);
  const data = parsed.data;
  if (data.solvable === false)
    throw new ParseError(path, undefined, 'the game is marked "solvable": false (ALFWorld skips it)');
  const game = compileGame({
    domain: data.pddl_domain,
    problem: data.pddl_problem,
    grammar: data.grammar,
    names: {
      domain: `${path} (pddl_domain)`,
      problem: `${path} (pddl_problem)`,
      grammar: `${path} (grammar)`,
    },
  });
  return {
    game,
    task: taskSentence(data.grammar),
    taskType: taskTypeOfPath(path),
    dialect: detectDialect(data.grammar),
    walkthrough: data.walkthrough ?? undefined,
  };
}

function taskTypeOfPath(path: string): TaskType | undefined {
  return taskTypes.find((type) => path.includes(`${type}-`));
}

/**
 * Loads an `initial_state.pddl` with the `traj_data.json` beside it (or at `trajDataPath`). The
 * sentence uses template A or B of the task type, chosen by the trial id (ALFWorld chose at random).
 */
export function loadProblemFile(
  path: string,
  options: { dialect?: Dialect; trajDataPath?: string } = {},
): LoadedGame {
  const trajPath = options.trajDataPath ?? join(dirname(path), 'traj_data.json');
  const parsed = trajDataSchema.safeParse(parseJson(readText(trajPath), trajPath));
  if (!parsed.success)
    throw new ParseError(trajPath, undefined, `not an ALFRED traj_data.json: ${schemaProblem(parsed.error)}`);
  const traj = parsed.data;
  const taskType = taskTypes.find((type) => type === traj.task_type);
  if (taskType === undefined) {
    throw new ParseError(
      trajPath,
      undefined,
      `task_type "${traj.task_type}" is not one of ALFWorld's six (${taskTypes.join(', ')})`,
    );
  }
  const params = traj.pddl_params;
  const id = traj.task_id ?? path;
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) >>> 0;
  const sentence = goalTemplates[taskType]
    [hash % 2]!.replace('{obj}', params.object_target.toLowerCase())
    .replace('{recep}', params.parent_target.toLowerCase())
    .replace('{toggle}', params.toggle_target.toLowerCase());
  const dialect = options.dialect ?? 'legacy';
  const grammar = grammarWithTask(dialect, sentence);
  const game = compileGame({
    domain: dialectSources(dialect).domain,
    problem: readText(path),
    grammar,
    names: { problem: path },
  });
  return { game, task: sentence, taskType, dialect, walkthrough: undefined };
}

/** Loads a game file, a problem file, or a trial directory (preferring its `game.tw-pddl`). */
export function loadGame(path: string, options: { dialect?: Dialect } = {}): LoadedGame {
  if (!existsSync(path)) throw new ParseError(path, undefined, 'no such file or directory');
  if (statSync(path).isDirectory()) {
    const gameFile = join(path, 'game.tw-pddl');
    if (existsSync(gameFile)) return loadGameFile(gameFile);
    const problem = join(path, 'initial_state.pddl');
    if (existsSync(problem)) return loadProblemFile(problem, options);
    throw new ParseError(path, undefined, 'the directory holds neither game.tw-pddl nor initial_state.pddl');
  }
  return path.endsWith('.pddl') ? loadProblemFile(path, options) : loadGameFile(path);
}
