// Writes scenes as ALFWorld files: an `initial_state.pddl` problem in the layout of ALFWorld's
// `augment_pddl_states.py` output, and a `game.tw-pddl` game file (domain + grammar + problem).
import * as current from './data/alfred-current';
import * as legacy from './data/alfred-legacy';
import { type CompiledGame, compileGame } from './game';
import type { Scene, TaskSpec } from './generator';
import {
  canContain,
  cleanable,
  coolable,
  heatable,
  notPickupable,
  objectTypes,
  receptacleObjects,
  receptacleTypes,
  sliceable,
  toggleable,
} from './vocabulary';

export type Dialect = 'legacy' | 'current';

/** The JSON content of a `game.tw-pddl` file. */
export interface GameFileData {
  pddl_domain: string;
  grammar: string;
  pddl_problem: string;
  solvable: boolean;
  walkthrough?: string[] | null;
}

/** ALFWorld's domain and grammar texts of a dialect (legacy = json_2.1.1, current = 2.1.2/2.1.3). */
export function dialectSources(dialect: Dialect): { domain: string; grammar: string } {
  return dialect === 'legacy' ? legacy : current;
}

/** THOR id → PDDL name, as ALFWorld escapes it. */
export function pddlName(thorId: string): string {
  return thorId
    .replace(/-/g, '_minus_')
    .replace(/\|/g, '_bar_')
    .replace(/\+/g, '_plus_')
    .replace(/\./g, '_dot_')
    .replace(/,/g, '_comma_');
}

/** The PDDL goal of a task (ALFWorld's goal formulas per task type). */
export function goalPddl(task: TaskSpec): string {
  const o = `${task.object}Type`;
  const r = `${task.parent}Type`;
  const placed = (extra: string) =>
    `(exists (?r - receptacle) (exists (?o - object) (and ${extra}(objectType ?o ${o}) (receptacleType ?r ${r}) (inReceptacle ?o ?r))))`;
  switch (task.type) {
    case 'pick_and_place_simple':
      return placed('');
    case 'pick_clean_then_place_in_recep':
      return placed('(cleanable ?o) (isClean ?o) ');
    case 'pick_heat_then_place_in_recep':
      return placed('(heatable ?o) (isHot ?o) ');
    case 'pick_cool_then_place_in_recep':
      return placed('(coolable ?o) (isCool ?o) ');
    case 'pick_two_obj_and_place':
      return `(exists (?r - receptacle) (exists (?o1 - object) (exists (?o2 - object) (and (not (= ?o1 ?o2)) (objectType ?o1 ${o}) (objectType ?o2 ${o}) (receptacleType ?r ${r}) (inReceptacle ?o1 ?r) (inReceptacle ?o2 ?r)))))`;
    case 'look_at_obj_in_light':
      return `(and (exists (?ot - object) (exists (?r - receptacle) (exists (?a - agent) (exists (?l - location) (and (objectType ?ot ${task.toggle}Type) (toggleable ?ot) (isToggled ?ot) (receptacleAtLocation ?r ?l) (atLocation ?a ?l) (inReceptacle ?ot ?r)))))) (exists (?o - object) (exists (?a - agent) (and (objectType ?o ${o}) (holds ?a ?o)))))`;
  }
}

/** The scene as an `initial_state.pddl` problem (names in ALFWorld's escaped CamelCase). */
export function writeProblem(scene: Scene): string {
  const lines: string[] = [];
  const objects = [...scene.objects].sort((a, b) => (a.id < b.id ? -1 : 1));
  const receptacles = [...scene.receptacles].sort((a, b) => (a.id < b.id ? -1 : 1));
  const locations = [
    ...new Set([scene.start, ...receptacles.map((r) => r.location), ...objects.map((o) => o.location)]),
  ].sort();
  lines.push(
    `(define (problem plan_trial_gen_${scene.floorPlan}_${scene.trial})`,
    '(:domain alfred)',
    '(:objects',
    'agent1 - agent',
  );
  const otypes = [...new Set([...objectTypes, ...objects.map((o) => o.type)])];
  for (const type of otypes) lines.push(`${type}Type - otype`);
  for (const type of receptacleTypes) lines.push(`${type}Type - rtype`);
  for (const object of objects) lines.push(`${pddlName(object.id)} - object`);
  for (const receptacle of receptacles) lines.push(`${pddlName(receptacle.id)} - receptacle`);
  for (const location of locations) lines.push(`${pddlName(location)} - location`);
  lines.push(')', '(:init');
  lines.push(`(atLocation agent1 ${pddlName(scene.start)})`);
  for (const receptacle of receptacles) {
    const name = pddlName(receptacle.id);
    lines.push(`(receptacleType ${name} ${receptacle.type}Type)`);
    if (receptacle.openable) lines.push(`(openable ${name})`);
    lines.push(`(receptacleAtLocation ${name} ${pddlName(receptacle.location)})`);
  }
  for (const object of objects) {
    const name = pddlName(object.id);
    lines.push(`(objectType ${name} ${object.type}Type)`);
    const flags: [boolean, string][] = [
      [!notPickupable.has(object.type), 'pickupable'],
      [receptacleObjects.has(object.type), 'isReceptacleObject'],
      [cleanable.has(object.type), 'cleanable'],
      [heatable.has(object.type), 'heatable'],
      [coolable.has(object.type), 'coolable'],
      [toggleable.has(object.type), 'toggleable'],
      [sliceable.has(object.type), 'sliceable'],
      [object.cool, 'isCool'],
    ];
    for (const [on, pred] of flags) if (on) lines.push(`(${pred} ${name})`);
    if (object.receptacle !== undefined) lines.push(`(inReceptacle ${name} ${pddlName(object.receptacle)})`);
    lines.push(`(objectAtLocation ${name} ${pddlName(object.location)})`);
  }
  const presentObjects = new Set(objects.map((o) => o.type));
  for (const type of new Set(receptacles.map((r) => r.type))) {
    for (const objectType of canContain[type] ?? []) {
      if (presentObjects.has(objectType)) lines.push(`(canContain ${type}Type ${objectType}Type)`);
    }
  }
  lines.push(')', `(:goal ${goalPddl(scene.task)})`, ')', '');
  return lines.join('\n');
}

/** The task sentence baked into a copy of the dialect's grammar (`UNKNOWN GOAL` replaced). */
export function grammarWithTask(dialect: Dialect, sentence: string): string {
  return dialectSources(dialect).grammar.replace('UNKNOWN GOAL', sentence);
}

/** The scene as the content of a `game.tw-pddl` file in the given dialect. */
export function writeGameFile(
  scene: Scene,
  options: { dialect: Dialect; walkthrough?: string[] },
): GameFileData {
  return {
    pddl_domain: dialectSources(options.dialect).domain,
    grammar: grammarWithTask(options.dialect, scene.task.sentence),
    pddl_problem: writeProblem(scene),
    solvable: true,
    walkthrough: options.walkthrough ?? null,
  };
}

/** Compiles a generated scene directly (the same game its written game file gives). */
export function compileScene(scene: Scene, dialect: Dialect): CompiledGame {
  const file = writeGameFile(scene, { dialect });
  return compileGame({
    domain: file.pddl_domain,
    problem: file.pddl_problem,
    grammar: file.grammar,
    names: { problem: `generated scene ${scene.floorPlan}/${scene.trial}` },
  });
}
