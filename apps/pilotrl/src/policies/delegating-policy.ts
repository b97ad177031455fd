// The part of a run policy every backend shares: core's TrainablePolicy calls passed through to the
// backend's own policy, which stays reachable as `inner`.
import type {
  AdamParams,
  Datum,
  ForwardBackwardOptions,
  ForwardBackwardResult,
  ForwardResult,
  LossFn,
  OptimStepResult,
  Policy,
  TrainablePolicy,
} from '@pilotrl/core';

/** Calls to TrainablePolicy pass through to the backend's own policy. */
export abstract class DelegatingPolicy<P extends TrainablePolicy> implements TrainablePolicy {
  constructor(readonly inner: P) {}
  get name(): string {
    return this.inner.name;
  }
  get version(): number {
    return this.inner.version;
  }
  forward(datums: readonly Datum[]): Promise<ForwardResult[]> {
    return this.inner.forward(datums);
  }
  forwardBackward(
    datums: readonly Datum[],
    loss: LossFn | 'cross_entropy',
    options?: ForwardBackwardOptions,
  ): Promise<ForwardBackwardResult> {
    return this.inner.forwardBackward(datums, loss, options);
  }
  optimStep(params: AdamParams): Promise<OptimStepResult> {
    return this.inner.optimStep(params);
  }
  sampler(): Policy {
    return this.inner.sampler();
  }
  encode(text: string): number[] {
    return this.inner.encode(text);
  }
  saveState(dir: string): Promise<void> {
    return this.inner.saveState(dir);
  }
  loadState(dir: string): Promise<void> {
    return this.inner.loadState(dir);
  }
}
