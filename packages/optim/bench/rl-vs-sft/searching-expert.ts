// A demonstrator that knows no more than the player: it reads the task sentence, the observations and
// the admissible commands, and searches receptacles in a random order until it sees what the task
// needs. Unlike the engine's oracle (which walks straight to the object), it shows misses and how to
// go on after them; and since its search order ignores where object types usually are, a learner
// can beat it by learning that.
import type { Rng } from '@pilotrl/core';

/** What a task sentence asks for. */
export interface Goal {
  object: string;
  /** Where the object must end up (a receptacle type), or the lamp type of a look task. */
  target: string;
  transform?: 'clean' | 'heat' | 'cool';
  count: 1 | 2;
  look: boolean;
}

const transformOf = { clean: 'clean', hot: 'heat', heat: 'heat', cool: 'cool' } as const;

/** Parses ALFWorld's task sentences ("put a clean mug in coffeemachine", "look at cd under the desklamp"). */
export function parseGoal(task: string): Goal {
  const sentence = task.trim().replace(/\.$/, '');
  let m = /^(?:look at|examine the) (\w+) (?:under|with) the (\w+)$/.exec(sentence);
  if (m) return { object: m[1]!, target: m[2]!, count: 1, look: true };
  m = /^(?:put two|find two) (\w+) (?:and put them )?(?:in|on) (\w+)$/.exec(sentence);
  if (m) return { object: m[1]!, target: m[2]!, count: 2, look: false };
  m = /^put (?:a|some) (clean|hot|cool) (\w+) (?:in|on) (\w+)$/.exec(sentence);
  if (m)
    return { object: m[2]!, target: m[3]!, transform: transformOf[m[1] as 'clean'], count: 1, look: false };
  m = /^(clean|heat|cool) some (\w+) and put it (?:in|on) (\w+)$/.exec(sentence);
  if (m)
    return { object: m[2]!, target: m[3]!, transform: transformOf[m[1] as 'clean'], count: 1, look: false };
  m = /^put (?:a|some) (\w+) (?:in|on) (\w+)$/.exec(sentence);
  if (m) return { object: m[1]!, target: m[2]!, count: 1, look: false };
  throw new Error(`searching expert: unknown task sentence ${JSON.stringify(task)}`);
}

const applianceOf = { clean: 'sinkbasin', heat: 'microwave', cool: 'fridge' } as const;
/** The type of a named thing: `mug 2` → `mug`. */
export const typeOf = (name: string) => name.replace(/ \d+$/, '');
/** The object a `take <object> from <receptacle>` command picks up, if it is one. */
export const takenObject = (command: string) => /^take (.+?) from /.exec(command)?.[1];

/** Plays one episode: call `act` with each observation and the admissible commands. */
export class SearchingExpert {
  private readonly goal: Goal;
  private readonly rng: Rng;
  private here = '';
  private holding = '';
  private transformed = false;
  private readonly placed = new Set<string>();
  private placedIn = '';
  private readonly visited = new Set<string>();
  /** Object name -> receptacle it was last seen in. */
  private readonly seen = new Map<string, string>();

  constructor(task: string, rng: Rng) {
    this.goal = parseGoal(task);
    this.rng = rng;
  }

  /** The next command, given the last observation and what can be done now. */
  act(observation: string, admissible: readonly string[]): string {
    this.read(observation);
    const command = this.choose(admissible);
    if (!admissible.includes(command)) throw new Error(`searching expert chose ${command}, not admissible`);
    this.apply(command);
    return command;
  }

  private read(observation: string): void {
    const list = /(?:On the [\w ]+?|In it), you see (.+)\.$/.exec(observation.trim());
    if (!list || this.here === '') return;
    for (const item of list[1]!.matchAll(/an? (\w+ \d+)/g)) this.seen.set(item[1]!, this.here);
  }

  private apply(command: string): void {
    const go = /^go to (.+)$/.exec(command);
    if (go) {
      this.here = go[1]!;
      this.visited.add(this.here);
    }
    const taken = takenObject(command);
    if (taken !== undefined) {
      this.holding = taken;
      this.seen.delete(taken);
    }
    if (/^put /.test(command)) {
      this.placed.add(this.holding);
      this.placedIn = this.here;
      this.holding = '';
      this.transformed = false;
    }
    if (/^(clean|heat|cool) /.test(command)) this.transformed = true;
  }

  private choose(admissible: readonly string[]): string {
    const { goal } = this;
    const has = (prefix: string) => admissible.find((c) => c.startsWith(prefix));
    const goToType = (type: string) =>
      admissible.filter((c) => c.startsWith('go to ') && typeOf(c.slice(6)) === type).sort()[0];
    if (this.holding !== '') {
      if (goal.transform && !this.transformed) {
        return (
          has(`${goal.transform} ${this.holding} with `) ??
          goToType(applianceOf[goal.transform]) ??
          goToType('bathtubbasin') ??
          this.search(admissible)
        );
      }
      if (goal.look)
        return (
          has(`use ${goal.target} `) ?? this.goToSeen(goal.target, admissible) ?? this.search(admissible)
        );
      if (typeOf(this.here) === goal.target) {
        return (
          has(`put ${this.holding} in/on ${this.here}`) ?? has(`open ${this.here}`) ?? this.search(admissible)
        );
      }
      return (
        (this.placedIn && has(`go to ${this.placedIn}`)) || (goToType(goal.target) ?? this.search(admissible))
      );
    }
    const wanted = admissible.find(
      (c) => c.startsWith(`take ${goal.object} `) && !this.placed.has(takenObject(c)!),
    );
    // A goal object already lying where goal objects go is left there once one has been placed.
    if (wanted && (typeOf(this.here) !== goal.target || this.placed.size === 0)) return wanted;
    return this.goToSeen(goal.object, admissible) ?? has(`open ${this.here}`) ?? this.search(admissible);
  }

  /** Goes to where an object of `type` was seen (and is not already placed), if anywhere. */
  private goToSeen(type: string, admissible: readonly string[]): string | undefined {
    for (const [object, receptacle] of this.seen) {
      if (typeOf(object) !== type || this.placed.has(object) || receptacle === this.here) continue;
      const command = `go to ${receptacle}`;
      if (admissible.includes(command)) return command;
    }
    return undefined;
  }

  /** A random receptacle not visited yet (any other one once all are). */
  private search(admissible: readonly string[]): string {
    const moves = admissible.filter((c) => c.startsWith('go to '));
    const fresh = moves.filter((c) => !this.visited.has(c.slice(6)));
    return this.rng.pick(fresh.length > 0 ? fresh : moves);
  }
}
