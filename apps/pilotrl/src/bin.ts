// The executable entry of `pilotrl`.
import { runCli } from './cli';

process.exitCode = await runCli(process.argv.slice(2));
