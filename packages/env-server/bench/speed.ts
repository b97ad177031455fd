// Speed under load: N concurrent sessions (1, 16, 256) playing ALFWorld episodes (random admissible
// commands, a reset when an episode ends) against our server over OpenEnv's WebSocket and over
// AgentGym's ALFWorld HTTP dialect, and against ALFWorld's reference engine (TextWorld's PDDL env +
// ALFWorld's demangler) behind a Python OpenEnv server built with openenv-core's server library
// (reference/alfworld_openenv_server.py) over the same WebSocket. Prints steps/s and p50/p99 step
// latency per row, and ours/Python where both ran.
//   pnpm bench [-- --seconds 20 --sessions 1,16,256 --reference-sessions 1,16 --no-reference --memoize]
// Each server runs in a process of its own; the load generator (bench/load.ts) runs here. They share
// the machine's cores, so on a small machine the client's CPU (printed) is taken from the server's.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createGeneratedTaskSource, sceneOfTaskId, writeGameFile } from '@pilotrl/env-alfworld';
import { type LoadResult, type LoadTask, openEnvTranscript, runLoad } from './load';

const benchDir = import.meta.dirname;
const packageDir = resolve(benchDir, '..');
const repoRoot = resolve(packageDir, '../..');
const referenceVenv = join(repoRoot, '.venv', 'env-server-bench-reference');
const referencePython = join(referenceVenv, 'bin', 'python');
const referenceServer = join(packageDir, 'reference', 'alfworld_openenv_server.py');
const setupCommand = 'packages/env-server/reference/bench-setup.sh';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    sessions: { type: 'string', default: '1,16,256' },
    // The Python reference's first resets alone take N × ~3 s (serialized), ~12 min at 256.
    'reference-sessions': { type: 'string', default: '1,16' },
    tasks: { type: 'string', default: '64' },
    'no-reference': { type: 'boolean', default: false },
    memoize: { type: 'boolean', default: false },
  },
});
const durationMs = Number(args.seconds) * 1000;
const sessionCounts = args.sessions.split(',').map(Number);
const referenceSessionCounts = args['reference-sessions'].split(',').map(Number);
const taskCount = Number(args.tasks);

interface Server {
  url: string;
  child: ChildProcess;
  /** CPU seconds the server process has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process (all its threads), from /proc. */
function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return Number.NaN;
  }
}

/** Starts a server process and waits for its `listening <url>` line. */
function startServer(command: string, commandArgs: string[], what: string): Promise<Server> {
  const child = spawn(command, commandArgs, { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  return new Promise((resolvePromise, reject) => {
    let stdout = '';
    const onData = (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening (http:\/\/\S+)/.exec(stdout);
      if (match === null) return;
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolvePromise({
        url: match[1]!.replace(/\/$/, ''),
        child,
        cpuSeconds: () => processCpuSeconds(child.pid!),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 5000).unref();
          }),
      });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before listening:\n${stderr}`)));
  });
}

interface Row extends LoadResult {
  server: 'ours' | 'Python';
  serverCpu: number;
}

async function measure(
  server: Server,
  name: Row['server'],
  protocol: LoadResult['protocol'],
  sessions: number,
  tasks: LoadTask[],
): Promise<Row> {
  let cpuAtStart = 0;
  const result = await runLoad({
    protocol,
    baseUrl: server.url,
    sessions,
    tasks,
    durationMs,
    onWindowStart: () => {
      cpuAtStart = server.cpuSeconds();
    },
  });
  const row: Row = {
    ...result,
    server: name,
    serverCpu: (server.cpuSeconds() - cpuAtStart) / result.seconds,
  };
  console.log(`  ${formatRow(row)}`);
  return row;
}

const fmt = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '-';
const protocolName = (protocol: LoadResult['protocol']) =>
  protocol === 'ws' ? 'OpenEnv WS /ws' : 'AgentGym HTTP';

const header = [
  'protocol'.padEnd(16),
  'server'.padEnd(7),
  'N'.padStart(4),
  'steps/s'.padStart(9),
  'p50 ms'.padStart(8),
  'p99 ms'.padStart(9),
  'resets'.padStart(7),
  'reset p50 ms'.padStart(13),
  'client CPU'.padStart(11),
  'server CPU'.padStart(11),
  'resent'.padStart(7),
].join(' ');

function formatRow(row: Row, ratio = ''): string {
  return [
    protocolName(row.protocol).padEnd(16),
    row.server.padEnd(7),
    String(row.sessions).padStart(4),
    fmt(row.stepsPerSecond).padStart(9),
    fmt(row.p50Ms, 2).padStart(8),
    fmt(row.p99Ms, 2).padStart(9),
    String(row.resets).padStart(7),
    fmt(row.resetP50Ms, 1).padStart(13),
    `${fmt(row.clientCpu * 100)}%`.padStart(11),
    `${fmt(row.serverCpu * 100)}%`.padStart(11),
    String(row.resent).padStart(7),
    ratio,
  ]
    .join(' ')
    .trimEnd();
}

function referenceInstalled(): boolean {
  return existsSync(referencePython) && existsSync(join(referenceVenv, '.requirements.sha256'));
}

/** Writes the tasks' game files (legacy dialect, as our server plays them) for the Python server. */
function writeGames(tasks: readonly LoadTask[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'env-server-bench-games-'));
  const games = tasks.map((task, i) => {
    const scene = sceneOfTaskId(task.taskId);
    if (scene === undefined) throw new Error(`${task.taskId} is not a generated task`);
    const file = `game-${i}.tw-pddl`;
    writeFileSync(join(dir, file), JSON.stringify(writeGameFile(scene, { dialect: 'legacy' })));
    return { task_id: task.taskId, file };
  });
  writeFileSync(join(dir, 'games.json'), JSON.stringify(games));
  return dir;
}

async function main(): Promise<void> {
  const refs = await createGeneratedTaskSource().tasks('train', { limit: taskCount });
  const tasks: LoadTask[] = refs.map((ref, game) => ({ taskId: ref.taskId, game }));
  console.log(
    `env-server speed under load: ALFWorld, ${tasks.length} generated train tasks (episode e of session i plays task (i + e) mod ${tasks.length}: a new task each episode, past our env's cache of 32 compiled games), random admissible commands, a reset on done or after 50 steps; ${args.seconds} s window per row after every session has connected and reset once`,
  );
  console.log(
    `machine: ${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} before the bench (other work on the machine takes its share); the load generator (this process) and the server (another process) share these cores, so the client's CPU below is taken from the server's`,
  );

  const rows: Row[] = [];
  const ours = await startServer(
    process.execPath,
    ['--conditions=@pilotrl/source', '--import', 'tsx', join(benchDir, 'serve-ours.ts')],
    'our server',
  );
  try {
    // Warm-up (JIT, game caches), not reported.
    await runLoad({ protocol: 'ws', baseUrl: ours.url, sessions: 16, tasks, durationMs: 1500 });
    await runLoad({ protocol: 'http', baseUrl: ours.url, sessions: 16, tasks, durationMs: 1500 });
    for (const protocol of ['ws', 'http'] as const)
      for (const sessions of sessionCounts) rows.push(await measure(ours, 'ours', protocol, sessions, tasks));
  } finally {
    await ours.stop();
  }

  let referenceNote: string;
  if (args['no-reference']) {
    referenceNote = 'reference: skipped (--no-reference)';
  } else if (!referenceInstalled()) {
    referenceNote = `reference not installed: run ${setupCommand} to compare against ALFWorld's Python engine`;
  } else {
    const versions = JSON.parse(
      execFileSync(referencePython, [referenceServer, '--check'], { encoding: 'utf8' }),
    ) as Record<string, string>;
    const gamesDir = writeGames(tasks);
    const python = await startServer(
      referencePython,
      [referenceServer, 'serve', gamesDir, ...(args.memoize ? ['--memoize'] : [])],
      'the Python reference server',
    );
    try {
      // The same replies? One episode of random commands on both (ours restarted for it).
      const again = await startServer(
        process.execPath,
        ['--conditions=@pilotrl/source', '--import', 'tsx', join(benchDir, 'serve-ours.ts')],
        'our server',
      );
      const [mine, theirs] = await Promise.all([
        openEnvTranscript(again.url, tasks[0]!, 30),
        openEnvTranscript(python.url, tasks[0]!, 30),
      ]).finally(() => again.stop());
      const same = mine.filter((line, i) => line === theirs[i]).length;
      console.log(
        `  check: ${same} of ${Math.max(mine.length, theirs.length)} replies of one episode (${tasks[0]!.taskId}) have the same admissible commands and won on both servers`,
      );
      for (const sessions of referenceSessionCounts)
        rows.push(await measure(python, 'Python', 'ws', sessions, tasks));
    } finally {
      await python.stop();
      rmSync(gamesDir, { recursive: true, force: true });
    }
    referenceNote = `reference: ALFWorld's engine (textworld ${versions.textworld}, alfworld ${versions.alfworld}, fast-downward-textworld ${versions['fast-downward-textworld']}${args.memoize ? ', play.py --memoize caches' : ', as shipped'}) behind openenv-core ${versions['openenv-core']}'s create_fastapi_app on uvicorn ${versions.uvicorn}, python ${versions.python}`;
  }

  console.log('');
  console.log(header);
  for (const row of rows) {
    const python =
      row.server === 'ours'
        ? rows.find(
            (r) => r.server === 'Python' && r.protocol === row.protocol && r.sessions === row.sessions,
          )
        : undefined;
    const ratio =
      python === undefined
        ? ''
        : `ours/Python ${fmt(row.stepsPerSecond / python.stepsPerSecond, 1)}x steps/s, ${fmt(python.p50Ms / row.p50Ms, 1)}x lower p50`;
    console.log(formatRow(row, ratio));
  }
  console.log('');
  console.log(`load average after the bench: ${loadavg()[0]!.toFixed(1)}`);
  console.log(referenceNote);
  console.log(
    "Python over HTTP: not run. openenv-core's HTTP /reset and /step are stateless (a fresh env per call), so episodes are played over /ws only; AgentGym's HTTP dialect is served by ours (AgentGym's own ALFWorld server needs the full ALFWorld data and is not installed here).",
  );
  console.log(
    'steps/s counts steps over the window, whose wall time includes the resets; latencies are per request, sent to reply parsed. CPU: seconds of CPU per second of window (100% = one core). resent: HTTP requests sent again on a fresh connection after the server dropped their keep-alive socket unread (ECONNRESET).',
  );
}

await main();
