// OpenEnv's HTTP routes. As in openenv-core, `/reset` and `/step` are stateless: each call plays on
// a fresh env that is closed afterwards (multi-step episodes use `/ws`); a `/step` body may carry
// the reset keys (`seed`, `task_id`, `split`, `index`) of the episode its action starts from.
// Errors are FastAPI's shape, `{"detail": ...}` with a 4xx/5xx status.
import {
  describeIssues,
  InvalidArgumentError,
  NotFoundError,
  PilotRLError,
  TimeoutError,
} from '@pilotrl/core';
import { z } from 'zod';
import { publicMessage } from '../public-error';
import { SessionLimitError } from '../sessions';
import type { OpenEnvContext } from './context';
import { resetEpisode, stateOf, stepEpisode } from './episode';
import { openEnvActionSchema, openEnvResetSchema, openEnvSchemas } from './wire';

export interface HttpReply {
  status: number;
  body: unknown;
}

const stepBodySchema = openEnvResetSchema.extend({
  action: openEnvActionSchema,
  timeout_s: z.number().positive().optional(),
  request_id: z.string().max(255).optional(),
});

const detail = (status: number, message: string): HttpReply => ({ status, body: { detail: message } });

/** The reply to `method path` (a path below the env's OpenEnv root), or undefined for no such route. */
export async function openEnvHttp(
  context: OpenEnvContext,
  method: string,
  path: string,
  body: () => Promise<unknown>,
  version: string,
  client: string,
): Promise<HttpReply | undefined> {
  const { served } = context;
  const route = `${method} ${path}`;
  switch (route) {
    case 'GET /health':
      return { status: 200, body: { status: 'healthy' } };
    case 'GET /schema':
      return { status: 200, body: openEnvSchemas() };
    case 'GET /metadata':
      return {
        status: 200,
        body: {
          name: served.envId,
          description:
            served.description ??
            `${served.envId} served by @pilotrl/env-server; reset with {"seed"}, {"task_id"} or {"split", "index"}; step with {"action": "<command>"}`,
          readme_content: null,
          version,
          author: null,
          documentation_url: 'https://github.com/pilotrl/pilotrl-ts/tree/main/packages/env-server#readme',
        },
      };
    case 'GET /state':
      return { status: 200, body: stateOf(served.envId, undefined) };
    case 'POST /reset':
    case 'POST /step':
      return play(context, path === '/reset', await body(), client);
    default:
      return undefined;
  }
}

async function play(
  context: OpenEnvContext,
  resetOnly: boolean,
  json: unknown,
  client: string,
): Promise<HttpReply> {
  const { pool, served, metrics } = context;
  const parsed = (resetOnly ? openEnvResetSchema : stepBodySchema).safeParse(json ?? {});
  if (!parsed.success) {
    metrics.error('openenv_validation_error');
    const hint = resetOnly ? '' : ' (send {"action": {"action": "<command>"}})';
    return detail(422, `Invalid request${hint}: ${describeIssues(parsed.error.issues).join('; ')}`);
  }
  let session: ReturnType<typeof pool.open<undefined>> | undefined;
  try {
    session = pool.open('openenv-http', `openenv-http/${crypto.randomUUID()}`, undefined, client);
    const env = served.createEnv();
    session.env = env;
    const reply = await pool.run(session, resetOnly ? 'reset' : 'step', async () => {
      const { episode, reply: first } = await resetEpisode(served, env, parsed.data);
      if (resetOnly) return first;
      const { action } = parsed.data as z.output<typeof stepBodySchema>;
      return stepEpisode(served, env, episode, action.action, context.reward);
    });
    if (!resetOnly) metrics.step();
    return { status: 200, body: reply };
  } catch (error) {
    const message = publicMessage(error, context.log, resetOnly ? 'reset' : 'step');
    if (SessionLimitError.isInstance(error)) return detail(503, message);
    metrics.error('openenv_http_execution_error');
    if (TimeoutError.isInstance(error)) return detail(504, message);
    if (InvalidArgumentError.isInstance(error) || NotFoundError.isInstance(error))
      return detail(422, message);
    return detail(PilotRLError.isInstance(error) ? 400 : 500, message);
  } finally {
    if (session !== undefined) await pool.close(session.key, 'closed');
  }
}
