// ALFWorld's step checks: the postcondition of each step of its plan-step vocabulary (plan-steps.ts),
// read from the game's PDDL state, never from observation text:
//   go to <receptacle>                 the agent stands at the receptacle's location
//   take <object>                      the agent holds an object of that type
//   heat|cool|clean <object> with <a>  the agent holds an object of that type that is hot | cool | clean
//   put <object> in <receptacle>       an object of that type is in/on the receptacle
//   use <lamp>                         a lamp of that type is on
// A check passes when its fact becomes true of some object: true now, not true of that object when
// the check started. So the second "put pan in cabinet 7" of a two-pan task waits for the second
// pan. Treatments are the exception: their fact is read as it stands, because objects can start
// treated (a plate kept in the fridge is already cool, and cooling it again changes nothing), and
// the step is then done as soon as the agent holds the object.
// Two limits of the state: receptacles sharing a location are not told apart by "go to", and a
// treatment is not tied to the appliance named (the state records that the object is hot, not
// which microwave heated it; a generated room has one appliance of each kind).
import { InvalidArgumentError, type StepCheck } from '@pilotrl/core';
import type { GameEngine } from './engine';

const treatments = { heat: 'ishot', cool: 'iscool', clean: 'isclean' } as const;

/** A step of the vocabulary, read into the fact its check watches. */
type Postcondition =
  | { kind: 'at'; receptacle: string }
  | { kind: 'holds'; objectType: string }
  | { kind: 'treated'; objectType: string; pred: string }
  | { kind: 'in'; objectType: string; receptacle: string }
  | { kind: 'on'; lampType: string };

function postconditionOf(step: string): Postcondition | undefined {
  const go = /^go to (.+)$/.exec(step);
  if (go) return { kind: 'at', receptacle: go[1]! };
  const take = /^take (\S+)$/.exec(step);
  if (take) return { kind: 'holds', objectType: take[1]! };
  const treat = /^(heat|cool|clean) (\S+) with .+$/.exec(step);
  if (treat) return { kind: 'treated', objectType: treat[2]!, pred: treatments[treat[1] as 'heat'] };
  const put = /^put (\S+) in (.+)$/.exec(step);
  if (put) return { kind: 'in', objectType: put[1]!, receptacle: put[2]! };
  const use = /^use (\S+)$/.exec(step);
  if (use) return { kind: 'on', lampType: use[1]! };
  return undefined;
}

/** Why ALFWorld cannot check `step`, or undefined when it can. */
export function cannotCheckAlfworldStep(step: string): string | undefined {
  if (postconditionOf(step) !== undefined) return undefined;
  return `"${step}" is not a step of ALFWorld's plan-step vocabulary (go to <receptacle>, take <object>, heat|cool|clean <object> with <appliance>, put <object> in <receptacle>, use <lamp>)`;
}

/** Starts checking `step` against the engine's current state. */
export function checkAlfworldStep(engine: GameEngine, step: string): StepCheck {
  const postcondition = postconditionOf(step);
  if (postcondition === undefined) throw new InvalidArgumentError(cannotCheckAlfworldStep(step)!);
  const { game } = engine;
  const nameOf = (entity: number) => game.entityNames[entity]!.trim();
  const idsNamed = (name: string) => game.entityIds.filter((_, e) => nameOf(e) === name);
  const idsOfType = (type: string) =>
    game.entityIds.filter((_, e) => nameOf(e).replace(/ \d+$/, '') === type && /\d$/.test(nameOf(e)));
  const agent = game.entityIds.find((_, e) => game.entityTypes[e] === 'agent') ?? 'agent1';

  // The entities the fact is about, and whether it holds of one of them now.
  let subjects: string[];
  let holdsOf: (id: string) => boolean;
  switch (postcondition.kind) {
    case 'at': {
      const locations = idsNamed(postcondition.receptacle).flatMap((receptacle) =>
        game.entityIds.filter((location) => engine.holds('receptacleatlocation', receptacle, location)),
      );
      subjects = locations;
      holdsOf = (location) => engine.holds('atlocation', agent, location);
      break;
    }
    case 'holds':
      subjects = idsOfType(postcondition.objectType);
      holdsOf = (object) => engine.holds('holds', agent, object);
      break;
    case 'treated': {
      const { pred } = postcondition;
      const objects = idsOfType(postcondition.objectType);
      const heldAndTreated = (object: string) =>
        engine.holds('holds', agent, object) && engine.holds(pred, object);
      return { passed: () => objects.some(heldAndTreated) };
    }
    case 'in': {
      const receptacles = idsNamed(postcondition.receptacle);
      subjects = idsOfType(postcondition.objectType);
      holdsOf = (object) =>
        receptacles.some((receptacle) => engine.holds('inreceptacle', object, receptacle));
      break;
    }
    case 'on':
      subjects = idsOfType(postcondition.lampType);
      holdsOf = (lamp) => engine.holds('istoggled', lamp);
      break;
  }
  const heldAtStart = new Set(subjects.filter(holdsOf));
  return { passed: () => subjects.some((id) => !heldAtStart.has(id) && holdsOf(id)) };
}
