// Plans written through an env's plan-step vocabulary: the steps go into a trie over their words
// with single-child chains merged, and a plan is written one edge at a time as a constrained choice
// among a node's edges ("take " → "apple from " → "countertop 1\n"). Every step so written is in the
// vocabulary, and each choice is a small one that any policy with `choices` can score.
import { InvalidArgumentError, type Plan } from '@pilotrl/core';
import { formatPlan } from './plan-text';

/** The choice that ends a plan, offered where a step could start. */
export const PLAN_END = '(end of plan)';

export interface StepTrie {
  /** Edge label → child; a label ending in a newline completes a step. */
  readonly edges: ReadonlyMap<string, StepTrie>;
}

interface MutableTrie {
  edges: Map<string, MutableTrie>;
}

/** The trie of `steps` (duplicates and blank steps ignored); words keep their trailing space. */
export function stepTrie(steps: readonly string[]): StepTrie {
  const root: MutableTrie = { edges: new Map() };
  for (const step of new Set(steps.map((s) => s.replace(/\s+/g, ' ').trim()))) {
    if (step === '' || step === PLAN_END) continue;
    const words = step.split(' ');
    let node = root;
    words.forEach((word, index) => {
      const label = index === words.length - 1 ? `${word}\n` : `${word} `;
      let child = node.edges.get(label);
      if (child === undefined) {
        child = { edges: new Map() };
        node.edges.set(label, child);
      }
      node = child;
    });
  }
  const compress = (node: MutableTrie): MutableTrie => {
    const edges = new Map<string, MutableTrie>();
    for (let [label, child] of node.edges) {
      while (!label.endsWith('\n') && child.edges.size === 1) {
        const [next, grandchild] = [...child.edges][0]!;
        label += next;
        child = grandchild;
      }
      edges.set(label, compress(child));
    }
    return { edges };
  };
  return compress(root);
}

/** A plan being written: the steps so far, the node of the step in progress and its text. */
export class StepPlanDraft {
  readonly steps: string[];
  private node: StepTrie;
  private partial = '';
  private ended = false;

  constructor(
    private readonly root: StepTrie,
    /** Steps already carried out; they open the plan and cannot change. */
    readonly fixed: Plan,
    private readonly maxSteps: number,
  ) {
    this.steps = [...fixed];
    this.node = root;
  }

  /** Whether the plan is complete: ended by choice, full, or with nothing left to choose. */
  get done(): boolean {
    return this.ended || this.choices().length === 0;
  }

  /** What may come next: the current node's edges, and the end where a new step could start. */
  choices(): string[] {
    if (this.ended) return [];
    const atStepStart = this.partial === '';
    if (atStepStart && this.steps.length >= this.maxSteps) return [];
    const choices = [...this.node.edges.keys()];
    // A plan needs at least one step of its own beyond the fixed ones.
    if (atStepStart && this.steps.length > this.fixed.length) choices.push(PLAN_END);
    return choices;
  }

  /** Takes one of `choices()`. */
  choose(choice: string): void {
    if (!this.choices().includes(choice)) {
      throw new InvalidArgumentError(`"${choice}" is not a choice of this plan draft`);
    }
    if (choice === PLAN_END) {
      this.ended = true;
      return;
    }
    const child = this.node.edges.get(choice)!;
    this.partial += choice;
    if (choice.endsWith('\n')) {
      this.steps.push(this.partial.trim());
      this.partial = '';
      this.node = this.root;
    } else {
      this.node = child;
    }
  }

  /** The plan as written so far, ending with the open step line: what the next choice continues. */
  text(): string {
    const written = this.steps.length === 0 ? '' : `${formatPlan(this.steps)}\n`;
    return `${written}Step ${this.steps.length + 1}: ${this.partial}`;
  }
}

/** Whether `choices` are a plan draft's edges (words ending in a space or newline, or the end) rather than commands. */
export function isPlanStepChoice(choices: readonly string[]): boolean {
  return choices.length > 0 && choices.every((choice) => choice === PLAN_END || /[ \n]$/.test(choice));
}

/** The number of the step a draft's `text()` leaves open, read from the last `Step N:` in `text`. */
export function openStepNumber(text: string): number | undefined {
  const numbers = [...text.matchAll(/Step (\d+):/g)];
  const last = numbers.at(-1);
  return last === undefined ? undefined : Number(last[1]);
}
