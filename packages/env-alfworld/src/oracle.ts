// Expert for ALFWorld games: for each way the ground goal can be met, it builds the obvious plan
// (fetch each object, clean/heat/cool it, put it where it belongs, or switch on the lamp while
// holding it), plays it on a private engine, and returns the shortest plan that wins.
import { EnvError, type OracleSolution } from '@pilotrl/core';
import { GameEngine } from './engine';
import type { CompiledGame } from './game';

interface Intent {
  readonly action: string;
  readonly want: Readonly<Record<string, string>>;
  /** Skip when this already holds (e.g. already there, already open). */
  readonly skipIf?: (engine: GameEngine) => boolean;
}

interface Stage {
  readonly text: string;
  readonly intents: readonly Intent[];
}

const transformActions: Readonly<Record<string, { action: string; appliance: string; verb: string }>> = {
  isclean: { action: 'cleanobject', appliance: 'sinkbasintype', verb: 'Clean' },
  ishot: { action: 'heatobject', appliance: 'microwavetype', verb: 'Heat' },
  iscool: { action: 'coolobject', appliance: 'fridgetype', verb: 'Cool' },
};

/** How many goal alternatives are tried at most (a look task has objects × lamp spots of them). */
const maxAlternatives = 400;

export function solveGame(game: CompiledGame): OracleSolution {
  const engine = new GameEngine(game);
  const name = (id: string) => game.entityNames[game.entityIndex.get(id)!]!.trim();
  const staticArgs = (pred: string, position: number, value: string, other: number): string[] =>
    game.initialAtoms
      .filter(
        (atom) => game.atomPred[atom] === pred && game.entityIds[game.atomArgs[atom]![position]!] === value,
      )
      .map((atom) => game.entityIds[game.atomArgs[atom]![other]!]!);
  const locationOf = (receptacle: string) => staticArgs('receptacleatlocation', 0, receptacle, 1)[0];
  const receptaclesOfType = (rtype: string) => staticArgs('receptacletype', 1, rtype, 0).sort();
  const agent = game.entityIds.find((_, e) => game.entityTypes[e] === 'agent') ?? 'agent1';

  const goTo = (receptacle: string): Intent => ({
    action: 'gotolocation',
    want: { r: receptacle },
    skipIf: (e) => {
      const location = locationOf(receptacle);
      return location !== undefined && e.holds('atlocation', agent, location);
    },
  });
  const open = (receptacle: string): Intent => ({
    action: 'openobject',
    want: { r: receptacle },
    skipIf: (e) => !e.holds('openable', receptacle) || e.holds('opened', receptacle),
  });
  const acquire = (object: string, from: string): Stage => ({
    text: `Go to the ${name(from)} and take the ${name(object)}.`,
    intents: [goTo(from), open(from), { action: 'pickupobject', want: { o: object, r: from } }],
  });

  const plansFor = (conj: { pos: readonly number[] }): Stage[] | undefined => {
    const atoms = conj.pos.map((atom) => [
      game.atomPred[atom]!,
      ...game.atomArgs[atom]!.map((e) => game.entityIds[e]!),
    ]);
    engine.reset();
    const stages: Stage[] = [];
    const objects = new Map<string, { transforms: string[]; target?: string; hold: boolean }>();
    const need = (object: string) => {
      const entry = objects.get(object) ?? { transforms: [], hold: false };
      objects.set(object, entry);
      return entry;
    };
    let lamp: { lamp: string; at: string } | undefined;
    for (const [pred, ...args] of atoms as [string, ...string[]][]) {
      if (pred === 'inreceptacle' && args[0] !== undefined) {
        const toggled = atoms.some(([p, a]) => p === 'istoggled' && a === args[0]);
        if (toggled) lamp = { lamp: args[0], at: args[1]! };
        else need(args[0]).target = args[1];
      } else if (pred === 'holds') need(args[1]!).hold = true;
      else if (pred in transformActions && args[0] !== undefined) need(args[0]).transforms.push(pred);
    }
    for (const [object, plan] of objects) {
      const done =
        (plan.target === undefined || engine.holds('inreceptacle', object, plan.target)) &&
        plan.transforms.every((t) => engine.holds(t, object)) &&
        (!plan.hold || engine.holds('holds', agent, object));
      if (done) continue;
      const from = game.entityIds.find((id) => engine.holds('inreceptacle', object, id));
      if (from === undefined && !engine.holds('holds', agent, object)) return undefined;
      if (from !== undefined) stages.push(acquire(object, from));
      for (const t of plan.transforms) {
        const { action, appliance, verb } = transformActions[t]!;
        const spot = receptaclesOfType(appliance)[0];
        if (spot === undefined) return undefined;
        stages.push({
          text: `${verb} the ${name(object)} with the ${name(spot)}.`,
          intents: [goTo(spot), { action, want: { o: object, r: spot } }],
        });
      }
      if (plan.target !== undefined) {
        stages.push({
          text: `Go to the ${name(plan.target)} and put the ${name(object)} in/on it.`,
          intents: [
            goTo(plan.target),
            open(plan.target),
            { action: 'putobject', want: { o: object, r: plan.target } },
          ],
        });
      }
    }
    if (lamp !== undefined) {
      const { lamp: lampId, at } = lamp;
      const held = [...objects.keys()].map(name).join(' and ');
      stages.push({
        text: `Go to the ${name(at)} and turn on the ${name(lampId)} while holding the ${held}.`,
        intents: [
          goTo(at),
          {
            action: 'toggleobject',
            want: { o: lampId },
            skipIf: (e) => e.holds('istoggled', lampId) && e.won(),
          },
        ],
      });
    }
    return stages;
  };

  const play = (stages: readonly Stage[]): string[] | undefined => {
    engine.reset();
    const actions: string[] = [];
    for (const stage of stages) {
      for (const intent of stage.intents) {
        if (intent.skipIf?.(engine)) continue;
        const match = engine
          .admissibleActions()
          .find(
            (a) =>
              a.action === intent.action && Object.entries(intent.want).every(([k, v]) => a.args[k] === v),
          );
        if (match === undefined) return undefined;
        engine.step(match.command);
        actions.push(match.command);
        if (engine.won()) return actions;
      }
    }
    return engine.won() ? actions : undefined;
  };

  let best: { actions: string[]; plan: string[] } | undefined;
  for (const conj of game.goal.slice(0, maxAlternatives)) {
    const stages = plansFor(conj);
    if (stages === undefined) continue;
    const actions = play(stages);
    if (
      actions !== undefined &&
      actions.length > 0 &&
      (best === undefined || actions.length < best.actions.length)
    ) {
      best = { actions, plan: stages.map((s) => s.text) };
    }
  }
  if (best === undefined) {
    throw new EnvError(
      `no oracle plan found for ${game.problemName}: the goal is not reachable by fetch-transform-place plans`,
    );
  }
  return best;
}
