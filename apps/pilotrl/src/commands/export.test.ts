import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parameterCount, TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import { capturedIo } from '../tiny-corridor.testing';

let root: string;
let runDir: string;
let weights: number;

async function run(args: string[]) {
  const io = capturedIo();
  const code = await runCli(args, io);
  return { code, out: io.out(), err: io.err() };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pilotrl-export-'));
  // A run directory as training leaves it: checkpoints/latest naming iter-N, whose policy/ is the checkpoint.
  runDir = join(root, 'run');
  const tokenizer = Tokenizer.train(['go to the desk', 'open the drawer'], { vocabSize: 275 });
  const model = { dModel: 8, nLayers: 1, nHeads: 2, contextLength: 16 };
  weights = parameterCount({ ...model, vocabSize: tokenizer.vocabSize });
  const policy = await TfjsPolicy.create({ tokenizer, model });
  await policy.saveState(join(runDir, 'checkpoints', 'iter-000002', 'policy'));
  policy.dispose();
  await writeFile(join(runDir, 'checkpoints', 'latest'), 'iter-000002\n');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('pilotrl export', () => {
  it("exports a run directory's latest checkpoint as a Hugging Face model directory", async () => {
    const out = join(root, 'hf');
    const result = await run(['export', runDir, '--format', 'hf', out]);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toBe(
      `${out}: Hugging Face GPT2LMHeadModel (${weights} weights, policy version 0) and tokenizer from ${join(runDir, 'checkpoints', 'iter-000002', 'policy')}\n`,
    );
    expect((await readdir(out)).sort()).toEqual([
      'config.json',
      'generation_config.json',
      'model.safetensors',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
  });

  it('refuses an unknown format, a directory that is not a checkpoint and a non-empty output, in one line', async () => {
    const out = join(root, 'refused');
    const unknown = await run(['export', runDir, '--format', 'onnx', out]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toBe(
      "pilotrl export: option '--format <name>' argument 'onnx' is invalid. Allowed choices are hf.; see pilotrl export --help\n",
    );
    const notCheckpoint = join(root, 'empty');
    await mkdir(notCheckpoint);
    const missing = await run(['export', notCheckpoint, '--format', 'hf', out]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(
      new RegExp(
        `^pilotrl export: no checkpoint at ${notCheckpoint}: checkpoint.json cannot be read \\(.*\\)\\n$`,
      ),
    );
    const taken = join(root, 'taken');
    await mkdir(taken);
    await writeFile(join(taken, 'model.safetensors'), '');
    const nonEmpty = await run(['export', runDir, '--format', 'hf', taken]);
    expect(nonEmpty).toMatchObject({
      code: 1,
      err: `pilotrl export: output ${taken} is not empty (it holds model.safetensors); give a new or empty directory\n`,
    });
    expect(existsSync(out)).toBe(false);
  });
});
