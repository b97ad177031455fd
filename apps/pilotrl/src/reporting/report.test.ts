import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EPISODE_FORMAT_VERSION, type Episode, wilsonInterval } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/curriculum-config';
import { JsonlWriter } from '../run/jsonl';
import { createRunDir, runPaths } from '../run/run-dir';
import { writeReport } from './report';

/** An eval record's success figures: counts, rate and 95% Wilson interval. */
const proportion = (successes: number, total: number) => ({
  successes,
  total,
  ...wilsonInterval(successes, total),
});

const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) =>
  existsSync(p),
);
if (chromium === undefined) {
  const message =
    'chromium not found: the headless-browser report test is SKIPPED (apt-get install chromium)';
  if (process.env.CI === 'true') throw new Error(`${message}; CI=true requires it`);
  console.warn(`\n*** ${message} ***\n`);
}

function episode(won: boolean, index: number): Episode {
  return {
    formatVersion: EPISODE_FORMAT_VERSION,
    id: `ep-${index}`,
    envId: 'alfworld',
    taskId: `train-${index}`,
    split: 'train',
    seed: index,
    groupId: `g-${index}`,
    sampleIndex: 0,
    paradigm: 'adaplan',
    task: 'put a clean mug in coffeemachine.',
    taskType: 'pick_clean_then_place_in_recep',
    initialObservation: 'You are in the middle of a room. <look around>',
    turns: [
      {
        index: 0,
        observation: 'You are in the middle of a room.',
        admissibleActions: ['go to countertop 1'],
        generations: [],
        thought: 'Step 1: find the mug',
        action: 'go to countertop 1',
        formatError: null,
        envReward: 0,
        valid: true,
        rewards: {},
      },
      {
        index: 1,
        observation: 'On the countertop 1, you see a mug 1.',
        admissibleActions: ['take mug 1 from countertop 1'],
        generations: [],
        thought: null,
        action: null,
        formatError: 'missing_action',
        envReward: 0,
        valid: false,
        rewards: {},
      },
    ],
    planHistory: [
      {
        turn: 0,
        steps: ['find the mug', 'clean it with sinkbasin 1', 'put it in coffeemachine'],
        source: 'policy',
        fixedSteps: 0,
      },
      {
        turn: 1,
        steps: ['find the mug', 'take mug from countertop 1', 'put it in coffeemachine'],
        source: 'policy',
        fixedSteps: 1,
      },
    ],
    won,
    terminated: won,
    truncated: !won,
    envReturn: won ? 1 : 0,
    rewardComponents: { outcome: won ? 1 : 0, judge: 0.6 },
    reward: won ? 1.3 : 0.3,
    metadata: { stepsDoneByTurn: [0, 1] },
  };
}

function sampleRun(): string {
  const runDir = mkdtempSync(join(tmpdir(), 'pilotrl-report-'));
  const config = parseConfig({
    name: 'report-test',
    stages: [
      {
        kind: 'joint',
        iterations: 4,
        tasksPerIteration: 2,
        groupSize: 2,
        learningRate: 1e-4,
        rewards: { outcome: 1 },
      },
    ],
  });
  createRunDir(runDir, config, {
    name: 'report-test',
    createdAt: '2026-01-01T00:00:00.000Z',
    command: ['train'],
    seeds: { master: 1 },
    packages: { pilotrl: '0.1.0' },
    dataHashes: {},
    platform: { node: 'v20', os: 'linux', arch: 'x64', backend: 'cpu' },
  });
  const paths = runPaths(runDir);
  const metrics = new JsonlWriter(paths.metrics);
  const evals = new JsonlWriter(paths.evals);
  const episodes = new JsonlWriter(paths.episodes);
  for (let step = 1; step <= 4; step++) {
    const phase = step <= 2 ? 'sft' : 'joint';
    metrics.append({
      step,
      phase,
      phaseIndex: step <= 2 ? 0 : 1,
      iteration: step,
      'charts/success_rate': step / 5,
      'losses/policy_loss': 1 / step,
      'charts/format_error_rate': 0.5 / step,
      'charts/plan_judge_score': 2 + step / 2,
      'charts/episodic_return': step / 4,
      'losses/explained_variance': step / 5 - 0.2,
      'rewards/outcome': step / 5,
    });
    episodes.append({ step, phase, episode: episode(step % 2 === 0, step) });
  }
  for (const [step, split, successes] of [
    [2, 'valid_seen', 4],
    [4, 'valid_seen', 7],
    [4, 'valid_unseen', 5],
  ] as const) {
    evals.append({
      step,
      phase: step <= 2 ? 'sft' : 'joint',
      split,
      paradigm: 'adaplan',
      success: proportion(successes, 10),
      byTaskType: {
        pick_and_place_simple: proportion(successes - 2, 5),
        pick_clean_then_place_in_recep: proportion(2, 5),
      },
      meanSteps: 12.5,
      formatErrorRate: 0.1,
      judgeScore: 3.5,
    });
  }
  return runDir;
}

describe('pilotrl report', () => {
  it('writes an HTML page and one PNG per chart from the run records', () => {
    const files = writeReport(sampleRun());
    const html = readFileSync(files.html, 'utf8');
    expect(files.pngs.map((p) => p.split('/').at(-1))).toEqual([
      'success-rate.png',
      'rewards.png',
      'losses.png',
      'value-head.png',
      'plan-judge.png',
      'format-errors.png',
      'success-by-task-type.png',
    ]);
    for (const png of files.pngs) expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
    expect(html).toContain('70.0% <span class="muted">[39.7%, 89.2%] n=10</span>');
    expect(html).toContain('clean it with sinkbasin 1');
    expect(html).toContain('format error: missing_action');
    // One row per phase and split: the sft phase's eval and the joint phase's two.
    expect(html).toContain('<tr><td>sft</td><td>valid_seen</td><td>adaplan</td><td>40.0%');
    expect(html).toContain('<tr><td>joint</td><td>valid_seen</td><td>adaplan</td><td>70.0%');
    // Records written before the diagnostics were measured leave their table empty.
    expect(html).toContain('No evaluation recorded diagnostics.');
    // Turn 1 acts under the revised plan, its first step done and the second next.
    expect(html).toContain(
      '<s>✓ find the mug</s><br>→ take mug from countertop 1<br>put it in coffeemachine <span class="muted">(policy, new)</span>',
    );
  });

  it.skipIf(chromium === undefined)('renders in headless Chromium with charts, table and episodes', () => {
    const files = writeReport(sampleRun());
    const profile = mkdtempSync(join(tmpdir(), 'pilotrl-chromium-'));
    const flags = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ];
    const dom = execFileSync(chromium!, [...flags, '--dump-dom', `file://${files.html}`], {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    expect(dom).toContain('<table id="success-table">');
    expect((dom.match(/<svg /g) ?? []).length).toBe(7);
    expect(dom).toContain('put a clean mug in coffeemachine.');
    const screenshot = join(profile, 'report.png');
    execFileSync(
      chromium!,
      [...flags, `--screenshot=${screenshot}`, '--window-size=1200,2000', `file://${files.html}`],
      {
        timeout: 60_000,
        stdio: 'ignore',
      },
    );
    expect(readFileSync(screenshot).length).toBeGreaterThan(10_000);
  });
});
