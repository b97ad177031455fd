// BabyAI's plan-step vocabulary: sub-goals about an object named by colour and type, without
// AgentGym's numbers (those count objects in the current view, so they change as the agent moves):
// `go to the red ball`, `pick up the red ball`, `drop the red ball`, `open the blue door`, `go
// through the blue door`. A step is carried out by the command that does it, answered with a
// description rather than a refusal. The vocabulary covers every colour and type, not only what the
// opening shows: a plan written at the start must be able to name the door behind the next wall.
import type { PlanStepVocabulary } from '@pilotrl/core';

const COLOURS = ['red', 'green', 'blue', 'purple', 'yellow', 'grey'] as const;
const TYPES = ['door', 'key', 'ball', 'box'] as const;

const OPEN_DOOR_IN_FRONT = /There is a (\w+) open door \d+ right in front of you 1 steps away\./;

/** Opening whatever door the agent faces, for a game that does not say which door it went to. */
const OPEN_DOOR_AHEAD = 'open the door in front of you';

/** An AgentGym command that acts on one object, by what it does and to which colour and type. */
interface ObjectCommand {
  readonly verb: 'go to' | 'pick up' | 'open and go through' | 'go through';
  readonly colour: string;
  readonly type: string;
  /** For `go to`: the object is a closed or locked door (a `toggle` next opens it). */
  readonly shutDoor: boolean;
}

const COMMANDS: readonly [RegExp, ObjectCommand['verb']][] = [
  [/^go to (\w+) (?:(open|closed|locked) )?(door|key|ball|box) \d+$/, 'go to'],
  [/^pickup (\w+) ()(key|ball|box) \d+$/, 'pick up'],
  [/^toggle and go through (\w+) (closed|locked) (door) \d+$/, 'open and go through'],
  [/^go through (\w+) (open) (door) \d+$/, 'go through'],
];

function parseCommand(action: string): ObjectCommand | undefined {
  for (const [pattern, verb] of COMMANDS) {
    const match = pattern.exec(action);
    if (match === null) continue;
    const shutDoor = match[2] === 'closed' || match[2] === 'locked';
    return { verb, colour: match[1]!, type: match[3]!, shutDoor };
  }
  return undefined;
}

/** Whether AgentGym answered a command with a description (it did something) rather than a refusal. */
function described(observation: string): boolean {
  return (
    observation.startsWith('In front of you in this room, you can see several objects: ') ||
    observation.startsWith('You cannot see any objects within sight.')
  );
}

/** The steps a plan may name about one object. */
function stepsAbout(colour: string, type: string): string[] {
  const object = `the ${colour} ${type}`;
  return type === 'door'
    ? [`go to ${object}`, `open ${object}`, `go through ${object}`]
    : [`go to ${object}`, `pick up ${object}`, `drop ${object}`];
}

/**
 * The plan a won command sequence carries out: `go to …`, `pickup …`, opening and going through
 * doors, and `drop` (of what the last `pickup` took) become steps; turns, moves and listings do not.
 * A `toggle` opens the door the command before it went to, or, after a turn or a move, the door ahead.
 */
export function babyaiPlanOf(actions: readonly string[]): string[] {
  const plan: string[] = [];
  let carried: string | undefined;
  let facingShutDoor: string | undefined;
  for (const action of actions) {
    const command = parseCommand(action);
    if (command?.verb === 'pick up') carried = `${command.colour} ${command.type}`;
    if (command !== undefined) plan.push(`${STEP_VERB[command.verb]} the ${command.colour} ${command.type}`);
    else if (action === 'toggle')
      plan.push(facingShutDoor === undefined ? OPEN_DOOR_AHEAD : `open the ${facingShutDoor} door`);
    else if (action === 'drop' && carried !== undefined) {
      plan.push(`drop the ${carried}`);
      carried = undefined;
    }
    facingShutDoor = command?.verb === 'go to' && command.shutDoor ? command.colour : undefined;
  }
  return plan;
}

/** The plan step each kind of command carries out first. */
const STEP_VERB: Record<ObjectCommand['verb'], string> = {
  'go to': 'go to',
  'pick up': 'pick up',
  'open and go through': 'open',
  'go through': 'go through',
};

const ALL_STEPS = [
  ...COLOURS.flatMap((colour) => TYPES.flatMap((type) => stepsAbout(colour, type))),
  OPEN_DOOR_AHEAD,
];

export const babyaiPlanSteps: PlanStepVocabulary = {
  steps: () => [...ALL_STEPS],

  executes(step, action, observation) {
    if (step === OPEN_DOOR_AHEAD) return action === 'toggle' && OPEN_DOOR_IN_FRONT.test(observation);
    const target = parseStep(step);
    if (target === undefined || !described(observation)) return false;
    const { verb, colour, type } = target;
    if (verb === 'drop') return action === 'drop' && observation.includes('You are not carrying anything.');
    if (verb === 'open' && action === 'toggle') return OPEN_DOOR_IN_FRONT.exec(observation)?.[1] === colour;
    const command = parseCommand(action);
    if (command === undefined || command.colour !== colour || command.type !== type) return false;
    switch (verb) {
      case 'go to':
        return command.verb === 'go to';
      case 'pick up':
        return command.verb === 'pick up' && observation.includes(`You are carrying a ${colour} ${type}.`);
      case 'open':
        return command.verb === 'open and go through';
      default:
        return command.verb === 'open and go through' || command.verb === 'go through';
    }
  },

  planOf: babyaiPlanOf,
};

/** Verb, colour and type of a step in the vocabulary, or undefined. */
function parseStep(step: string): { verb: string; colour: string; type: string } | undefined {
  const match = /^(go to|pick up|drop|open|go through) the (\w+) (door|key|ball|box)$/.exec(step);
  return match === null ? undefined : { verb: match[1]!, colour: match[2]!, type: match[3]! };
}
