// AgentGym's BabyAI client prompts, verbatim. Source: WooooDyy/AgentGym @
// 48d77a00ae644feff1d2c462d0c0bca7bb731d94 (2024; identical at 3ef9235d23e68e7c2920c5422ad957dc8ced5c6c),
// agentenv/agentenv/envs/babyai.py, `BabyAIEnvClient.conversation_start`. License: MIT, Copyright (c)
// 2023 FudanNLP-Agent (see THIRD_PARTY_NOTICES.md in this package). Note that it offers
// `pick up <obj> <id>`, while the env only knows `pickup <obj> <id>`.

/** Turn 0 of an AgentGym BabyAI conversation (turn 1 is `AGENTGYM_ACKNOWLEDGEMENT`). */
export const BABYAI_SYSTEM_PROMPT =
  'You are an exploration master that wants to finish every goal you are given. Every round I will give you an observation, and you have to respond an action and your thought based on the observation to finish the given task. You are placed in a room and you need to accomplish the given goal with actions.\n\nYou can use the following actions: \n\n- turn right \n\n- turn left \n\n- move forward \n\n- go to <obj> <id> \n\n- pick up <obj> <id> \n\n- go through <door> <id>: <door> must be an open door. \n\n- toggle and go through <door> <id>: <door> can be a closed door or a locked door. If you want to open a locked door, you need to carry a key that is of the same color as the locked door. \n\n- toggle: there is a closed or locked door right in front of you and you can toggle it.\nYour response should use the following format:\nThought:\n<Your Thought>\n\nAction:\n<Your Action>';

/** The model's scripted answer to the system prompt, turn 1 of every AgentGym conversation. */
export const AGENTGYM_ACKNOWLEDGEMENT =
  "OK. I'll follow your instructions and try my best to solve the task.";
