// `pilotrl-tfjs`: sets up the native TensorFlow backend and reports which backends load.
//   pilotrl-tfjs setup [--gpu] [--force] [--if-possible]
//   pilotrl-tfjs doctor
// `--if-possible` is for install hooks: a setup that cannot run prints one line saying why and how
// to retry, and exits 0, so the install itself never fails over an optional speed-up.
import { parseArgs } from 'node:util';
import { shutdownBackend } from '../backend';
import { diagnoseBackends, formatDoctorReport } from './doctor';
import { nativeInstallState, nativePackageDir, setupCommand } from './native-install';
import { setupNativeBackend } from './native-setup';

const USAGE = `Usage: pilotrl-tfjs <command>

  setup [--gpu] [--force] [--if-possible]
        build @tensorflow/tfjs-node (--gpu: @tensorflow/tfjs-node-gpu with the CUDA 12 wheels,
        several GB) on the TensorFlow C library from PyPI's wheel; cached and idempotent
  doctor
        which backends load here, TensorFlow's version, and why each faster one was skipped
`;

export async function runTfjsCli(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'setup') {
    const { values } = parseArgs({
      args: rest,
      options: {
        gpu: { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
        'if-possible': { type: 'boolean', default: false },
      },
    });
    const variant = values.gpu ? 'gpu' : 'cpu';
    const result = await setupNativeBackend({
      variant,
      force: values.force,
      log: (line) => process.stderr.write(`${line}\n`),
    });
    if (result.ok) {
      const how = result.reused ? 'already set up' : 'set up';
      const device =
        variant === 'cpu'
          ? 'the tensorflow backend is the default'
          : result.gpu
            ? 'TensorFlow sees a GPU: the tensorflow-gpu backend is the default'
            : 'TensorFlow sees no GPU here (no NVIDIA driver for CUDA 12), so tensorflow-gpu is skipped and this build runs on CPU';
      process.stderr.write(
        `native TensorFlow ${result.tensorflowVersion} ${how} for ${variant}: ${device}\n`,
      );
      return 0;
    }
    const kept = nativeInstallState(variant, nativePackageDir(variant)).state === 'ready';
    process.stderr.write(
      `native TensorFlow backend not set up (${result.reason}); ${kept ? 'the native backend installed before is kept' : 'training uses wasm'}. Retry: ${setupCommand(variant, true)}\n`,
    );
    return values['if-possible'] ? 0 : 1;
  }
  if (command === 'doctor') {
    const report = await diagnoseBackends();
    process.stdout.write(formatDoctorReport(report));
    shutdownBackend();
    return report.automatic === undefined ? 1 : 0;
  }
  process.stderr.write(USAGE);
  return command === undefined || command === '--help' ? 0 : 1;
}
