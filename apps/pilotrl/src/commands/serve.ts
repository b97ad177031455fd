// `pilotrl serve`: a trained checkpoint behind the OpenAI-compatible chat-completions API.
import { createChatCompletionsServer } from '@pilotrl/llm';
import { type BackendChoice, describeBackend, TfjsPolicy } from '@pilotrl/policy-tfjs';
import { backendOption } from '../runtime';
import { policyDir } from './eval';
import type { CliIo } from './io';

export interface ServeOptions {
  checkpoint: string;
  port: number;
  host: string;
  modelName: string;
  apiKeyEnv?: string;
  backend?: 'auto' | BackendChoice;
}

export async function serve(
  options: ServeOptions,
  io: CliIo,
): Promise<{ url: string; close: () => Promise<void> }> {
  const policy = await TfjsPolicy.load(
    policyDir(options.checkpoint),
    backendOption(options.backend ?? 'auto'),
  );
  io.stderr.write(`pilotrl: backend ${describeBackend(policy.backend)}\n`);
  const server = createChatCompletionsServer({
    policy: policy.sampler(),
    modelName: options.modelName,
    ...(options.apiKeyEnv === undefined ? {} : { apiKeyEnv: options.apiKeyEnv }),
  });
  let url: string;
  try {
    url = await server.listen(options.port, options.host);
  } catch (error) {
    policy.dispose();
    throw error;
  }
  io.stdout.write(`pilotrl: serving ${options.checkpoint} as model "${options.modelName}" at ${url}\n`);
  return { url, close: () => server.close() };
}
