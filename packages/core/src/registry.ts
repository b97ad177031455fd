// A registry maps string ids to factories, so users add an env, an estimator or a loss without
// editing ours.
import { InvalidArgumentError, NotFoundError } from './errors';

export interface Registry<T> {
  /** Adds `id`; registering an id twice is an error unless `{ replace: true }`. */
  register(id: string, value: T, options?: { replace?: boolean }): void;
  /** The value for `id`, or a `NotFoundError` listing the known ids. */
  get(id: string): T;
  has(id: string): boolean;
  ids(): string[];
}

export interface RegistryOptions {
  /** A sentence added to the error for an unknown id: how to add one. */
  readonly unknownHint?: string;
}

export function createRegistry<T>(kind: string, { unknownHint }: RegistryOptions = {}): Registry<T> {
  const entries = new Map<string, T>();
  return {
    register(id, value, options = {}) {
      if (!/^[a-z0-9][a-z0-9._+/-]*$/i.test(id)) {
        throw new InvalidArgumentError(`${kind} id "${id}" must be letters, digits and . _ + / -`);
      }
      if (entries.has(id) && !options.replace) {
        throw new InvalidArgumentError(
          `${kind} "${id}" is already registered; pass { replace: true } to replace it`,
        );
      }
      entries.set(id, value);
    },
    get(id) {
      const value = entries.get(id);
      if (value === undefined) {
        const known = [...entries.keys()].sort();
        throw new NotFoundError(
          `Unknown ${kind} "${id}". Known: ${known.length > 0 ? known.join(', ') : '(none registered)'}${unknownHint === undefined ? '' : `. ${unknownHint}`}`,
        );
      }
      return value;
    },
    has: (id) => entries.has(id),
    ids: () => [...entries.keys()].sort(),
  };
}
