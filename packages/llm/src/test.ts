// Test helpers for users' own tests: a deterministic scripted policy.
export { createScriptedPolicy, type ScriptedPolicy, type ScriptedPolicyOptions } from './scripted-policy';
