// Behaviours of ALFWorld's engine that agents notice, on a small hand-made kitchen.
import { describe, expect, it } from 'vitest';
import { GameEngine } from './engine';
import { compileScene, type Dialect } from './game-file';
import type { Scene } from './generator';

const spot = (n: number) => `loc|${n}|0|0|30`;
const scene: Scene = {
  floorPlan: 1,
  roomType: 'kitchen',
  trial: 0,
  start: spot(0),
  receptacles: [
    { id: 'Cabinet|+00.10|+00.00|+00.00', type: 'Cabinet', location: spot(1), openable: true },
    { id: 'Cabinet|+00.20|+00.00|+00.00', type: 'Cabinet', location: spot(1), openable: true },
    { id: 'Drawer|+00.10|+00.00|+00.00', type: 'Drawer', location: spot(2), openable: false },
    { id: 'Microwave|+00.10|+00.00|+00.00', type: 'Microwave', location: spot(3), openable: true },
    { id: 'CounterTop|+00.10|+00.00|+00.00', type: 'CounterTop', location: spot(4), openable: false },
    { id: 'Desk|+00.10|+00.00|+00.00', type: 'Desk', location: spot(5), openable: false },
  ],
  objects: [
    {
      id: 'Mug|+00.10|+00.00|+00.00',
      type: 'Mug',
      receptacle: 'CounterTop|+00.10|+00.00|+00.00',
      location: spot(4),
      cool: false,
    },
    {
      id: 'Apple|+00.10|+00.00|+00.00',
      type: 'Apple',
      receptacle: 'CounterTop|+00.10|+00.00|+00.00',
      location: spot(4),
      cool: false,
    },
    {
      id: 'Cup|+00.10|+00.00|+00.00',
      type: 'Cup',
      receptacle: 'Cabinet|+00.20|+00.00|+00.00',
      location: spot(1),
      cool: false,
    },
    {
      id: 'DeskLamp|+00.10|+00.00|+00.00',
      type: 'DeskLamp',
      receptacle: 'Desk|+00.10|+00.00|+00.00',
      location: spot(5),
      cool: false,
    },
  ],
  task: {
    type: 'pick_heat_then_place_in_recep',
    object: 'Mug',
    parent: 'CounterTop',
    toggle: undefined,
    sentence: 'heat some mug and put it in countertop',
  },
};

const engineFor = (dialect: Dialect) => new GameEngine(compileScene(scene, dialect));
const play = (engine: GameEngine, ...commands: string[]) =>
  commands.map((c) => engine.step(c).feedback).at(-1);

describe('GameEngine on ALFWorld', () => {
  it('opens with the welcome header, every receptacle (types in order, numbers descending) and the task', () => {
    expect(engineFor('legacy').reset()).toBe(
      '-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a cabinet 2, a cabinet 1, a countertop 1, a desk 1, a drawer 1, and a microwave 1.\n\nYour task is to: heat some mug and put it in countertop.',
    );
  });

  it('lists only go-to commands, inventory and look at the start, sorted', () => {
    const engine = engineFor('legacy');
    engine.reset();
    expect(engine.admissibleCommands()).toEqual([
      'go to cabinet 1',
      'go to cabinet 2',
      'go to countertop 1',
      'go to desk 1',
      'go to drawer 1',
      'go to microwave 1',
      'inventory',
      'look',
    ]);
    expect(play(engine, 'look')).toBe(
      'You are in the middle of a room. Looking quickly around you, you see nothing.',
    );
  });

  it('shows the arrival by location number in legacy games and by receptacle name in current ones', () => {
    const legacy = engineFor('legacy');
    legacy.reset();
    expect(play(legacy, 'go to countertop 1')).toMatch(
      /^You arrive at loc \d+\. On the countertop 1, you see a apple 1, and a mug 1\.$/,
    );
    const current = engineFor('current');
    current.reset();
    expect(play(current, 'go to countertop 1')).toBe(
      'You arrive at countertop 1. On the countertop 1, you see a apple 1, and a mug 1.',
    );
  });

  it('refuses a go-to within the same spot, and look names every receptacle there', () => {
    const engine = engineFor('current');
    engine.reset();
    expect(play(engine, 'go to cabinet 1')).toBe('You arrive at cabinet 1. The cabinet 1 is closed.');
    expect(play(engine, 'go to cabinet 2')).toBe('Nothing happens.');
    expect(play(engine, 'look')).toBe(
      'You are facing the cabinet 2, and cabinet 1. Next to it, you see nothing.',
    );
  });

  it('lists an object moved between two receptacles of one spot as next to them', () => {
    const engine = engineFor('current');
    engine.reset();
    play(engine, 'go to cabinet 1', 'open cabinet 2', 'open cabinet 1');
    expect(play(engine, 'take cup 1 from cabinet 1')).toBe('You pick up the cup 1 from the cabinet 1.');
    expect(play(engine, 'move cup 1 to cabinet 2')).toBe('You move the cup 1 to the cabinet 2.');
    expect(play(engine, 'look')).toBe(
      'You are facing the cabinet 2, and cabinet 1. Next to it, you see a cup 1.',
    );
  });

  it('clones mid-episode into an engine that plays on alone, and resetting either leaves the other', () => {
    const engine = engineFor('current');
    engine.reset();
    play(engine, 'go to cabinet 1', 'open cabinet 2', 'open cabinet 1', 'take cup 1 from cabinet 1');
    const clone = engine.clone();
    expect(play(clone, 'move cup 1 to cabinet 2')).toBe('You move the cup 1 to the cabinet 2.');
    expect(play(engine, 'inventory')).toBe('You are carrying: a cup 1.');
    expect(play(engine, 'look')).toBe(
      'You are facing the cabinet 2, and cabinet 1. Next to it, you see nothing.',
    );
    expect(play(clone, 'look')).toBe(
      'You are facing the cabinet 2, and cabinet 1. Next to it, you see a cup 1.',
    );
    expect(clone.clone().admissibleCommands()).toEqual(clone.admissibleCommands());
    engine.reset();
    expect(play(clone, 'inventory')).toBe('You are not carrying anything.');
    expect(play(engine, 'look')).toBe(
      'You are in the middle of a room. Looking quickly around you, you see nothing.',
    );
  });

  it('reads a drawer without an openable fact as a surface', () => {
    const engine = engineFor('legacy');
    engine.reset();
    expect(play(engine, 'go to drawer 1', 'examine drawer 1')).toBe('On the drawer 1, you see nothing.');
  });

  it('examines a held mug as a container, heats it with a closed microwave, and can heat again', () => {
    const engine = engineFor('legacy');
    engine.reset();
    play(engine, 'go to countertop 1', 'take mug 1 from countertop 1');
    expect(play(engine, 'examine mug 1')).toBe('This is a normal mug 1. In it, you see nothing.');
    expect(play(engine, 'inventory')).toBe('You are carrying: a mug 1.');
    expect(play(engine, 'go to microwave 1')).toMatch(/The microwave 1 is closed\.$/);
    expect(play(engine, 'heat mug 1 with microwave 1')).toBe('You heat the mug 1 using the microwave 1.');
    expect(engine.admissibleCommands()).toContain('heat mug 1 with microwave 1');
    expect(engine.won()).toBe(false);
    play(engine, 'go to countertop 1');
    expect(play(engine, 'put mug 1 in/on countertop 1')).toBe('You put the mug 1 in/on the countertop 1.');
    expect(engine.won()).toBe(true);
  });

  it('describes a heated apple as hot and a plain one as nothing special', () => {
    const engine = engineFor('current');
    engine.reset();
    play(engine, 'go to countertop 1', 'take apple 1 from countertop 1');
    expect(play(engine, 'examine apple 1')).toBe("There's nothing special about apple 1.");
    play(engine, 'go to microwave 1', 'heat apple 1 with microwave 1');
    expect(play(engine, 'examine apple 1')).toBe('This is a hot apple 1.');
  });

  it('always turns a lamp on, however often it is used', () => {
    const engine = engineFor('current');
    engine.reset();
    play(engine, 'go to desk 1');
    expect(play(engine, 'use desklamp 1')).toBe('You turn on the desklamp 1.');
    expect(play(engine, 'use desklamp 1')).toBe('You turn on the desklamp 1.');
  });

  it('has help only in the current dialect, without the leading newline of the grammar', () => {
    const current = engineFor('current');
    current.reset();
    expect(current.admissibleCommands()).toContain('help');
    const help = play(current, 'help')!;
    expect(help.startsWith('Available commands:\n  look:')).toBe(true);
    expect(help.endsWith('sharp object\n')).toBe(true);
    const legacy = engineFor('legacy');
    legacy.reset();
    expect(play(legacy, 'help')).toBe('Nothing happens.');
  });

  it('matches commands exactly after trimming', () => {
    const engine = engineFor('legacy');
    engine.reset();
    expect(engine.step('  look \n').valid).toBe(true);
    expect(engine.step('Look').valid).toBe(false);
    expect(engine.step('go  to desk 1').feedback).toBe('Nothing happens.');
    expect(engine.step('move mug 1 to countertop 1').feedback).toBe('Nothing happens.');
  });
});
