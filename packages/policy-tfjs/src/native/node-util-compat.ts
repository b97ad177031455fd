// tfjs-node 4.22 calls `util.isNullOrUndefined`, which Node 23 removed (DEP0051): on Node 24 and 26
// its native backend loads, then fails on the first op that takes a list of tensors. The function is
// given back on the `util` module object, with its documented meaning, before tfjs-node loads; only
// where it is missing, so an older Node keeps its own.
import util from 'node:util';

/** The line the native probe's child process runs first, for the same reason. */
export const RESTORE_UTIL_SOURCE =
  "const util = require('node:util'); if (typeof util.isNullOrUndefined !== 'function') util.isNullOrUndefined = (value) => value === null || value === undefined;";

export function restoreUtilForTfjsNode(): void {
  const target = util as unknown as Record<string, unknown>;
  if (typeof target.isNullOrUndefined !== 'function') {
    target.isNullOrUndefined = (value: unknown) => value === null || value === undefined;
  }
}
