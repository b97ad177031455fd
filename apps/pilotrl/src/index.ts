// The pilotrl app as a library: its curriculum config (schema, parsing, files), its presets, and
// the checks of `pilotrl eval`'s test-time search options.
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
} from './config';
export { presetConfig, presets } from './presets';
export {
  checkSearchFitsConfig,
  checkSearchFitsPolicy,
  parseSearchFlags,
  type SearchChoice,
  type SearchFlags,
} from './search-options';
