// The executable entry of `pilotrl-tfjs` (native backend setup and doctor).
import { runTfjsCli } from './native/cli';

process.exitCode = await runTfjsCli(process.argv.slice(2));
