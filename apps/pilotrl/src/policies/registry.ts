// The policy backends a curriculum can name (`policy.kind`): the built-in `tfjs`, `hf` and `tinker`,
// and those of loaded plug-ins (`policyBackends` of a plug-in, registered by `registerPlugin`).
import { createRegistry, type PolicyBackendDescriptor, type PolicyOptions } from '@pilotrl/core';
import { hfBackend } from './hf-backend';
import { tfjsBackend } from './tfjs-backend';
import { tinkerBackend } from './tinker-backend';

export const policyBackends = createRegistry<PolicyBackendDescriptor>('policy backend', {
  unknownHint: 'One published on its own: name its package under plugins: in the config',
});

/** Who registered the built-in backends, for errors about a plug-in offering one of their ids. */
export const BUILTIN_POLICY_BACKENDS = 'pilotrl';

for (const backend of [tfjsBackend, hfBackend, tinkerBackend]) policyBackends.register(backend.id, backend);

/** The backend of a parsed `policy` section. */
export const policyBackendOf = (policy: PolicyOptions): PolicyBackendDescriptor =>
  policyBackends.get(policy.kind);
