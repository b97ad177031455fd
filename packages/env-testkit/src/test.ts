// Test doubles for users' own tests (the `./test` subpath): a Policy that replies from a script.
export {
  createScriptedPolicy,
  type Script,
  type ScriptedPolicy,
  type ScriptedPolicyOptions,
  scriptedPolicyOptionsSchema,
} from './scripted-policy';
