// Corridor: a row of coloured rooms; walk to the room the task names and stop there. The shortest
// solution is |goal - start| moves towards the goal, then `stop`. Stopping elsewhere loses.
import type { CopyableEnv } from '@pilotrl/core';
import { createToyEnv, createToyTaskSource, type ToyEnvConfig, type ToyGame } from './toy-game';

export const CORRIDOR_ENV_ID = 'testkit/corridor';

const SEEN_COLOURS = ['red', 'blue', 'green', 'yellow', 'white', 'black', 'orange', 'purple'];
const UNSEEN_COLOURS = [...SEEN_COLOURS, 'grey', 'pink', 'brown', 'teal'];

interface CorridorState {
  rooms: string[];
  position: number;
  goal: number;
}

const roomView = (state: CorridorState): string => {
  const west = state.rooms[state.position - 1];
  const east = state.rooms[state.position + 1];
  return [
    `You are in the ${state.rooms[state.position]} room.`,
    west === undefined ? 'To the west is a wall.' : `To the west is the ${west} room.`,
    east === undefined ? 'To the east is a wall.' : `To the east is the ${east} room.`,
  ].join(' ');
};

export const corridorGame: ToyGame<CorridorState> = {
  envId: CORRIDOR_ENV_ID,
  taskType: 'corridor',
  generate(rng, unseen) {
    const length = unseen ? rng.intBetween(8, 10) : rng.intBetween(4, 7);
    const rooms = rng.shuffle(unseen ? UNSEEN_COLOURS : SEEN_COLOURS).slice(0, length);
    const position = rng.int(length);
    const goal = (position + 1 + rng.int(length - 1)) % length;
    return { rooms, position, goal };
  },
  task: (state) => `Your task is to: go to the ${state.rooms[state.goal]} room and stop there.`,
  describe: (state) => `The corridor has ${state.rooms.length} rooms in a row. ${roomView(state)}`,
  admissible(state) {
    const actions = ['look', 'stop'];
    if (state.position > 0) actions.push('go west');
    if (state.position < state.rooms.length - 1) actions.push('go east');
    return actions;
  },
  apply(state, action) {
    if (action === 'go west' || action === 'go east') {
      state.position += action === 'go east' ? 1 : -1;
      return { observation: roomView(state) };
    }
    if (action === 'stop') {
      const here = state.rooms[state.position];
      return state.position === state.goal
        ? { observation: `You stop in the ${here} room. Well done.`, end: 'won' }
        : { observation: `You stop in the ${here} room, which is not where you were sent.`, end: 'lost' };
    }
    return { observation: roomView(state) };
  },
  oracle(state) {
    const direction = state.goal > state.position ? 'east' : 'west';
    const moves = Math.abs(state.goal - state.position);
    const goal = state.rooms[state.goal];
    return {
      actions: [...Array.from({ length: moves }, () => `go ${direction}`), 'stop'],
      plan: [`Walk ${direction} ${moves} room${moves === 1 ? '' : 's'} to the ${goal} room.`, 'Stop there.'],
    };
  },
};

/** A corridor env; `config.maxSteps` (default 30) truncates the episode. */
export const createCorridorEnv = (config?: ToyEnvConfig): CopyableEnv => createToyEnv(corridorGame, config);
export const corridorTasks = createToyTaskSource(corridorGame);
