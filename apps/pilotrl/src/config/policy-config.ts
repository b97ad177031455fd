// The `policy` section of a curriculum: a discriminated union on `kind` built from the registered
// policy backends, each branch a strict object of the keys every backend takes and the backend's own
// (a key of another backend is refused naming that backend); and, in one place, what the rest of the
// config asks of the backend, checked against what its descriptor offers.
import type { PolicyBackendDescriptor, PolicyOptions } from '@pilotrl/core';
import { printable } from '@pilotrl/core';
import { z } from 'zod';
import { policyBackends } from '../policies/registry';
import { seed, unknownKeysMessage } from './schema-parts';

/** The backend of a `policy` section that names none. */
const DEFAULT_KIND = 'tfjs';

/** The keys of `policy` every backend takes, beside `kind` and its own. */
const commonShape = {
  /** Weight initialisation seed. */
  seed: seed.default(1),
  /** A linear value head on the final hidden state, trained with the policy (`estimator: gae` needs it). */
  valueHead: z.boolean().default(false),
  /** Start from this checkpoint directory instead of a fresh model. */
  init: z.string().min(1).optional(),
};

/** A parsed `policy` section: its backend's id, the common keys, and the backend's own keys. */
export type PolicyConfig = PolicyOptions & { readonly [key: string]: unknown };

/** A `policy` section as written: `kind` (default `tfjs`), the common keys, and the backend's own. */
export type PolicyConfigInput = {
  kind?: string;
  seed?: number;
  valueHead?: boolean;
  init?: string;
  [key: string]: unknown;
};

const branches = new WeakMap<PolicyBackendDescriptor, z.ZodObject>();

/** The branch of the union for `backend`: `kind`, its own keys, then the common ones; unknown keys kept for `unknownKeys`. */
function branchOf(backend: PolicyBackendDescriptor): z.ZodObject {
  let branch = branches.get(backend);
  if (branch === undefined) {
    branch = z.object({ kind: z.literal(backend.id), ...backend.optionsSchema.shape, ...commonShape });
    branches.set(backend, branch);
  }
  return branch;
}

/**
 * The keys of `value` that `backend` does not take, as issues: a key the backend refuses gives its
 * reason, a key of other backends names them (`is a key of a Tinker policy; set policy.kind: tinker,
 * or drop it`), the others are listed with the keys allowed.
 */
function unknownKeyIssues(
  value: Record<string, unknown>,
  backend: PolicyBackendDescriptor,
): { path: string[]; message: string }[] {
  const allowed = Object.keys(branchOf(backend).shape);
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  const issues: { path: string[]; message: string }[] = [];
  const strange: string[] = [];
  for (const key of unknown) {
    const refused = backend.refusedKeys;
    if (refused !== undefined && Object.hasOwn(refused, key)) {
      issues.push({ path: [key], message: refused[key]! });
      continue;
    }
    const owners = policyBackends
      .ids()
      .map((id) => policyBackends.get(id))
      .filter((other) => other.id !== backend.id && Object.hasOwn(other.optionsSchema.shape, key));
    if (owners.length === 0) strange.push(key);
    else {
      const titles = owners.map((owner) => owner.title).join(' or ');
      const ids = owners.map((owner) => owner.id).join(' or ');
      issues.push({
        path: [key],
        message: `is a key of a ${titles} policy; set policy.kind: ${ids}, or drop it`,
      });
    }
  }
  if (strange.length > 0) issues.unshift({ path: [], message: unknownKeysMessage(strange, allowed) });
  return issues;
}

/**
 * `policy`: `{ kind, ...keys }`, read with the schema of the backend `kind` names. Unknown keys are
 * reported without stopping the checks of the rest of the config; a wrong value or kind stops them.
 */
export const policySectionSchema = z
  .custom<PolicyConfigInput>(() => true)
  .transform((value, context): PolicyConfig => {
    const kind = typeof value === 'object' && value !== null ? (value.kind ?? DEFAULT_KIND) : DEFAULT_KIND;
    if (typeof kind !== 'string' || !policyBackends.has(kind)) {
      context.addIssue({
        code: 'custom',
        path: ['kind'],
        message: `unknown policy backend "${printable(String(kind), 40)}"; known: ${policyBackends.ids().join(', ')}. One published on its own: name its package under plugins: in the config`,
      });
      return z.NEVER;
    }
    const backend = policyBackends.get(kind);
    const mapping = typeof value === 'object' && value !== null;
    if (mapping) {
      for (const issue of unknownKeyIssues(value, backend)) {
        context.addIssue({ code: 'custom', ...issue, continue: true });
      }
    }
    const result = branchOf(backend).safeParse(mapping ? { ...value, kind } : value);
    if (!result.success) {
      for (const issue of result.error.issues) {
        context.addIssue({ code: 'custom', path: issue.path, message: issue.message });
      }
      return z.NEVER;
    }
    return result.data as PolicyConfig;
  });

/** A key of the config and what is wrong with it. */
type Problem = { path: (string | number)[]; message: string };

/** What the offers checks read of a config. */
interface OffersInput {
  policy: PolicyConfig;
  stages: readonly { algorithm: string; loss: { entropyCoef: number } }[];
}

/**
 * What the config asks of its policy backend that the backend does not offer, and the problems among
 * the backend's own keys; each a one-line error naming the key.
 */
export function policyProblems(
  config: OffersInput,
  agents: readonly { agent: { actionSpace: string }; of: string }[],
): Problem[] {
  const { policy } = config;
  const backend = policyBackends.get(policy.kind);
  const { offers, engine, title } = backend;
  const problems: Problem[] = (backend.problems?.(policy) ?? []).map((problem) => ({
    path: ['policy', ...problem.path],
    message: problem.message,
  }));
  const problem = (path: (string | number)[], message: string) => problems.push({ path, message });
  if (!offers.valueHead && policy.valueHead)
    problem(['policy', 'valueHead'], `${engine} trains no value head`);
  if (!offers.choices) {
    for (const { agent, of } of agents) {
      if (agent.actionSpace === 'choice') {
        problem(
          ['agent', 'actionSpace'],
          `${of}choice actions need constrained decoding, which ${engine} has no counterpart for; use free-text`,
        );
      }
    }
  }
  config.stages.forEach((stage, index) => {
    if (!offers.choices && stage.algorithm === 'expert-iteration') {
      problem(
        ['stages', index, 'algorithm'],
        `expert iteration replays choice actions, which a ${title} policy cannot decode; use policy-gradient`,
      );
    }
    if (!offers.entropy && stage.loss.entropyCoef > 0) {
      problem(
        ['stages', index, 'loss', 'entropyCoef'],
        `${engine} returns no entropies, so it has no entropy bonus; set 0`,
      );
    }
  });
  return problems;
}

/** The context length in tokens of the policy's model. */
export const policyContextLength = (policy: PolicyConfig): number =>
  policyBackends.get(policy.kind).contextLength(policy);
