// AgentGym's TextCraft client prompts, verbatim. Source: WooooDyy/AgentGym,
// agentenv/agentenv/envs/textcraft.py, `TextCraftEnvClient.conversation_start`: the 2024 text @
// 92479203b62d1a18964dbec256c195ca49304946 (the system turn of all AgentTraj-L TextCraft data) and
// the 2025 text @ 3ef9235d23e68e7c2920c5422ad957dc8ced5c6c. License: MIT, Copyright (c) 2023
// FudanNLP-Agent (see THIRD_PARTY_NOTICES.md in this package).

/** Turn 0 of an AgentGym TextCraft conversation as released in 2024 (turn 1 is `AGENTGYM_ACKNOWLEDGEMENT`). */
export const TEXTCRAFT_SYSTEM_PROMPT_2024 =
  'You are given few useful crafting recipes to craft items in Minecraft. Crafting commands are of the format "craft [target object] using [input ingredients]".\nEvery round I will give you an observation, you have to respond an action based on the state and instruction. You can "get" an object (ingredients) from the inventory or the environment, look-up the game inventory by "inventory", or "craft" (target) using any of the crafting commands. You can use ONLY these crafting commands provided, do not use your own crafting commands. However, if the crafting command uses a generic ingredient like "planks", you can use special types of the same ingredient e.g. "dark oak planks" in the command instead.\nYour response should use the following format:\n\nThought:\n ... \n\nAction:\n ... ';

/** Turn 0 after AgentGym's 2025 update: a stricter format and a reminder to give quantities. */
export const TEXTCRAFT_SYSTEM_PROMPT_2025 =
  'You are given few useful crafting recipes to craft items in Minecraft. Crafting commands are of the format "craft [target object] using [input ingredients]".\nEvery round I will give you an observation, you have to respond an action based on the state and instruction. You can "get" an object (ingredients) from the inventory or the environment, look-up the game inventory by "inventory", or "craft" (target) using any of the crafting commands.\nYour output must strictly follow this format:"Thought:\nyour thoughts.\n\nAction:\nyour next action"\n\nReminder: \n1. Always specify the quantity when using "get" and "craft" commands. - Example of get: get 1 lapis lazuli - Example1 of craft: craft 1 blue dye using 1 lapis lazuli - Example2 of craft: craft 1 golden carrot using 8 gold nugget, 1 carrot\n2. When using "get" command, do not specify whether the item comes from the inventory or the environment.\n3. You can use ONLY crafting commands provided, do not use your own crafting commands. However, if the crafting command uses a generic ingredient like "planks", you can use special types of the same ingredient e.g. "dark oak planks" in the command instead.\n\n';

/** The model's scripted answer to the system prompt, turn 1 of every AgentGym conversation. */
export const AGENTGYM_ACKNOWLEDGEMENT =
  "OK. I'll follow your instructions and try my best to solve the task.";
