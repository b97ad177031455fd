// The README's snippets, typechecked and run (tooling/readme-test.ts) against SkyRL's real server,
// which its first example needs: started here with a tiny Qwen3, named to the snippet through
// TINKER_BASE_URL, TINKER_BASE_MODEL and TINKER_TOKENIZER_DIR.
import { afterAll, describe, it } from 'vitest';
import { testReadme } from '../../../tooling/readme-test';
import { startTinkerServer, tinkerReference } from '../../../tooling/tinker-server';

const reference = tinkerReference("@pilotrl/tinker's README against SkyRL's Tinker server");

if (reference.run) {
  if (!reference.installed) throw new Error('run packages/tinker/reference/setup.sh first');
  const server = await startTinkerServer(reference);
  afterAll(() => server.close());
  process.env.TINKER_BASE_URL = server.baseUrl;
  process.env.TINKER_BASE_MODEL = server.baseModel;
  process.env.TINKER_TOKENIZER_DIR = server.tokenizerDir;
  await testReadme(import.meta.dirname + '/..');
} else {
  describe.skip("README against SkyRL's Tinker server", () => {
    it('needs packages/tinker/reference/setup.sh', () => undefined);
  });
}
