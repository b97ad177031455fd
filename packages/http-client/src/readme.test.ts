// Every ```ts block of this package's README, typechecked and run (tooling/readme-test.ts).
import { testReadme } from '../../../tooling/readme-test';

await testReadme(import.meta.dirname + '/..');
