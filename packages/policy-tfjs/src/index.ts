export {
  BACKEND_ORDER,
  type BackendChoice,
  type BackendInfo,
  type BackendOptions,
  describeBackend,
  initBackend,
  parseBackendChoice,
  shutdownBackend,
} from './backend';
export { chatText, renderChat } from './chat-template';
export {
  CHECKPOINT_FORMAT,
  CHECKPOINT_FORMAT_VERSION,
  type CheckpointManifest,
  MAX_MANIFEST_BYTES,
} from './checkpoint';
export { exportHf, type HfExport, type HfExportOptions } from './export/export-hf';
export { type GeneratedSequence, type GenerateOptions, type SamplingSettings, sampleToken } from './generate';
export { BpeTokenizer } from './hf/bpe-tokenizer';
export type { HfChatTemplate } from './hf/hf-chat-template';
export type { HfDecoderConfig } from './hf/hf-config';
export { HfPolicy, type HfPolicyOptions } from './hf/hf-policy';
export { LORA_TARGET_MODULES, type LoraOptions } from './hf/lora';
export { type HfWeights, readHfConfigSync, readHfWeights } from './hf/model-dir';
export { type HfDecoder, type HfPretrained, loadHfPretrained } from './hf/pretrained';
export type { SupervisedBatch, SupervisedStepResult } from './hf/supervised-step';
export { type ModelConfig, type ModelConfigInput, modelConfigSchema, parameterCount } from './model';
export {
  type BackendDiagnosis,
  type DoctorReport,
  diagnoseBackends,
  formatDoctorReport,
} from './native/doctor';
export {
  type InstallState,
  NATIVE_VARIANTS,
  type NativeVariant,
  nativeInstallState,
  type SetupRecord,
} from './native/native-install';
export {
  defaultCacheDir,
  type NativeSetupOptions,
  type NativeSetupResult,
  setupNativeBackend,
} from './native/native-setup';
export type { CandidateScores } from './packed-scoring';
export { type TfjsModelInfo, TfjsPolicy, type TfjsPolicyOptions } from './policy';
export { type SftExample, sftDatum } from './sft';
export {
  END_ID,
  PAD_ID,
  type SerializedTokenizer,
  SPECIAL_TOKENS,
  type SpecialToken,
  Tokenizer,
  type TrainTokenizerOptions,
} from './tokenizer';
export { type InstalledOverrides, installWasmOverrides, type WasmOverrideOptions } from './wasm-overrides';
export { enableNodeWasmThreads } from './wasm-threads';
