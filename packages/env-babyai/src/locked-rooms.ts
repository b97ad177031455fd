// The ways the level families lock a room: a locked door, its key in another room (never the
// locked one), and the agent placed outside.
import type { Room, RoomGrid, Side } from './room-grid';
import type { Color, WorldObject } from './world';

/** Puts a key of `color` in a random room other than `lockedRoom`. */
function addKeyOutside(world: RoomGrid, lockedRoom: Room, color: Color): void {
  // Minigrid means the key to lie outside the locked room too, but in GoToImpUnlock and Unlock it
  // compares numpy integers with `is`, so the key sometimes lands inside and the level cannot be won.
  for (;;) {
    const keyRoom = world.room(world.randInt(0, world.cols), world.randInt(0, world.rows));
    if (keyRoom === lockedRoom) continue;
    world.addObject(keyRoom.col, keyRoom.row, 'key', color);
    return;
  }
}

/** A locked door in a random wall of a random room (GoToImpUnlock, Unlock), and its key elsewhere. */
export function addLockedDoor(world: RoomGrid): { door: WorldObject; lockedRoom: Room } {
  const lockedRoom = world.room(world.randInt(0, world.cols), world.randInt(0, world.rows));
  const door = world.addDoor(lockedRoom.col, lockedRoom.row, { locked: true });
  addKeyOutside(world, lockedRoom, door.color);
  return { door, lockedRoom };
}

/**
 * `LevelGen.add_locked_room`: room and wall drawn together until the wall is an inner one (so rooms
 * with more neighbours are locked more often), a locked door there, its key elsewhere.
 */
export function addLockedRoom(world: RoomGrid): Room {
  for (;;) {
    const room = world.room(world.randInt(0, world.cols), world.randInt(0, world.rows));
    const side = world.randInt(0, 4) as Side;
    if (room.neighbors[side] === null) continue;
    const door = world.addDoor(room.col, room.row, { side, locked: true });
    addKeyOutside(world, room, door.color);
    return room;
  }
}

/** Places the agent in a random room other than `lockedRoom`. */
export function placeAgentOutside(world: RoomGrid, lockedRoom: Room | null): void {
  do world.placeAgent();
  while (world.roomAt(world.agentPos) === lockedRoom);
}
