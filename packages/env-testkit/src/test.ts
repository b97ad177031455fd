// Test doubles for users' own tests (the `./test` subpath): a Policy that replies from a script,
// and random commands to fuzz an env's `step` with.

export { episodeRecord, generationRecord, planRevision, turnRecord } from './episode-records';
export { refusalProblem, strangeAction, strangeStepProblems } from './fuzzing';
export {
  createScriptedPolicy,
  type Script,
  type ScriptedPolicy,
  type ScriptedPolicyOptions,
  scriptedPolicyOptionsSchema,
} from './scripted-policy';
