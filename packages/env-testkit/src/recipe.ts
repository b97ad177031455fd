// Recipe: take the two ingredients the task names from the pantry, put them in the bowl and mix.
// Mixing anything other than exactly those two ruins the dish and ends the episode as a loss.
import type { CopyableEnv } from '@pilotrl/core';
import { createToyEnv, createToyTaskSource, listInWords, type ToyEnvConfig, type ToyGame } from './toy-game';

export const RECIPE_ENV_ID = 'testkit/recipe';

const SEEN_INGREDIENTS = ['apple', 'banana', 'carrot', 'tomato', 'cucumber', 'lettuce', 'onion', 'potato'];
const UNSEEN_INGREDIENTS = ['mango', 'pepper', 'spinach', 'lemon'];
const DISHES = ['salad', 'soup', 'smoothie', 'stew'];

interface RecipeState {
  dish: string;
  recipe: [string, string];
  pantry: string[];
  held: string[];
  bowl: string[];
}

export const recipeGame: ToyGame<RecipeState> = {
  envId: RECIPE_ENV_ID,
  taskType: 'recipe',
  generate(rng, unseen) {
    // Unseen tasks always need at least one ingredient that train tasks never contain.
    const first = rng.pick(unseen ? UNSEEN_INGREDIENTS : SEEN_INGREDIENTS);
    const pool = unseen ? [...SEEN_INGREDIENTS, ...UNSEEN_INGREDIENTS] : SEEN_INGREDIENTS;
    const others = rng.shuffle(pool.filter((item) => item !== first));
    const recipe = rng.shuffle([first, others[0]!]) as [string, string];
    const distractors = others.slice(1, 1 + rng.intBetween(2, 4));
    const pantry = [...recipe, ...distractors].sort();
    return { dish: rng.pick(DISHES), recipe, pantry, held: [], bowl: [] };
  },
  task: (state) =>
    `Your task is to: make a ${state.dish} by mixing the ${state.recipe[0]} and the ${state.recipe[1]} in the bowl.`,
  describe: (state) =>
    `You are in a kitchen. The pantry holds ${listInWords(state.pantry)}. The bowl is empty.`,
  admissible(state) {
    const actions = ['look'];
    for (const item of state.pantry) actions.push(`take ${item}`);
    for (const item of state.held) actions.push(`put ${item} in bowl`);
    if (state.bowl.length > 0) actions.push('mix bowl');
    return actions;
  },
  apply(state, action) {
    if (action === 'look') {
      const pantry = state.pantry.length > 0 ? listInWords(state.pantry) : 'nothing';
      const bowl = state.bowl.length > 0 ? listInWords(state.bowl) : 'nothing';
      const held = state.held.length > 0 ? listInWords(state.held) : 'nothing';
      return { observation: `The pantry holds ${pantry}. The bowl holds ${bowl}. You hold ${held}.` };
    }
    if (action === 'mix bowl') {
      const correct = state.bowl.length === 2 && state.recipe.every((item) => state.bowl.includes(item));
      return correct
        ? { observation: `You mix the ${listInWords(state.bowl)} into a fine ${state.dish}.`, end: 'won' }
        : {
            observation: `You mix the ${listInWords(state.bowl)}. That is no ${state.dish}; it is ruined.`,
            end: 'lost',
          };
    }
    const take = /^take (\w+)$/.exec(action);
    if (take) {
      state.pantry = state.pantry.filter((item) => item !== take[1]);
      state.held.push(take[1]!);
      return { observation: `You take the ${take[1]} from the pantry.` };
    }
    const item = /^put (\w+) in bowl$/.exec(action)![1]!;
    state.held = state.held.filter((held) => held !== item);
    state.bowl.push(item);
    return { observation: `You put the ${item} in the bowl.` };
  },
  oracle(state) {
    const [a, b] = state.recipe;
    return {
      actions: [`take ${a}`, `take ${b}`, `put ${a} in bowl`, `put ${b} in bowl`, 'mix bowl'],
      plan: [`Take the ${a} and the ${b} from the pantry.`, 'Put both in the bowl.', 'Mix the bowl.'],
    };
  },
};

/** A two-ingredient recipe env; `config.maxSteps` (default 30) truncates the episode. */
export const createRecipeEnv = (config?: ToyEnvConfig): CopyableEnv => createToyEnv(recipeGame, config);
export const recipeTasks = createToyTaskSource(recipeGame);
