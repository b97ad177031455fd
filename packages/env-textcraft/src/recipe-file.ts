// The recipe file format TextCraft reads: Minecraft Java data-pack recipes (one JSON object per
// file). Only `crafting_shaped` and `crafting_shapeless` take part; every other `type` (smelting,
// stonecutting, special recipes) is accepted and skipped, as TextCraft's loader does.
import { z } from 'zod';

const namespacedId = z
  .string()
  .min(1)
  .regex(
    /^minecraft:[a-z0-9_./-]+$/,
    'must be an id in the minecraft namespace, such as "minecraft:oak_planks" (TextCraft types items without a namespace and adds this one)',
  );

/** `{"item": id}` or `{"tag": id}`; a list of such alternatives counts as its first element. */
const ingredientSchema = z.union([z.object({ item: namespacedId }), z.object({ tag: namespacedId })]);
const ingredientOrAlternativesSchema = z.union([ingredientSchema, z.array(ingredientSchema).min(1)]);

const resultSchema = z.union([
  namespacedId,
  z.object({ item: namespacedId, count: z.number().int().positive().max(64).optional() }),
]);

const shapedSchema = z.object({
  type: z.literal('minecraft:crafting_shaped'),
  group: z.string().min(1).optional(),
  pattern: z.array(z.string().max(3)).min(1).max(3),
  // JSON objects keep digit keys in numeric order in JavaScript, not file order, which would
  // reorder the ingredients a command lists; Minecraft's own recipes use none.
  key: z.record(
    z.string().regex(/^[^\s\d]$/u, 'must be one character, not a digit or a space'),
    ingredientOrAlternativesSchema,
  ),
  result: resultSchema,
});

const shapelessSchema = z.object({
  type: z.literal('minecraft:crafting_shapeless'),
  group: z.string().min(1).optional(),
  ingredients: z.array(ingredientOrAlternativesSchema).min(1).max(9),
  result: resultSchema,
});

/** The two recipe types TextCraft crafts with, told apart by `type`. */
export const craftingRecipeSchema = z.discriminatedUnion('type', [shapedSchema, shapelessSchema]);
export type CraftingRecipe = z.infer<typeof craftingRecipeSchema>;
export type Ingredient = z.infer<typeof ingredientSchema>;
export type IngredientOrAlternatives = z.infer<typeof ingredientOrAlternativesSchema>;

/** Any recipe file: the loader reads `type` first and skips the types it does not craft with. */
export const recipeTypeSchema = z.object({ type: z.string().min(1) });

export const CRAFTING_TYPES: readonly string[] = [
  'minecraft:crafting_shaped',
  'minecraft:crafting_shapeless',
];

/** A recipe file's name (its order matters, see `loadRecipeWorld`) and its parsed content. */
export interface NamedRecipe {
  readonly name: string;
  readonly recipe: CraftingRecipe;
}
