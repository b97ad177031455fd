// The pilotrl app as a library: its curriculum config (schema, parsing, files) and its presets.
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
