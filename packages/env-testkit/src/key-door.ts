// Key and door: keys lie in closed containers; find the key that fits the door's lock, unlock the
// door, open it and go through. Wrong keys do not fit but do no harm; the task never ends in a loss.
import type { CopyableEnv } from '@pilotrl/core';
import { createToyEnv, createToyTaskSource, listInWords, type ToyEnvConfig, type ToyGame } from './toy-game';

export const KEY_DOOR_ENV_ID = 'testkit/key-door';

const SEEN_CONTAINERS = ['drawer', 'box', 'cabinet', 'chest', 'basket'];
const UNSEEN_CONTAINERS = ['safe', 'locker', 'crate', 'trunk'];
const KEY_COLOURS = ['red', 'blue', 'green', 'yellow', 'silver', 'golden'];

interface KeyDoorState {
  containers: string[];
  /** Key colour in each container, aligned with `containers`. */
  keys: string[];
  lock: string;
  opened: Set<string>;
  /** Where each key is: a container name or `held`. */
  keyPlace: Map<string, string>;
  door: 'locked' | 'closed' | 'open';
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

export const keyDoorGame: ToyGame<KeyDoorState> = {
  envId: KEY_DOOR_ENV_ID,
  taskType: 'key-door',
  generate(rng, unseen) {
    const count = unseen ? rng.intBetween(3, 4) : rng.intBetween(2, 3);
    const containers = rng.shuffle(unseen ? UNSEEN_CONTAINERS : SEEN_CONTAINERS).slice(0, count);
    const keys = rng.shuffle(KEY_COLOURS).slice(0, count);
    const keyPlace = new Map(keys.map((key, i) => [key, containers[i]!]));
    return { containers, keys, lock: rng.pick(keys), opened: new Set(), keyPlace, door: 'locked' };
  },
  task: (state) => `Your task is to: unlock the door with the ${state.lock} lock and go through it.`,
  describe: (state) =>
    `You are in a small room with a door that has a ${state.lock} lock. ` +
    `You see ${listInWords(state.containers.map((c) => `${article(c)} ${c}`))}, all closed.`,
  admissible(state) {
    const actions = ['look', 'inventory'];
    for (const container of state.containers) {
      if (!state.opened.has(container)) actions.push(`open ${container}`);
    }
    for (const [key, place] of state.keyPlace) {
      if (state.opened.has(place)) actions.push(`take ${key} key from ${place}`);
    }
    for (const [key, place] of state.keyPlace) {
      if (place === 'held' && state.door === 'locked') actions.push(`unlock door with ${key} key`);
    }
    actions.push(state.door === 'open' ? 'go through door' : 'open door');
    return actions;
  },
  apply(state, action) {
    const held = [...state.keyPlace].filter(([, place]) => place === 'held').map(([key]) => `${key} key`);
    if (action === 'look') {
      const seen = state.containers.map((c) => {
        if (!state.opened.has(c)) return `a closed ${c}`;
        const key = [...state.keyPlace].find(([, place]) => place === c)?.[0];
        return key === undefined ? `an empty ${c}` : `${article(c)} ${c} holding a ${key} key`;
      });
      return { observation: `The door is ${state.door}. You see ${listInWords(seen)}.` };
    }
    if (action === 'inventory') {
      return { observation: held.length === 0 ? 'You carry nothing.' : `You carry ${listInWords(held)}.` };
    }
    if (action === 'open door') {
      if (state.door === 'locked') return { observation: `The door is locked with a ${state.lock} lock.` };
      state.door = 'open';
      return { observation: 'You open the door.' };
    }
    if (action === 'go through door') {
      return { observation: 'You go through the door. You made it out.', end: 'won' };
    }
    const open = /^open (\w+)$/.exec(action);
    if (open) {
      const container = open[1]!;
      state.opened.add(container);
      const key = [...state.keyPlace].find(([, place]) => place === container)?.[0];
      return {
        observation: `You open the ${container}. ${key ? `Inside is a ${key} key.` : 'It is empty.'}`,
      };
    }
    const take = /^take (\w+) key from (\w+)$/.exec(action);
    if (take) {
      state.keyPlace.set(take[1]!, 'held');
      return { observation: `You take the ${take[1]} key from the ${take[2]}.` };
    }
    const key = /^unlock door with (\w+) key$/.exec(action)![1]!;
    if (key !== state.lock) return { observation: `The ${key} key does not fit the ${state.lock} lock.` };
    state.door = 'closed';
    return { observation: `You unlock the door with the ${key} key.` };
  },
  oracle(state) {
    const container = state.keyPlace.get(state.lock)!;
    return {
      actions: [
        `open ${container}`,
        `take ${state.lock} key from ${container}`,
        `unlock door with ${state.lock} key`,
        'open door',
        'go through door',
      ],
      plan: [
        `Open the ${container} and take the ${state.lock} key.`,
        `Unlock the door with the ${state.lock} key.`,
        'Open the door and go through it.',
      ],
    };
  },
};

/** A key-and-door env; `config.maxSteps` (default 30) truncates the episode. */
export const createKeyDoorEnv = (config?: ToyEnvConfig): CopyableEnv => createToyEnv(keyDoorGame, config);
export const keyDoorTasks = createToyTaskSource(keyDoorGame);
