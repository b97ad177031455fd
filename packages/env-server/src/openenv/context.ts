// What the OpenEnv routes of one served env share.
import type { ServerMetrics } from '../metrics';
import type { ResolvedLimits } from '../options';
import type { ServerLog } from '../public-error';
import type { ServedEnv, StepReward } from '../served-env';
import type { SessionPool } from '../sessions';

export interface OpenEnvContext {
  readonly served: ServedEnv;
  readonly pool: SessionPool;
  readonly metrics: ServerMetrics;
  readonly limits: ResolvedLimits;
  readonly reward: StepReward;
  readonly log: ServerLog;
}
