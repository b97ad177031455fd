// Settings every AgentGym dialect shares.

/**
 * The step limit asked of envs behind an AgentGym dialect. The original servers have none: the
 * trainer stops a trajectory after its own `max_rounds`, so our envs' default limits (e.g. 20 for
 * BabyAI) must not end episodes early there. Idle reaping still bounds a session's lifetime.
 */
export const AGENTGYM_STEP_LIMIT = 100_000;
