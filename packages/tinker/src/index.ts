export { type ChatRenderer, chatMlRenderer, replyDatum } from './chat-renderer';
export { type CheckpointManifest, checkpointManifestSchema, MANIFEST_FILE } from './checkpoint-manifest';
export {
  StaleSamplerError,
  type TinkerFailureReason,
  TinkerFutureError,
  TinkerRequestError,
  TokenizerMismatchError,
} from './errors';
export {
  type BuiltinLossName,
  type PpoClip,
  ppoClipSchema,
  surrogateDatums,
  type TinkerLossFn,
  tinkerLoss,
} from './losses';
export { type TinkerPolicyOptions, tinkerPolicyOptionsSchema } from './options';
export { createTinkerPolicy, TinkerPolicy } from './tinker-policy';
export { type TinkerSamplerOptions, tinkerSamplerOptionsSchema } from './tinker-sampler';
export { loadTokenizer, type TextTokenizer } from './tokenizer';
