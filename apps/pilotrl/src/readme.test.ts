// Every ```ts block of the app's README, typechecked and run (tooling/readme-test.ts); the README
// opens with the command line.
import { testReadme } from '../../../tooling/readme-test';

await testReadme(import.meta.dirname + '/..', { opensWith: 'sh' });
