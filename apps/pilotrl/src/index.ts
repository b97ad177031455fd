// The pilotrl app as a library: the curriculum as calls (train, resume, evaluate), its config
// (schema, parsing, files), its presets, the env registry and plug-in loading, and the checks of
// `pilotrl eval`'s test-time search options.

export type { EvalOptions, EvalRow } from './commands/eval';
export {
  type CurriculumConfig,
  type CurriculumConfigInput,
  curriculumConfigSchema,
  type EnvCurriculum,
  envCurricula,
  isMixture,
  loadConfigFile,
  parseConfig,
  type StageConfig,
} from './config/curriculum-config';
export { presetConfig, presets } from './config/presets';
export {
  checkSearchFitsConfig,
  checkSearchFitsPolicy,
  parseSearchFlags,
  type SearchChoice,
  type SearchFlags,
} from './config/search-options';
export { evaluate, type RunOutput, resume, type TrainCallOptions, type TrainResult, train } from './library';
export { loadPlugin, loadPlugins } from './plugins/load';
export { ADD_ENV_HINT, envProviders, registerPlugin } from './plugins/registry';
export type { EvalRecord } from './run/run-records';
