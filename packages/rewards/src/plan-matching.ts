// Matching of env commands to plan steps, shared by the plan-adherence reward and the reference
// judge. A step is split into clauses ("Take the apple and open the fridge" → two clauses); words
// are lower-cased, stripped of plural "s" and of function words, and a number following a word
// binds to it ("countertop 1"). An action carries out a clause when
//   1. their verbs share a class (take ~ pick/grab/get, go ~ walk/head, put ~ place/move, find ~
//      go/take/open/examine, ...), or the clause has no verb of its own or of an earlier clause of
//      its step; and
//   2. the clause's own objects all appear in the action, or the action's objects all appear in
//      the clause (counting, for a clause with a pronoun such as it/them/both, the objects of the
//      clause before it, in the same step or the step before); "apple" fits "apple 1", but
//      "apple 2" does not fit "apple 1".

const VERB_CLASSES: Record<string, readonly string[]> = {
  go: [
    'go',
    'walk',
    'head',
    'navigate',
    'travel',
    'proceed',
    'return',
    'visit',
    'approach',
    'move',
    'enter',
    'exit',
    'leave',
  ],
  take: ['take', 'pick', 'grab', 'get', 'collect', 'fetch', 'retrieve', 'obtain', 'gather'],
  put: ['put', 'place', 'move', 'drop', 'insert', 'set', 'store', 'deposit', 'leave', 'add'],
  open: ['open'],
  close: ['close', 'shut'],
  heat: ['heat', 'warm', 'microwave', 'cook'],
  cool: ['cool', 'chill', 'refrigerate', 'freeze'],
  clean: ['clean', 'wash', 'rinse'],
  use: ['use', 'turn', 'switch', 'toggle', 'activate', 'light'],
  examine: ['examine', 'inspect', 'check', 'read', 'observe', 'view', 'look'],
  look: ['look'],
  unlock: ['unlock'],
  mix: ['mix', 'stir', 'blend', 'combine'],
  slice: ['slice', 'cut', 'chop'],
  stop: ['stop', 'wait', 'finish', 'end', 'stay', 'remain'],
  inventory: ['inventory'],
};
/** Finding something is done by going, opening, looking or taking. */
const FIND_WORDS = ['find', 'locate', 'search', 'seek', 'explore'];
const FIND_CLASSES = ['go', 'take', 'open', 'examine', 'look'];

const verbClassesOf = new Map<string, Set<string>>();
for (const [verbClass, words] of Object.entries(VERB_CLASSES)) {
  for (const word of words) {
    const classes = verbClassesOf.get(word) ?? new Set<string>();
    classes.add(verbClass);
    verbClassesOf.set(word, classes);
  }
}
for (const word of FIND_WORDS) verbClassesOf.set(word, new Set(FIND_CLASSES));

const STOP_WORDS = new Set(
  (
    'a an the to from in on into onto with of at for by up there then than this that these those your my its ' +
    'some any through inside out back next first again until is are be sure make so you will should must can ' +
    'carefully now once finally after before step second third another other'
  ).split(' '),
);
const PRONOUNS = new Set(['it', 'them', 'both', 'all', 'they', 'him', 'her', 'one']);

export interface ObjectWord {
  word: string;
  number: string | undefined;
}

export interface Clause {
  /** Index of the plan step this clause belongs to. */
  step: number;
  text: string;
  /** Verb classes of the clause, or null when it names no known verb (verb check waived). */
  verbs: Set<string> | null;
  /** Objects the clause names itself. */
  ownObjects: ObjectWord[];
  /** Its own objects plus, when it uses a pronoun, those of the clause before it. */
  objects: ObjectWord[];
}

export interface ParsedAction {
  text: string;
  verbs: Set<string>;
  objects: ObjectWord[];
}

/** Whether `word` (lower case) is a verb the matcher knows. */
export function isVerbWord(word: string): boolean {
  return verbClassesOf.has(word);
}

function stem(word: string): string {
  return word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9\s]/g, ' ')
    .split(/\s+/)
    .filter((word) => word.length > 0);
}

/** Content words with numbers bound to the word before them. */
function objectWords(tokens: readonly string[]): ObjectWord[] {
  const result: ObjectWord[] = [];
  for (const token of tokens) {
    if (/^\d+$/.test(token)) {
      const last = result.at(-1);
      if (last !== undefined && last.number === undefined) last.number = token;
      continue;
    }
    if (STOP_WORDS.has(token) || PRONOUNS.has(token)) continue;
    result.push({ word: stem(token), number: undefined });
  }
  return result;
}

/** Parses an env command: its first word is its verb. */
export function parseAction(action: string): ParsedAction {
  const tokens = words(action);
  const verb = tokens[0] ?? '';
  return {
    text: action,
    verbs: verbClassesOf.get(verb) ?? new Set([verb]),
    objects: objectWords(tokens.slice(1)),
  };
}

/** Splits plan steps into clauses, in order. */
export function planClauses(plan: readonly string[]): Clause[] {
  const clauses: Clause[] = [];
  let previousStepLast: Clause | undefined;
  plan.forEach((stepText, step) => {
    const parts = stepText
      .replace(/^\s*step\s*\d+\s*[:.)-]\s*/i, '')
      .split(/,|;|\band then\b|\bthen\b|\band\b/i)
      .map((part) => part.trim())
      .filter((part) => words(part).length > 0);
    let previous: Clause | undefined;
    for (const part of parts) {
      const tokens = words(part);
      const verbIndex = tokens.findIndex((token) => verbClassesOf.has(token));
      const ownVerbs = verbIndex < 0 ? null : verbClassesOf.get(tokens[verbIndex]!)!;
      const rest = verbIndex < 0 ? tokens : tokens.filter((_, index) => index !== verbIndex);
      const ownObjects = objectWords(rest);
      const antecedent = previous ?? previousStepLast;
      const usesPronoun = rest.some((token) => PRONOUNS.has(token));
      const objects = usesPronoun && antecedent ? [...ownObjects, ...antecedent.ownObjects] : ownObjects;
      const clause: Clause = {
        step,
        text: part,
        verbs: ownVerbs ?? previous?.verbs ?? null,
        ownObjects,
        objects,
      };
      clauses.push(clause);
      previous = clause;
    }
    previousStepLast = previous ?? previousStepLast;
  });
  return clauses;
}

function sameObject(a: ObjectWord, b: ObjectWord): boolean {
  return a.word === b.word && (a.number === undefined || b.number === undefined || a.number === b.number);
}

const within = (inner: readonly ObjectWord[], outer: readonly ObjectWord[]) =>
  inner.every((object) => outer.some((candidate) => sameObject(object, candidate)));

/** A clause seen as an action, to align one plan against another. */
export function clauseAsAction(clause: Clause): ParsedAction {
  return { text: clause.text, verbs: clause.verbs ?? new Set(), objects: clause.ownObjects };
}

/** Whether `action` carries out `clause` (see the rules at the top of this module). */
export function actionMatchesClause(action: ParsedAction, clause: Clause): boolean {
  if (clause.verbs !== null && ![...action.verbs].some((verbClass) => clause.verbs!.has(verbClass)))
    return false;
  return within(clause.ownObjects, action.objects) || within(action.objects, clause.objects);
}

export interface PlanAlignment {
  clauses: Clause[];
  /** For each clause, the index (into `actions`) of the first action that carried it out, or -1. */
  coveredBy: number[];
  /** For each action, the clause it carried out, or -1 when it fits no clause at or after the current one. */
  clauseOf: number[];
  /** Per plan step: covered clauses / clauses (1 for a step without clauses). */
  stepCoverage: number[];
}

/**
 * Aligns actions to the plan in order: each action is matched to the earliest clause at or after
 * the current one that it carries out (and to the clauses right after it that it also carries
 * out), and the last of them becomes current. A clause without objects can only be reached from
 * the clause just before it. So clauses may be skipped
 * (they stay uncovered), and actions that fit no clause ahead are off-plan.
 */
export function alignActionsToPlan(
  plan: readonly string[],
  actions: readonly (string | ParsedAction)[],
): PlanAlignment {
  const clauses = planClauses(plan);
  const coveredBy = clauses.map(() => -1);
  const clauseOf: number[] = [];
  let current = 0;
  actions.forEach((given, actionIndex) => {
    const action = typeof given === 'string' ? parseAction(given) : given;
    let matched = -1;
    for (let index = current; index < clauses.length; index++) {
      const clause = clauses[index]!;
      // A clause that names no object ("find") fits any action of its verb, so it may only be
      // the current or the next clause; otherwise every walk would jump to the next "find".
      if (clause.ownObjects.length === 0 && index > current + 1) continue;
      if (actionMatchesClause(action, clause)) {
        matched = index;
        break;
      }
    }
    clauseOf.push(matched);
    if (matched >= 0) {
      // One action may carry out several clauses in a row ("find the key and take it").
      let last = matched;
      while (last + 1 < clauses.length && actionMatchesClause(action, clauses[last + 1]!)) last += 1;
      for (let index = matched; index <= last; index++)
        if (coveredBy[index] === -1) coveredBy[index] = actionIndex;
      current = last;
    }
  });
  const stepCoverage = plan.map((_, step) => {
    const own = clauses
      .map((clause, index) => ({ clause, index }))
      .filter((entry) => entry.clause.step === step);
    if (own.length === 0) return 1;
    return own.filter((entry) => coveredBy[entry.index]! >= 0).length / own.length;
  });
  return { clauses, coveredBy, clauseOf, stepCoverage };
}
