// reference/tiny_hf_models.py in the venv of reference/setup.sh (transformers, torch; no model
// hub), which the engine tests of our Hugging Face code hold it to: `make` writes tiny random
// models, `query` answers logits, generations and token ids for the requests on its stdin; and
// reference/lora_step.py, which trains them a few steps (PEFT LoRA or every weight).
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { PilotRLError } from '@pilotrl/core';
import { referenceVenv } from '../../../../tooling/reference-suite';

const referenceDir = resolve(import.meta.dirname, '../../reference');

/** The reference venv (`what` names the suite in its skip and failure lines) and runners of its scripts. */
export function tinyHfModels(what: string) {
  const reference = referenceVenv(
    'policy-tfjs-reference',
    what,
    'packages/policy-tfjs/reference/setup.sh',
    'PyPI; about 6 GB (CUDA torch from PyPI), a few minutes',
  );
  /** Runs `file` of reference/ with `args` and `input` on its stdin; resolves to its stdout. */
  const runScript = (file: string, args: readonly string[], input = ''): Promise<string> =>
    new Promise((done, fail) => {
      const script = resolve(referenceDir, file);
      const child = spawn(reference.python, [script, ...args], {
        env: { ...process.env, TOKENIZERS_PARALLELISM: 'false' },
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', fail);
      child.on('close', (code) => {
        if (code === 0) done(Buffer.concat(out).toString('utf8'));
        else {
          const tail = Buffer.concat(err).toString().slice(-2000);
          fail(new PilotRLError(`${script} ${args[0] ?? ''} exited with ${code}: ${tail}`));
        }
      });
      child.stdin.end(input);
    });
  /** Runs tiny_hf_models.py with `args` and `input` on its stdin; resolves to its stdout. */
  const run = (args: readonly string[], input = '') => runScript('tiny_hf_models.py', args, input);
  return { reference, run, runScript };
}
