// `pilotrl report <run-dir>`: an HTML page (inline SVG charts, tables, sample episodes with their
// plans) and the same charts as PNG files, all read from the run directory's records.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError, type Episode, formatPercent } from '@pilotrl/core';
import { type CurriculumConfig, envCurricula } from '../config/curriculum-config';
import { type EvalDiagnostics, TURN_BUCKET } from '../evaluation/eval-diagnostics';
import { readManifest, readRunConfig, runPaths } from '../run/run-dir';
import {
  type EvalRecord,
  type MetricsRecord,
  readEvals,
  readMetrics,
  readSampledEpisodes,
} from '../run/run-records';
import { heldOutAt, watchCoverage } from '../training/hacking-watch';
import { svgToPng } from './plot/chart-png';
import { type Chart, chartToSvg, type LineSeries } from './plot/charts';

export interface ReportFiles {
  html: string;
  pngs: string[];
}

const escapeHtml = (text: string) =>
  text.replace(/[<>&"]/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[ch]!);

function phaseMarkers(metrics: readonly MetricsRecord[]) {
  const markers: { x: number; label: string }[] = [];
  for (const record of metrics) {
    if (markers.at(-1)?.label !== record.phase) markers.push({ x: record.step, label: record.phase });
  }
  return markers;
}

function metricSeries(metrics: readonly MetricsRecord[], key: string, name = key): LineSeries | undefined {
  const points = metrics
    .filter((m) => typeof m[key] === 'number' && Number.isFinite(m[key]))
    .map((m) => [m.step, m[key] as number] as const);
  return points.length > 0 ? { name, points } : undefined;
}

const defined = <T>(items: readonly (T | undefined)[]) =>
  items.filter((item): item is T => item !== undefined);

/** Charts of a run, by file stem. Charts without data are left out. */
export function runCharts(
  metrics: readonly MetricsRecord[],
  evals: readonly EvalRecord[],
): Record<string, Chart> {
  const markers = phaseMarkers(metrics);
  const charts: Record<string, Chart> = {};
  const splits = [...new Set(evals.map(evalSeriesName))];
  const envs = [...new Set(evals.flatMap((e) => (e.env === undefined ? [] : [e.env])))];
  const successSeries = defined([
    metricSeries(metrics, 'charts/success_rate', 'train (sampled)'),
    ...envs.map((env) => metricSeries(metrics, `charts/success_rate/${env}`, `${env} train (sampled)`)),
    ...splits.map((split) => ({
      name: split,
      points: evals.filter((e) => evalSeriesName(e) === split).map((e) => [e.step, e.success.rate] as const),
    })),
  ]);
  if (successSeries.length > 0) {
    charts['success-rate'] = {
      kind: 'line',
      title: 'Success rate by stage',
      xLabel: 'iteration',
      yLabel: 'success',
      yRange: [0, 1],
      series: successSeries,
      markers,
    };
  }
  const rewardKeys = [
    ...new Set(metrics.flatMap((m) => Object.keys(m).filter((k) => k.startsWith('rewards/')))),
  ].sort();
  const rewardSeries = defined([
    metricSeries(metrics, 'charts/episodic_return', 'reward (weighted sum)'),
    ...rewardKeys.map((key) => metricSeries(metrics, key, key.slice('rewards/'.length))),
  ]);
  if (rewardSeries.length > 0) {
    charts.rewards = {
      kind: 'line',
      title: 'Reward and its components by stage',
      xLabel: 'iteration',
      yLabel: 'reward',
      series: rewardSeries,
      markers: [...markers, ...watchFirings(metrics).map((m) => ({ x: m.step, label: 'watch' }))],
    };
  }
  const lossSeries = defined([
    metricSeries(metrics, 'losses/policy_loss'),
    metricSeries(metrics, 'losses/sft_loss'),
  ]);
  if (lossSeries.length > 0) {
    charts.losses = {
      kind: 'line',
      title: 'Losses',
      xLabel: 'iteration',
      yLabel: 'loss',
      series: lossSeries,
      markers,
    };
  }
  // A critic's fit: the share of the returns' variance its values explain (1 is perfect, 0 no
  // better than the mean return), measured before each update moves it.
  const explained = metricSeries(metrics, 'losses/explained_variance', 'explained variance');
  if (explained !== undefined) {
    charts['value-head'] = {
      kind: 'line',
      title: 'Value head: explained variance of the returns',
      xLabel: 'iteration',
      yLabel: 'explained variance',
      series: [explained],
      markers,
    };
  }
  const judge = metricSeries(metrics, 'charts/plan_judge_score', 'plan judge (1-5)');
  if (judge !== undefined) {
    charts['plan-judge'] = {
      kind: 'line',
      title: 'Plan-judge score',
      xLabel: 'iteration',
      yLabel: 'score',
      yRange: [1, 5],
      series: [judge],
      markers,
    };
  }
  const formatSeries = defined([
    metricSeries(metrics, 'charts/format_error_rate', 'train'),
    ...splits.map((split) => ({
      name: split,
      points: evals
        .filter((e) => evalSeriesName(e) === split)
        .map((e) => [e.step, e.formatErrorRate] as const),
    })),
  ]);
  if (formatSeries.some((s) => s.points.length > 0)) {
    charts['format-errors'] = {
      kind: 'line',
      title: 'Format-error rate',
      xLabel: 'iteration',
      yLabel: 'errors/turn',
      yRange: [0, 1],
      series: formatSeries,
      markers,
    };
  }
  const finals = finalEvals(evals);
  if (finals.length > 0) {
    const taskTypes = [...new Set(finals.flatMap((e) => Object.keys(e.byTaskType)))].sort();
    charts['success-by-task-type'] = {
      kind: 'bar',
      title: 'Final success by split and task type (95% CI)',
      yLabel: 'success',
      yRange: [0, 1],
      groups: ['all', ...taskTypes].map((type) => ({
        label: type,
        bars: finals.flatMap((e) => {
          const p = type === 'all' ? e.success : e.byTaskType[type];
          return p === undefined
            ? []
            : [{ name: evalSeriesName(e), value: p.rate, low: p.low, high: p.high }];
        }),
      })),
    };
  }
  return charts;
}

/** A split's name in charts: the split, or `<env> <split>` in a mixture. */
const evalSeriesName = (record: EvalRecord) =>
  record.env === undefined ? record.split : `${record.env} ${record.split}`;

/** The last eval of every split (of every env) in each phase, in the order the phases ran. */
export function phaseEvals(evals: readonly EvalRecord[]): EvalRecord[] {
  const last = new Map<string, EvalRecord>();
  for (const record of evals) last.set(`${record.phase}\u0000${record.env}\u0000${record.split}`, record);
  return [...last.values()];
}

/** The last eval of every split (of every env). */
export function finalEvals(evals: readonly EvalRecord[]): EvalRecord[] {
  const last = new Map<string, EvalRecord>();
  for (const record of evals) last.set(`${record.env}\u0000${record.split}`, record);
  return [...last.values()];
}

/** The plan in force before `turn`, its steps done marked ✓ and the next one →. */
function planInForce(episode: Episode, turn: number): string {
  const revision = episode.planHistory.filter((r) => r.turn <= turn).at(-1);
  if (revision === undefined) return '';
  const done = (episode.metadata.stepsDoneByTurn as number[] | undefined)?.[turn];
  const changed = revision.turn === turn ? ` <span class="muted">(${revision.source}, new)</span>` : '';
  return `${revision.steps
    .map((step, index) => {
      const mark = done === undefined ? '' : index < done ? '✓ ' : index === done ? '→ ' : '';
      const text = `${mark}${escapeHtml(step)}`;
      return done !== undefined && index < done ? `<s>${text}</s>` : text;
    })
    .join('<br>')}${changed}`;
}

function episodeHtml(step: number, phase: string, episode: Episode): string {
  const planned = episode.planHistory.length > 0;
  const turns = episode.turns
    .map(
      (turn) =>
        `<tr><td>${turn.index}</td>${planned ? `<td class="plan">${planInForce(episode, turn.index)}</td>` : ''}<td>${escapeHtml(turn.thought ?? '')}</td><td>${escapeHtml(turn.action ?? '(none)')}${
          turn.formatError ? ` <span class="bad">format error: ${escapeHtml(turn.formatError)}</span>` : ''
        }</td><td>${escapeHtml(turn.observation)}</td></tr>`,
    )
    .join('');
  const rewards = Object.entries(episode.rewardComponents)
    .map(([k, v]) => `${escapeHtml(k)} ${v.toFixed(3)}`)
    .join(', ');
  return `<details class="episode"><summary><b class="${episode.won ? 'won' : 'bad'}">${episode.won ? 'won' : 'lost'}</b> · iteration ${step} (${escapeHtml(phase)}) · ${escapeHtml(
    episode.task,
  )} · ${episode.turns.length} turns · ${episode.planHistory.length} plan${episode.planHistory.length === 1 ? '' : 's'} · reward ${episode.reward?.toFixed(3) ?? 'n/a'}</summary>
<p class="muted">${escapeHtml(episode.paradigm)} · task ${escapeHtml(episode.taskId)} · ${rewards}</p>
<pre>${escapeHtml(episode.initialObservation)}</pre>
<table><tr><th>#</th>${planned ? '<th>plan in force (✓ done, → next)</th>' : ''}<th>thought</th><th>action</th><th>observation before acting</th></tr>${turns}</table></details>`;
}

function evalTable(records: readonly EvalRecord[]): string {
  if (records.length === 0) return '<p class="muted">No evaluation was run.</p>';
  const taskTypes = [...new Set(records.flatMap((e) => Object.keys(e.byTaskType)))].sort();
  const mixture = records.some((e) => e.env !== undefined);
  const cell = (p: EvalRecord['success'] | undefined) =>
    p === undefined
      ? '<td>-</td>'
      : `<td>${formatPercent(p.rate)} <span class="muted">[${formatPercent(p.low)}, ${formatPercent(p.high)}] n=${p.total}</span></td>`;
  const rows = records
    .map(
      (e) =>
        `<tr><td>${escapeHtml(e.phase)}</td>${mixture ? `<td>${escapeHtml(e.env ?? '')}</td>` : ''}<td>${escapeHtml(e.split)}</td><td>${escapeHtml(e.paradigm)}</td>${cell(e.success)}<td>${e.meanSteps.toFixed(1)}</td><td>${formatPercent(
          e.formatErrorRate,
        )}</td><td>${e.judgeScore === null ? '-' : e.judgeScore.toFixed(2)}</td>${taskTypes.map((t) => cell(e.byTaskType[t])).join('')}</tr>`,
    )
    .join('');
  return `<table id="success-table"><tr><th>after phase</th>${mixture ? '<th>env</th>' : ''}<th>split</th><th>paradigm</th><th>success [95% CI]</th><th>mean steps</th><th>format errors</th><th>plan judge</th>${taskTypes
    .map((t) => `<th>${escapeHtml(t)}</th>`)
    .join('')}</tr>${rows}</table>`;
}

/**
 * What explains a miss, by phase and split: the plan-follow rate, revisions per episode and the
 * success of episodes with and without one, the share of looping turns, and the share of invalid or
 * malformed commands by turn;
 * a split played with the oracle's plans (`eval.oraclePlan`) on a row of its own.
 */
function diagnosticsTable(records: readonly EvalRecord[]): string {
  const rows = records.flatMap((e) => [
    ...(e.diagnostics === undefined
      ? []
      : [{ record: e, plans: 'own', success: e.success, diagnostics: e.diagnostics }]),
    ...(e.oraclePlan === undefined
      ? []
      : [
          {
            record: e,
            plans: "oracle's",
            success: e.oraclePlan.success,
            diagnostics: e.oraclePlan.diagnostics,
          },
        ]),
  ]);
  if (rows.length === 0) return '<p class="muted">No evaluation recorded diagnostics.</p>';
  const mixture = records.some((e) => e.env !== undefined);
  const buckets = Math.max(...rows.map((row) => row.diagnostics.errorsByTurn.length));
  const share = (rate: number | null, of: string) =>
    rate === null ? '<td>-</td>' : `<td>${formatPercent(rate)} <span class="muted">${of}</span></td>`;
  const outcome = (o: { episodes: number; successes: number; rate: number | null }) =>
    share(o.rate, `${o.successes}/${o.episodes}`);
  const cells = (d: EvalDiagnostics) =>
    `${d.planFollow === null ? '<td>-</td>' : share(d.planFollow.rate, `of ${d.planFollow.turns} turns`)}${
      d.revisions === null
        ? '<td>-</td><td>-</td><td>-</td>'
        : `<td>${d.revisions.perEpisode.toFixed(2)}</td>${outcome(d.revisions.revised)}${outcome(d.revisions.unrevised)}`
    }${d.loops === undefined ? '<td>-</td>' : share(d.loops.rate, `of ${d.loops.turns} turns`)}${Array.from(
      { length: buckets },
      (_, index) => {
        const bucket = d.errorsByTurn[index];
        return bucket === undefined ? '<td>-</td>' : share(bucket.rate, `of ${bucket.turns}`);
      },
    ).join('')}`;
  const body = rows
    .map(
      ({ record: e, plans, success, diagnostics }) =>
        `<tr><td>${escapeHtml(e.phase)}</td>${mixture ? `<td>${escapeHtml(e.env ?? '')}</td>` : ''}<td>${escapeHtml(e.split)}</td><td>${plans}</td><td>${formatPercent(success.rate)} <span class="muted">n=${success.total}</span></td>${cells(diagnostics)}</tr>`,
    )
    .join('');
  const bucketHeads = Array.from(
    { length: buckets },
    (_, index) => `<th>errors, turns ${index * TURN_BUCKET + 1}-${(index + 1) * TURN_BUCKET}</th>`,
  ).join('');
  return `<table id="diagnostics-table"><tr><th>after phase</th>${mixture ? '<th>env</th>' : ''}<th>split</th><th>plans</th><th>success</th><th>plan-follow</th><th>revisions/episode</th><th>success, revised</th><th>success, not revised</th><th>looping turns</th>${bucketHeads}</tr>${body}</table>`;
}

/** The metrics lines whose evaluation the reward-hacking watch flagged. */
const watchFirings = (metrics: readonly MetricsRecord[]) =>
  metrics.filter((m) => m['watch/reward_vs_heldout'] === 1 || m['watch/judge_vs_outcome'] === 1);

/** The reward-hacking watch's callout: where it fired and what it saw, or that it did not, and what it could see. */
function watchSection(
  config: CurriculumConfig,
  metrics: readonly MetricsRecord[],
  evals: readonly EvalRecord[],
): string {
  const coverage = `<ul class="muted">${watchCoverage(config)
    .map((line) => `<li>${escapeHtml(line)}</li>`)
    .join('')}</ul>`;
  if (!config.watch.enabled) return coverage;
  const verdicts = metrics.filter((m) => typeof m['watch/reward_vs_heldout'] === 'number');
  const fired = watchFirings(metrics);
  if (fired.length === 0) {
    const none =
      verdicts.length === 0
        ? 'The watch had no two evaluations of a stage to compare.'
        : `The watch judged ${verdicts.length} evaluation${verdicts.length === 1 ? '' : 's'} and found no divergence.`;
    return `<p id="watch-quiet">${none}</p>${coverage}`;
  }
  const number = (value: unknown, digits: number) =>
    typeof value === 'number' ? `${value >= 0 ? '+' : ''}${value.toFixed(digits)}` : '-';
  const rows = fired
    .map((m) => {
      const divergences = [
        ...(m['watch/reward_vs_heldout'] === 1 ? ['reward up, held-out flat or falling'] : []),
        ...(m['watch/judge_vs_outcome'] === 1 ? ['judge up, outcome flat or falling'] : []),
      ];
      const baseline = m['watch/baseline_step'] as number;
      const before = heldOutAt(evals, baseline);
      const after = heldOutAt(evals, m.step);
      return `<tr><td>${m.step}</td><td>${escapeHtml(m.phase)}</td><td>${divergences.join('; ')}</td><td>${number(m['watch/reward_rise'], 3)}</td><td>${formatPercent(before.rate)} → ${formatPercent(after.rate)} <span class="muted">(iterations ${baseline} → ${m.step}, n=${after.total})</span></td><td>${number(m['watch/judge_rise'], 2)}</td><td>${number(m['watch/outcome_rise'], 3)}</td></tr>`;
    })
    .join('');
  return `<div class="callout" id="watch-fired"><p><b>⚠ The reward-hacking watch fired at ${fired.length} of ${verdicts.length} evaluation${verdicts.length === 1 ? '' : 's'}</b>: the training reward (or the plan judge's score) rose while held-out success (or the outcome) did not. The policy may be gaming its reward; read the sample episodes of these stages.</p>
<table><tr><th>iteration</th><th>phase</th><th>divergence</th><th>training reward rise</th><th>held-out success</th><th>judge score rise</th><th>training success rise</th></tr>${rows}</table></div>${coverage}`;
}

/** Writes `<runDir>/report/index.html` and one PNG per chart; returns their paths. */
export function writeReport(runDir: string, maxEpisodes = 6): ReportFiles {
  const paths = runPaths(runDir);
  if (!existsSync(paths.configJson))
    throw new CheckpointError(`${runDir} is not a run directory (no config.json)`);
  const config = readRunConfig(runDir);
  const manifest = readManifest(runDir);
  const metrics = readMetrics(paths.metrics);
  const evals = readEvals(paths.evals);
  const episodes = readSampledEpisodes(paths.episodes);
  mkdirSync(paths.report, { recursive: true });

  const charts = runCharts(metrics, evals);
  const pngs: string[] = [];
  const figures = Object.entries(charts).map(([stem, chart]) => {
    const svg = chartToSvg(chart);
    const png = join(paths.report, `${stem}.png`);
    writeFileSync(png, svgToPng(svg));
    pngs.push(png);
    return `<figure id="chart-${stem}">${svg}<figcaption><a href="${stem}.png">${stem}.png</a></figcaption></figure>`;
  });
  const last = metrics.at(-1);
  const samples = episodes.slice(-maxEpisodes).reverse();
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PilotRL run ${escapeHtml(config.name)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}td,th{border:1px solid #ccc;padding:.25rem .5rem;vertical-align:top;text-align:left}
.muted{color:#777;font-size:.85em}.bad{color:#b00}.won{color:#070}figure{margin:1rem 0}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5rem}
.episode{margin:.5rem 0;border:1px solid #ddd;padding:.5rem}.plan ol{margin:.25rem 0}
.callout{border-left:4px solid #c60;background:#fff6ec;padding:.5rem 1rem;margin:.5rem 0}
</style></head><body>
<h1>PilotRL run <code>${escapeHtml(config.name)}</code></h1>
<p class="muted">created ${escapeHtml(manifest.createdAt)} · env ${escapeHtml(
    envCurricula(config)
      .map((env) => env.id)
      .join(', '),
  )} · paradigm ${escapeHtml(
    [...new Set(envCurricula(config).map((env) => env.config.agent.paradigm))].join(', '),
  )} · ${metrics.length} iterations logged${last ? ` · last phase ${escapeHtml(last.phase)}` : ''} · backend ${escapeHtml(
    manifest.platform.backend ?? 'unknown',
  )}</p>
<h2 id="watch">Reward-hacking watch</h2>
${watchSection(config, metrics, evals)}
<h2>Success by phase, split and task type</h2>
${evalTable(phaseEvals(evals))}
<h2>Why episodes missed: diagnostics by phase and split</h2>
<p class="muted">Plan-follow: the share of an AdaPlan agent's turns whose command carried out the plan step marked next, where the env's step checks ran (plans in its plan-step vocabulary). Revisions: plans after the first that changed the plan. Looping turns: the share of turns whose command the episode had played from the same state (observation and commands) before. Errors: the share of turns whose command was invalid or malformed. Plans "oracle's": the split played with the env oracle's plan given (<code>eval.oraclePlan</code>), the act policy's ceiling.</p>
${diagnosticsTable(phaseEvals(evals))}
<h2>Charts</h2>
${figures.length > 0 ? figures.join('\n') : '<p class="muted">No metrics yet.</p>'}
<h2>Sample episodes</h2>
${samples.length > 0 ? samples.map((s) => episodeHtml(s.step, s.phase, s.episode)).join('\n') : '<p class="muted">No episodes sampled.</p>'}
<h2>Reproducibility</h2>
<pre id="manifest">${escapeHtml(JSON.stringify({ seeds: manifest.seeds, packages: manifest.packages, dataHashes: manifest.dataHashes, command: manifest.command }, null, 2))}</pre>
</body></html>
`;
  writeFileSync(join(paths.report, 'index.html'), html);
  return { html: join(paths.report, 'index.html'), pngs };
}
