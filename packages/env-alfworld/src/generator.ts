// Seeded procedural ALFWorld scenes: a floor plan fixes the receptacles (types, ids, which are
// openable, where they stand), a trial seed places objects and picks one of the six tasks so that
// it is solvable by construction.
import { createRng, InvalidArgumentError, type Rng } from '@pilotrl/core';
import { unseenLayouts } from './data/unseen-layouts';
import {
  canContain,
  cleanable,
  coolable,
  floorPlanBase,
  goalTemplates,
  heatable,
  notPickupable,
  objectTypes,
  openableClasses,
  type RoomType,
  roomObjects,
  roomOfFloorPlan,
  roomReceptacles,
  sceneryPlaces,
  type TaskType,
  taskRooms,
  taskTypes,
  unseenFloorPlans,
} from './vocabulary';

export interface SceneReceptacle {
  /** THOR-style id, e.g. `Cabinet|+00.65|+00.48|+00.24` or `Sink|-00.70|+00.93|-00.65|SinkBasin`. */
  readonly id: string;
  readonly type: string;
  /** Interaction point, e.g. `loc|-1|3|1|30`; receptacles may share one. */
  readonly location: string;
  readonly openable: boolean;
}

export interface SceneObject {
  readonly id: string;
  readonly type: string;
  /** Receptacle id holding it; undefined for objects standing on the floor. */
  readonly receptacle: string | undefined;
  readonly location: string;
  /** Starts cool (an object of a cool task's type that starts in the fridge, as ALFWorld marks it). */
  readonly cool: boolean;
}

export interface TaskSpec {
  readonly type: TaskType;
  /** ALFRED type names (CamelCase): the object, the parent receptacle, and for look tasks the lamp. */
  readonly object: string;
  readonly parent: string;
  readonly toggle: string | undefined;
  /** The goal sentence without the final period, e.g. `put some spraybottle on toilet`. */
  readonly sentence: string;
}

export interface Scene {
  readonly floorPlan: number;
  readonly roomType: RoomType;
  readonly trial: number;
  readonly receptacles: readonly SceneReceptacle[];
  readonly objects: readonly SceneObject[];
  readonly start: string;
  readonly task: TaskSpec;
}

export interface GenerateOptions {
  /** AI2-THOR floor plan number (1-30 kitchen, 201-230 living room, 301-330 bedroom, 401-430 bathroom). */
  readonly floorPlan: number;
  /** Trial seed: object placement and task choice. */
  readonly trial: number;
  /** Force a task type; it must be possible in the floor plan's room. */
  readonly taskType?: TaskType;
}

const coordinate = (rng: Rng) => {
  const value = rng.int(600) / 100;
  const sign = rng.int(2) === 0 ? '+' : '-';
  return `${sign}${value.toFixed(2).padStart(5, '0')}`;
};

const locationText = (x: number, z: number, rotation: number, horizon: number) =>
  `loc|${x}|${z}|${rotation}|${horizon}`;

function randomLocation(rng: Rng) {
  return locationText(
    rng.intBetween(-20, 20),
    rng.intBetween(-20, 20),
    rng.int(4),
    rng.pick([0, 15, 30, 45, 60]),
  );
}

function receptacleId(type: string, rng: Rng) {
  const triple = `${coordinate(rng)}|${coordinate(rng)}|${coordinate(rng)}`;
  if (type === 'SinkBasin') return `Sink|${triple}|SinkBasin`;
  if (type === 'BathtubBasin') return `Bathtub|${triple}|BathtubBasin`;
  return `${type}|${triple}`;
}

/** The receptacles of a floor plan: fixed per plan; the valid_unseen plans use ALFWorld's layout files. */
export function floorPlanReceptacles(floorPlan: number): SceneReceptacle[] {
  const room = roomOfFloorPlan(floorPlan);
  const rng = createRng(`alfworld-layout/${floorPlan}`);
  const receptacles: SceneReceptacle[] = [];
  const used = new Set<string>();
  const add = (type: string, id: string, location: string, openable: boolean) => {
    if (used.has(id)) return;
    used.add(id);
    receptacles.push({ id, type, location, openable });
  };
  const real = unseenLayouts[floorPlan];
  if (real !== undefined) {
    for (const [id, pose] of Object.entries(real.receptacles)) {
      const parts = id.split('|');
      const type = parts.length > 4 ? parts[4]! : parts[0]!;
      const location = locationText(
        Math.round(pose[0] / 0.25),
        Math.round(pose[1] / 0.25),
        Math.round(pose[2] / 90),
        pose[3],
      );
      add(type, id, location, openableClasses.has(type));
    }
    const present = new Set(receptacles.map((r) => r.type));
    for (const [type] of roomReceptacles[room]) {
      if (!present.has(type) && real.objects.includes(type)) {
        const count = type === 'StoveBurner' ? 4 : 1;
        for (let i = 0; i < count; i++)
          add(type, receptacleId(type, rng), randomLocation(rng), openableClasses.has(type));
      }
    }
    return receptacles;
  }
  for (const [type, share, min, max] of roomReceptacles[room]) {
    if (rng.int(30) >= share) continue;
    const count = rng.intBetween(min, max);
    let previous: string | undefined;
    for (let i = 0; i < count; i++) {
      // Stacked drawers and cabinets are often reached from one spot.
      const shared = previous !== undefined && (type === 'Drawer' || type === 'Cabinet') && rng.int(5) === 0;
      const location = shared ? previous! : randomLocation(rng);
      const openable = type === 'Cabinet' || type === 'Drawer' ? rng.int(5) < 3 : openableClasses.has(type);
      add(type, receptacleId(type, rng), location, openable);
      previous = location;
    }
  }
  return receptacles;
}

const canHold = (receptacleType: string, objectType: string) =>
  (canContain[receptacleType] ?? []).includes(objectType) ||
  (sceneryPlaces[objectType] ?? []).includes(receptacleType);

function taskPossible(type: TaskType, room: RoomType, receptacleTypes: ReadonlySet<string>): boolean {
  if (!taskRooms[type].includes(room)) return false;
  if (type === 'pick_clean_then_place_in_recep') return receptacleTypes.has('SinkBasin');
  if (type === 'pick_heat_then_place_in_recep') return receptacleTypes.has('Microwave');
  if (type === 'pick_cool_then_place_in_recep') return receptacleTypes.has('Fridge');
  if (type === 'look_at_obj_in_light') return sceneryPlaces.DeskLamp!.some((t) => receptacleTypes.has(t));
  return true;
}

/** Task types that the floor plan's room and receptacles allow. */
export function possibleTaskTypes(floorPlan: number): TaskType[] {
  const room = roomOfFloorPlan(floorPlan);
  const types = new Set(floorPlanReceptacles(floorPlan).map((r) => r.type));
  return taskTypes.filter((type) => taskPossible(type, room, types));
}

/** Generates the scene of one trial. The same options always give the same scene. */
export function generateScene(options: GenerateOptions): Scene {
  const { floorPlan, trial } = options;
  const room = roomOfFloorPlan(floorPlan);
  if (
    !Number.isInteger(floorPlan) ||
    floorPlan < 1 ||
    floorPlan > 430 ||
    floorPlan - floorPlanBase[room] > 30
  ) {
    throw new InvalidArgumentError(
      `floorPlan ${floorPlan} is not an AI2-THOR floor plan (1-30, 201-230, 301-330, 401-430)`,
    );
  }
  const receptacles = floorPlanReceptacles(floorPlan);
  const recTypes = new Set(receptacles.map((r) => r.type));
  const possible = taskTypes.filter((type) => taskPossible(type, room, recTypes));
  const rng = createRng(`alfworld-trial/${floorPlan}/${trial}`);
  const type = options.taskType ?? rng.pick(possible);
  if (!possible.includes(type)) {
    throw new InvalidArgumentError(
      `task type ${type} is not possible in floor plan ${floorPlan} (possible: ${possible.join(', ')})`,
    );
  }

  // Object types present: the room's usual ones plus some of its occasional ones.
  const real = unseenLayouts[floorPlan];
  const pool = roomObjects[room];
  let present =
    real !== undefined
      ? real.objects.filter((t) => !recTypes.has(t) && (objectTypes as readonly string[]).includes(t))
      : [...pool.always, ...pool.sometimes.filter(() => rng.int(2) === 0)];
  const placeable = (objectType: string) => receptacles.some((r) => canHold(r.type, objectType));

  // Task target.
  const takeable = (t: string) => !notPickupable.has(t) && placeable(t);
  const requirement: Record<TaskType, (t: string) => boolean> = {
    pick_and_place_simple: () => true,
    pick_two_obj_and_place: () => true,
    look_at_obj_in_light: () => true,
    pick_clean_then_place_in_recep: (t) => cleanable.has(t),
    pick_heat_then_place_in_recep: (t) => heatable.has(t),
    pick_cool_then_place_in_recep: (t) => coolable.has(t),
  };
  const candidates = [...new Set([...present, ...pool.always])].filter(
    (t) => takeable(t) && requirement[type](t),
  );
  const parentsFor = (t: string) =>
    [...recTypes].filter(
      (r) => (canContain[r] ?? []).includes(t) && receptacles.some((x) => x.type !== r && canHold(x.type, t)),
    );
  const withParent = candidates.filter((t) => type === 'look_at_obj_in_light' || parentsFor(t).length > 0);
  if (withParent.length === 0)
    throw new InvalidArgumentError(`floor plan ${floorPlan} has no object for a ${type} task`);
  const object = rng.pick(withParent.sort());
  const toggle = type === 'look_at_obj_in_light' ? 'DeskLamp' : undefined;
  const parent = toggle ?? rng.pick(parentsFor(object).sort());
  if (!present.includes(object)) present = [...present, object];
  if (toggle !== undefined && !present.includes(toggle)) present = [...present, toggle];

  // Place instances. Targets never start where the goal wants them.
  const objects: SceneObject[] = [];
  const ids = new Set(receptacles.map((r) => r.id));
  for (const objectType of [...present].sort()) {
    let count =
      objectType === object
        ? rng.intBetween(type === 'pick_two_obj_and_place' ? 2 : 1, 4)
        : rng.intBetween(1, 3);
    if (notPickupable.has(objectType)) count = 1;
    for (let i = 0; i < count; i++) {
      let places = receptacles.filter((r) => canHold(r.type, objectType));
      if (objectType === object && toggle === undefined) places = places.filter((r) => r.type !== parent);
      if (objectType === toggle) places = receptacles.filter((r) => sceneryPlaces.DeskLamp!.includes(r.type));
      let id: string;
      do id = `${objectType}|${coordinate(rng)}|${coordinate(rng)}|${coordinate(rng)}`;
      while (ids.has(id));
      ids.add(id);
      if (places.length === 0) {
        objects.push({
          id,
          type: objectType,
          receptacle: undefined,
          location: randomLocation(rng),
          cool: false,
        });
        continue;
      }
      const place = rng.pick(places);
      const cool =
        type === 'pick_cool_then_place_in_recep' && objectType === object && place.type === 'Fridge';
      objects.push({ id, type: objectType, receptacle: place.id, location: place.location, cool });
    }
  }

  const taken = new Set(receptacles.map((r) => r.location));
  let start = randomLocation(rng);
  while (taken.has(start)) start = randomLocation(rng);
  const template = goalTemplates[type][rng.int(2)]!;
  const sentence = template
    .replace('{obj}', object.toLowerCase())
    .replace('{recep}', parent.toLowerCase())
    .replace('{toggle}', (toggle ?? '').toLowerCase());
  return {
    floorPlan,
    roomType: room,
    trial,
    receptacles,
    objects,
    start,
    task: { type, object, parent, toggle, sentence },
  };
}

/** ALFWorld's game-directory name of a scene's task, e.g. `pick_and_place_simple-SprayBottle-None-Toilet-424`. */
export function taskDirectoryName(scene: Scene): string {
  const { task } = scene;
  return `${task.type}-${task.object}-None-${task.toggle ?? task.parent}-${scene.floorPlan}`;
}

/** Floor plans of a room type other than ALFWorld's unseen ones. */
export function seenFloorPlans(): number[] {
  const plans: number[] = [];
  for (const base of Object.values(floorPlanBase)) {
    for (let i = 1; i <= 30; i++) if (!unseenFloorPlans.includes(base + i)) plans.push(base + i);
  }
  return plans;
}
