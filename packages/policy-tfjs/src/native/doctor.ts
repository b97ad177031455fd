// What `pilotrl-tfjs doctor` reports: for every backend in the automatic order, whether it loads
// here and, when it does not, why and how to fix it. Native packages are loaded in a child
// process (a broken one cannot take the doctor down); wasm and cpu start in this process.
import { BACKEND_ORDER, type BackendChoice, initBackend } from '../backend';
import { NATIVE_VARIANTS, nativeInstallState, nativePackageDir } from './native-install';
import { probeNativePackage } from './native-probe';

export interface BackendDiagnosis {
  choice: BackendChoice;
  loads: boolean;
  /** What loaded (versions, devices), or why it did not and the fix. */
  detail: string;
}

export interface DoctorReport {
  backends: BackendDiagnosis[];
  /** What `auto` picks here: the first backend that loads. */
  automatic: BackendChoice | undefined;
}

export async function diagnoseBackends(): Promise<DoctorReport> {
  const backends: BackendDiagnosis[] = [];
  for (const choice of BACKEND_ORDER) backends.push(await diagnose(choice));
  return { backends, automatic: backends.find((b) => b.loads)?.choice };
}

async function diagnose(choice: BackendChoice): Promise<BackendDiagnosis> {
  if (choice === 'tensorflow-gpu' || choice === 'tensorflow') {
    const variant = choice === 'tensorflow-gpu' ? 'gpu' : 'cpu';
    const state = nativeInstallState(variant, nativePackageDir(variant));
    if (state.state !== 'ready') return { choice, loads: false, detail: state.reason };
    const probe = probeNativePackage(state.packageDir);
    if (!probe.ok)
      return { choice, loads: false, detail: `${NATIVE_VARIANTS[variant].packageName}: ${probe.reason}` };
    if (choice === 'tensorflow-gpu' && !probe.gpu) {
      return { choice, loads: false, detail: `TensorFlow ${probe.tensorflowVersion} loads but sees no GPU` };
    }
    const origin = state.record ? `built from ${state.record.wheel}` : 'installed by its own script';
    return {
      choice,
      loads: true,
      detail: `TensorFlow ${probe.tensorflowVersion} on ${probe.gpu ? 'GPU' : 'CPU'} (${origin}) in ${state.packageDir}`,
    };
  }
  try {
    const info = await initBackend({ backend: choice });
    const detail =
      choice === 'wasm'
        ? `XNNPACK, ${info.threads} thread${info.threads === 1 ? '' : 's'}, ${info.overrides.length} kernel overrides`
        : 'plain JavaScript';
    return { choice, loads: true, detail };
  } catch (error) {
    return { choice, loads: false, detail: error instanceof Error ? error.message : String(error) };
  }
}

export function formatDoctorReport(report: DoctorReport): string {
  const width = Math.max(...report.backends.map((b) => b.choice.length));
  const lines = report.backends.map(
    (b) => `${b.choice.padEnd(width)}  ${b.loads ? 'loads  ' : 'skipped'}  ${b.detail}`,
  );
  lines.push(`automatic choice: ${report.automatic ?? 'none'}`);
  return `${lines.join('\n')}\n`;
}
