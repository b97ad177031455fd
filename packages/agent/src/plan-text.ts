// The text form of a global plan: one `Step N: ...` line per step, numbered from 1.
import type { Plan } from '@pilotrl/core';

/** Writes `steps` as `Step 1: ...\nStep 2: ...`. Newlines inside a step become spaces. */
export function formatPlan(steps: Plan): string {
  return steps.map((step, index) => `Step ${index + 1}: ${step.replace(/\s*\n\s*/g, ' ').trim()}`).join('\n');
}

export type PlanTextResult =
  | { ok: true; steps: Plan }
  | { ok: false; code: PlanTextErrorCode; message: string };

export type PlanTextErrorCode =
  | 'no_steps'
  | 'bad_step_line'
  | 'step_numbering'
  | 'empty_step'
  | 'too_many_steps';

const stepLine = /^Step\s+(\d+)\s*[:.]\s*(.*)$/;

/**
 * Reads a `Step N: ...` list. Strict: every non-blank line must be a step line, numbers must run
 * 1, 2, 3, ... without gaps, and no step may be empty. Never throws.
 */
export function parsePlanSteps(text: string, options: { maxSteps?: number } = {}): PlanTextResult {
  const maxSteps = options.maxSteps ?? 20;
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  if (lines.length === 0) return { ok: false, code: 'no_steps', message: 'the plan has no steps' };
  const steps: string[] = [];
  for (const [index, line] of lines.entries()) {
    const match = stepLine.exec(line);
    if (match === null) {
      return {
        ok: false,
        code: 'bad_step_line',
        message: `plan line ${index + 1} is not of the form "Step N: ...": ${clip(line)}`,
      };
    }
    const number = Number(match[1]);
    if (number !== steps.length + 1) {
      return {
        ok: false,
        code: 'step_numbering',
        message: `plan steps must be numbered 1, 2, 3, ...; expected Step ${steps.length + 1}, found Step ${number}`,
      };
    }
    const body = (match[2] ?? '').trim();
    if (body.length === 0) return { ok: false, code: 'empty_step', message: `Step ${number} is empty` };
    steps.push(body);
  }
  if (steps.length > maxSteps) {
    return {
      ok: false,
      code: 'too_many_steps',
      message: `the plan has ${steps.length} steps; at most ${maxSteps} are allowed`,
    };
  }
  return { ok: true, steps };
}

/** Shortens `text` for an error message. */
export function clip(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= max ? JSON.stringify(flat) : `${JSON.stringify(flat.slice(0, max))}...`;
}
