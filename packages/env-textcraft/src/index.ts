// @pilotrl/env-textcraft: TextCraft as AgentGym serves it, natively in TypeScript.

export { type ClientVersion, TEXTCRAFT_MULTIPLE_ACTIONS_ERROR, textcraftClientAction } from './client';
export {
  AGENTGYM_ACKNOWLEDGEMENT,
  TEXTCRAFT_SYSTEM_PROMPT_2024,
  TEXTCRAFT_SYSTEM_PROMPT_2025,
} from './data/client-prompts';
export {
  createTextcraftEnv,
  type TextcraftConfig,
  type TextcraftEnv,
  type TextcraftResetOptions,
  textcraftConfigSchema,
  textcraftResetOptionsSchema,
  textcraftTask,
} from './env';
export { type GameStep, TextcraftGame, textcraftOpening } from './game';
export { BUILTIN_LAYERS, builtinRecipes, generatedTree } from './generate-world';
export { craftingListing } from './listing';
export {
  type FileOrder,
  loadRecipeWorld,
  orderRecipeFiles,
  parseRecipeFile,
  readRecipeDir,
} from './load-recipes';
export { solve } from './oracle';
export { textcraftPlanOf, textcraftPlanSteps } from './plan-steps';
export { plugin } from './plugin';
export { type CraftingRecipe, craftingRecipeSchema, type NamedRecipe } from './recipe-file';
export {
  builtinRecipeWorld,
  type EpisodeStart,
  GENERATED_SPLITS,
  type ListedTask,
  listedTaskSchema,
  resolveSetup,
  SPLITS,
  TEXTCRAFT_ENV_ID,
  type TextcraftSetup,
  type WorldOptions,
  worldOptionsSchema,
} from './setup';
export { createTextcraftTasks, type TextcraftSplit, type TextcraftTaskSource, textcraftTasks } from './tasks';
export { lists2024 } from './traversal';
export { type ItemTag, itemIdToText, type Recipe, RecipeWorld, recipeText, textToItemId } from './world';
