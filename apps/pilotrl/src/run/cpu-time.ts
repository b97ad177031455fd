// Compute spent, as the CPU seconds of this process (user + system, all its threads: tfjs's native
// kernels included). CPU seconds, unlike wall time, do not grow when other programs share the
// machine, so a run's training and evaluation costs can be compared across runs and days (within
// the drift of the CPU's own speed).

/** A mark to measure CPU seconds from. */
export type CpuMark = NodeJS.CpuUsage;

export const cpuMark = (): CpuMark => process.cpuUsage();

/** CPU seconds this process used since `mark`. */
export function cpuSecondsSince(mark: CpuMark): number {
  const { user, system } = process.cpuUsage(mark);
  return (user + system) / 1e6;
}
