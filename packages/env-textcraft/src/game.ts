// One TextCraft episode as AgentGym's server plays it (`environment.py`): `get N item`,
// `craft K item using n1 a, n2 b` and `inventory`, matched as Python's `re.match` does (at the
// start only, case-sensitive, `.` stopping at a newline), with the server's answers word for word,
// quirks included (a typed output count is ignored; `inventoryx` shows the inventory).
import { pythonRepr, pythonStrip } from './python-text';
import { type ItemTag, itemIdToText, nameOf, type Recipe, type RecipeWorld, textToItemId } from './world';

/** The server's text for an episode's first observation. */
export const textcraftOpening = (commands: string, goalName: string): string =>
  `Crafting commands:\n${commands}\n\nGoal: craft ${goalName}.`;

export interface GameStep {
  /** The server's observation, exactly. */
  readonly observation: string;
  /** 1 when this step crafted (or got) the goal. */
  readonly reward: 0 | 1;
  /** AgentGym's `terminated`: this step crafted (or got) the goal, which ends the episode. */
  readonly done: boolean;
  /** The command did what it says (`Got`, `Crafted`, `Inventory`) and was matched in full. */
  readonly executed: boolean;
}

interface Given {
  readonly itemTag: ItemTag;
  readonly count: bigint;
}

const CRAFT = /^craft ([^\n]*) using ([^\n]*)/;
const GET = /^get ([0-9]+) ([^\n]*)/;
const COUNTED = /^([0-9]+) ([^\n]*)/;

class ActionFailed extends Error {}

const reprOrNone = (text: string | undefined) => (text === undefined ? 'None' : pythonRepr(text));

/**
 * An episode's engine. `recipesFor(itemId)` is the recipe list `craft` scans for an output: the
 * world's own, or under the 2024 traversal the list that traversal left behind (see `traversal.ts`).
 */
export class TextcraftGame {
  /** Item id → count, in the order items were first added (re-added items go to the end). */
  readonly inventory = new Map<string, bigint>();

  constructor(
    readonly world: RecipeWorld,
    readonly goal: string,
    private readonly recipesFor: (itemId: string) => readonly Recipe[] | undefined = (itemId) =>
      world.itemRecipes.get(itemId),
  ) {}

  /** What `action` would answer, leaving the inventory as it is. */
  preview(action: string): GameStep {
    const saved = new Map(this.inventory);
    const step = this.step(action);
    this.inventory.clear();
    for (const [id, count] of saved) this.inventory.set(id, count);
    return step;
  }

  step(action: string): GameStep {
    try {
      return this.play(action);
    } catch (error) {
      if (error instanceof ActionFailed)
        return { observation: error.message, reward: 0, done: false, executed: false };
      throw error;
    }
  }

  private play(action: string): GameStep {
    const whole = !action.includes('\n');
    const craft = CRAFT.exec(action);
    if (craft !== null) return this.craft(craft[1]!, craft[2]!, whole);
    const get = GET.exec(action);
    if (get !== null) return this.get(BigInt(get[1]!), get[2]!, whole);
    if (action.startsWith('inventory')) {
      let observation = 'Inventory: ';
      if (this.inventory.size === 0) observation += 'You are not carrying anything.';
      for (const [itemId, count] of this.inventory) observation += `[${itemIdToText(itemId)}] (${count}) `;
      return { observation, reward: 0, done: false, executed: action === 'inventory' };
    }
    throw new ActionFailed(`Could not execute ${action}`);
  }

  private get(amount: bigint, text: string, whole: boolean): GameStep {
    const item = this.itemOf(text);
    if (
      this.world.isCraftable(nameOf(item)) ||
      item.itemId === undefined ||
      this.world.tags.has(item.itemId) ||
      !this.world.itemIds.has(item.itemId)
    ) {
      throw new ActionFailed(`Could not find ${text}`);
    }
    this.add(item.itemId, amount);
    return {
      observation: `Got ${amount} ${text}`,
      reward: item.itemId === this.goal ? 1 : 0,
      done: item.itemId === this.goal,
      executed: whole,
    };
  }

  private craft(outputText: string, inputsText: string, whole: boolean): GameStep {
    const counted = COUNTED.exec(outputText);
    const output: Given =
      counted === null
        ? { itemTag: this.itemOf(outputText), count: 1n }
        : { itemTag: this.itemOf(counted[2]!), count: BigInt(counted[1]!) };
    const inputs = inputsText.split(',').map((segment): Given => {
      const match = COUNTED.exec(pythonStrip(segment));
      if (match === null) throw new ActionFailed(`Wrong item format: ${pythonStrip(segment)}`);
      return { itemTag: this.itemOf(match[2]!), count: BigInt(match[1]!) };
    });
    const outputId = output.itemTag.itemId;
    if (!inputs.every((input) => this.holds(input))) {
      throw new ActionFailed(`Could not find enough items to craft ${outputId ?? 'None'}`);
    }
    const made = outputId === undefined ? undefined : this.match(outputId, inputs);
    if (made === undefined) {
      const { tag, itemId } = output.itemTag;
      throw new ActionFailed(
        `Could not find a valid recipe for ItemTagWithCount(item_tag=ItemTag(tag=${reprOrNone(tag)}, item_id=${reprOrNone(itemId)}), count=${output.count})`,
      );
    }
    for (const input of inputs) {
      const key = input.itemTag.itemId!;
      const left = (this.inventory.get(key) ?? 0n) - input.count;
      if (left === 0n) this.inventory.delete(key);
      else this.inventory.set(key, left);
    }
    const madeId = made.itemTag.itemId!;
    this.add(madeId, BigInt(made.count));
    return {
      observation: `Crafted ${made.count} ${madeId}`,
      reward: madeId === this.goal ? 1 : 0,
      done: madeId === this.goal,
      executed: whole,
    };
  }

  /** The first recipe of the output whose ingredients the inputs match one to one, count for count. */
  private match(outputId: string, inputs: readonly Given[]): Recipe['output'] | undefined {
    for (const recipe of this.recipesFor(outputId) ?? []) {
      const left = [...inputs];
      const matches = recipe.inputs.every((ingredient) => {
        const index = left.findIndex((given) => this.satisfies(given, ingredient.itemTag));
        if (index === -1 || left[index]!.count !== BigInt(ingredient.count)) return false;
        left.splice(index, 1);
        return true;
      });
      if (matches && left.length === 0) return recipe.output;
    }
    return undefined;
  }

  private satisfies(given: Given, ingredient: ItemTag): boolean {
    if (ingredient.itemId !== undefined) return given.itemTag.itemId === ingredient.itemId;
    return (
      given.itemTag.tag === ingredient.tag ||
      (given.itemTag.itemId !== undefined &&
        this.world.groupTagOf.get(given.itemTag.itemId) === ingredient.tag)
    );
  }

  private holds(input: Given): boolean {
    const key = input.itemTag.itemId;
    const held = key === undefined ? undefined : this.inventory.get(key);
    return held !== undefined && held >= input.count;
  }

  private add(itemId: string, amount: bigint): void {
    this.inventory.set(itemId, (this.inventory.get(itemId) ?? 0n) + amount);
  }

  /** What the player typed → a tag reference when the id is a tag, else an item id. */
  private itemOf(text: string): ItemTag {
    const id = textToItemId(text);
    return this.world.tags.has(id) ? { tag: id, itemId: undefined } : { tag: undefined, itemId: id };
  }
}
