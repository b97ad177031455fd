// A preload (`node --import`) that numbers every file operation under one directory and kills the
// process with SIGKILL just before operation number N, the way a power cut or an OOM kill would land
// in the middle of a checkpoint. With N = 0 it kills nothing and writes the numbered list of
// operations to a log, so a test can choose its kill points.
//   PILOTRL_FS_FAULT_DIR  the directory whose operations count (a run directory)
//   PILOTRL_FS_FAULT_AT   the operation to die before (1-based), or 0 to only count
//   PILOTRL_FS_FAULT_LOG  where the numbered operations are written (one `N op path` line each)
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { resolve, sep } from 'node:path';

const dir = process.env.PILOTRL_FS_FAULT_DIR;
const at = Number(process.env.PILOTRL_FS_FAULT_AT ?? '0');
const log = process.env.PILOTRL_FS_FAULT_LOG;

if (dir !== undefined) install(resolve(dir));

function install(root: string): void {
  const appendLog = fs.appendFileSync;
  const inside = (path: unknown) =>
    (typeof path === 'string' || path instanceof URL) &&
    (resolve(String(path)) === root || resolve(String(path)).startsWith(root + sep));
  let count = 0;
  const operation = (name: string, path: string) => {
    count++;
    if (count === at) process.kill(process.pid, 'SIGKILL');
    if (log !== undefined) appendLog(log, `${count} ${name} ${path}\n`);
  };

  const openFds = new Map<number, string>();
  const handles = new WeakMap<FileHandle, string>();
  const sync = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
  const byPath = (name: string) => {
    const original = sync[name]!;
    sync[name] = (...args: unknown[]) => {
      if (inside(args[0])) operation(name, String(args[0]));
      else if (
        inside(args[1]) &&
        (name === 'renameSync' || name === 'linkSync' || name === 'copyFileSync' || name === 'cpSync')
      ) {
        operation(name, String(args[1]));
      }
      return original.apply(fs, args);
    };
  };
  for (const name of [
    'writeFileSync',
    'appendFileSync',
    'renameSync',
    'linkSync',
    'mkdirSync',
    'rmSync',
    'rmdirSync',
    'unlinkSync',
    'truncateSync',
    'copyFileSync',
    'cpSync',
  ]) {
    byPath(name);
  }
  const openSync = sync.openSync!;
  sync.openSync = (...args: unknown[]) => {
    if (inside(args[0])) operation('openSync', String(args[0]));
    const fd = openSync.apply(fs, args) as number;
    if (inside(args[0])) openFds.set(fd, String(args[0]));
    return fd;
  };
  for (const name of ['writeSync', 'fsyncSync', 'ftruncateSync']) {
    const original = sync[name]!;
    sync[name] = (...args: unknown[]) => {
      const path = openFds.get(args[0] as number);
      if (path !== undefined) operation(name, path);
      return original.apply(fs, args);
    };
  }
  const closeSync = sync.closeSync!;
  sync.closeSync = (...args: unknown[]) => {
    openFds.delete(args[0] as number);
    return closeSync.apply(fs, args);
  };

  const promises = fs.promises as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of [
    'writeFile',
    'appendFile',
    'rename',
    'mkdir',
    'rm',
    'rmdir',
    'unlink',
    'copyFile',
    'cp',
  ]) {
    const original = promises[name]!;
    promises[name] = (...args: unknown[]) => {
      if (inside(args[0])) operation(name, String(args[0]));
      else if (inside(args[1]) && (name === 'rename' || name === 'copyFile' || name === 'cp')) {
        operation(name, String(args[1]));
      }
      return original.apply(fs.promises, args);
    };
  }
  const open = promises.open!;
  promises.open = async (...args: unknown[]) => {
    if (inside(args[0])) operation('open', String(args[0]));
    const handle = (await open.apply(fs.promises, args)) as FileHandle;
    if (inside(args[0])) {
      handles.set(handle, String(args[0]));
      wrapHandleMethods(Object.getPrototypeOf(handle) as Record<string, (...a: unknown[]) => unknown>);
    }
    return handle;
  };
  let wrapped = false;
  function wrapHandleMethods(prototype: Record<string, (...a: unknown[]) => unknown>): void {
    if (wrapped) return;
    wrapped = true;
    for (const name of ['writeFile', 'write', 'sync', 'truncate']) {
      const original = prototype[name]!;
      prototype[name] = function (this: FileHandle, ...args: unknown[]) {
        const path = handles.get(this);
        if (path !== undefined) operation(`handle.${name}`, path);
        return original.apply(this, args);
      };
    }
  }
  syncBuiltinESMExports();
}
