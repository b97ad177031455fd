// Maps the action text a model wrote onto one of the env's admissible commands. A matcher is a
// chain of rules tried in order; swap or extend the chain without touching parsing or rollouts.

export interface ActionMatch {
  /** The command to send to the env. */
  command: string;
  /** Which rule produced it, or `unmatched` when the text is sent as written. */
  rule: string;
}

/** One rule: the admissible command `action` means, or null when the rule does not apply. */
export interface ActionMatchRule {
  readonly name: string;
  match(action: string, admissible: readonly string[]): string | null;
}

export interface ActionMatcher {
  /** Never throws; with no rule matching, the text itself is returned under rule `unmatched`. */
  match(action: string, admissible: readonly string[]): ActionMatch;
}

/** The text is one of the admissible commands, character for character. */
export const exactRule: ActionMatchRule = {
  name: 'exact',
  match: (action, admissible) => (admissible.includes(action) ? action : null),
};

/**
 * Lower-cases, collapses runs of whitespace, drops wrapping quotes or backticks and a final
 * period, then compares with the admissible commands normalised the same way. Only a unique
 * hit counts, so a normalisation never picks between two different commands.
 */
export function normalizeAction(text: string): string {
  let result = text.trim().replace(/\s+/g, ' ').toLowerCase();
  for (let changed = true; changed; ) {
    const before = result;
    result = result
      .replace(/^["'`](.*)["'`]$/, '$1')
      .replace(/\.$/, '')
      .trim();
    changed = result !== before;
  }
  return result;
}

export const normalizedRule: ActionMatchRule = {
  name: 'normalized',
  match(action, admissible) {
    const wanted = normalizeAction(action);
    const hits = admissible.filter((command) => normalizeAction(command) === wanted);
    return hits.length === 1 ? hits[0]! : null;
  },
};

/**
 * The text names a command's first words and exactly one admissible command starts with them
 * (e.g. `go to fridge` when only `go to fridge 1` exists). Off by default: it guesses.
 */
export const uniquePrefixRule: ActionMatchRule = {
  name: 'unique_prefix',
  match(action, admissible) {
    const wanted = normalizeAction(action);
    if (wanted.length === 0) return null;
    const hits = admissible.filter((command) => {
      const normalized = normalizeAction(command);
      return normalized === wanted || normalized.startsWith(`${wanted} `);
    });
    return hits.length === 1 ? hits[0]! : null;
  },
};

/** Tries `rules` in order; the default chain is exact, then normalised. */
export function createActionMatcher(
  rules: readonly ActionMatchRule[] = [exactRule, normalizedRule],
): ActionMatcher {
  return {
    match(action, admissible) {
      for (const rule of rules) {
        const command = rule.match(action, admissible);
        if (command !== null) return { command, rule: rule.name };
      }
      return { command: action, rule: 'unmatched' };
    },
  };
}
