// Display names of entities. ALFWorld's demangler turns PDDL ids such as
// `cabinet_bar__plus_00_dot_13_...` into `cabinet 3`: ids are sorted, and each id of a base name
// takes the largest number still free, so the smallest id gets the highest number.

export type Naming = 'alfworld' | 'id';

const unescapes: readonly [string, string][] = [
  ['_bar_', '|'],
  ['_minus_', '-'],
  ['_plus_', '+'],
  ['_dot_', '.'],
  ['_comma_', ','],
];

/** ALFWorld's names for every id in `ids` (the ids of entities that appear in the initial facts). */
export function alfworldNames(ids: Iterable<string>): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const baseOf = (id: string): string | undefined => {
    const cut = id.indexOf('_bar_');
    if (cut < 0) return undefined;
    return id.slice(0, cut) + (id.includes('basin') ? 'basin' : '');
  };
  const counts = new Map<string, number>();
  for (const id of sorted) {
    const base = baseOf(id);
    if (base !== undefined) counts.set(base, (counts.get(base) ?? 0) + 1);
  }
  const names = new Map<string, string>();
  for (const id of sorted) {
    const base = baseOf(id);
    if (base === undefined) {
      let text = id;
      for (const [from, to] of unescapes) text = text.split(from).join(to);
      names.set(id, `${text} `);
    } else {
      const left = counts.get(base)!;
      counts.set(base, left - 1);
      names.set(id, `${base} ${left}`);
    }
  }
  return names;
}
