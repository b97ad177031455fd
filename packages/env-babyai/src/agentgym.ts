// AgentGym's BabyAI wrapper (`BabyAI.reset`, `step`, `update`, `update_info` and the server's
// `/reset` and `/step` texts in `agentenv-babyai/agentenv_babyai/environment.py`): a command is
// lower-cased and stripped, refused with the original's message, or expanded into primitives that
// run until one leaves the observation image unchanged.
import { describe, type TextView } from './describe';
import { Game, type PrimitiveOutcome, sameImage } from './game';
import { goalOf, type LevelState } from './level';
import type { Primitive } from './world';

export const UNKNOWN_COMMAND = 'The action is not recognized. Please check valid actions.';
export const EMPTY_COMMAND = 'No change in state.';
export const TASK_COMPLETED = '\n The task is completed.';

/**
 * Which of AgentGym's commands an episode offers and accepts: `agentgym`, all of them (`go to …`,
 * `toggle and go through …` and the other macros that may run many primitives); `primitive`, those
 * that name one of Minigrid's primitive actions (`turn left`, `turn right`, `move forward`,
 * `toggle`, `drop`, and `pickup <object> <k>` of the object in front), a macro answered as an
 * unknown command.
 */
export type BabyaiCommands = 'agentgym' | 'primitive';

/** AgentGym's commands that name one primitive action; a `pickup` names its object. */
const PRIMITIVE_COMMANDS: ReadonlySet<string> = new Set([
  'turn left',
  'turn right',
  'move forward',
  'toggle',
  'drop',
]);

/** What one command did, in AgentGym's terms. */
export interface CommandOutcome {
  /** The new state text (a description, or a message instead of one). */
  readonly text: string;
  /** AgentGym's `reward`: the last primitive's reward, kept unchanged by refused and listing commands. */
  readonly reward: number;
  readonly done: boolean;
  /** AgentGym's `action_is_valid`: the command was known and possible (or a `check`). */
  readonly valid: boolean;
  /** Primitive actions that ran. */
  readonly primitives: number;
}

const PY_SPACE = '[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PY_STRIP = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, 'g');
/** Python's `str.strip()`: JavaScript's `trim()` without U+FEFF, plus U+001C-U+001F and U+0085. */
export const pythonStrip = (text: string) => text.replace(PY_STRIP, '');

/** Python's `str.lower()` (JavaScript's differs only for a few characters that no command uses). */
export const pythonLower = (text: string) => text.toLowerCase();

export class AgentGymBabyAI {
  readonly game: Game;
  readonly goal: string;
  view: TextView;
  reward = 0;
  done = false;
  /** `states[-1]`: the text the server answers with. */
  state: string;
  private image: Uint8Array;
  /** The commands of `listed`, listed once per view (the env asks twice a step). */
  private listed: TextView | undefined;
  private commands: string[] = [];

  constructor(
    level: LevelState,
    readonly offered: BabyaiCommands = 'agentgym',
    game: Game = new Game(level),
  ) {
    this.game = game;
    this.goal = goalOf(level.mission);
    // Minigrid's reset observation (AgentGym compares the first command's views against it).
    this.image = this.game.resetImage();
    this.view = describe(this.game, this.image);
    this.state = this.view.description;
  }

  /** An independent copy of the episode so far, for looking ahead. */
  clone(): AgentGymBabyAI {
    const copy = new AgentGymBabyAI(this.game.level, this.offered, this.game.clone());
    copy.view = this.view;
    copy.image = this.image;
    copy.reward = this.reward;
    copy.done = this.done;
    copy.state = this.state;
    return copy;
  }

  /** The commands AgentGym lists now, in its order. */
  availableActions(): string[] {
    if (this.listed !== this.view) {
      this.commands = [...this.view.actions].flatMap(([command, primitives]) =>
        this.offers(command, primitives) ? [command] : [],
      );
      this.listed = this.view;
    }
    return this.commands.slice();
  }

  /** `BabyAI.step` with the given command text. */
  step(command: string): CommandOutcome {
    const action = pythonStrip(pythonLower(command));
    if (action.includes('check')) {
      return this.refuse(`You can take the following actions: ${this.availableActions().join(', ')}`, true);
    }
    if (action === '') return this.refuse(EMPTY_COMMAND, false);
    const primitives = this.view.actions.get(action);
    if (primitives !== undefined && !this.offers(action, primitives))
      return this.refuse(UNKNOWN_COMMAND, false);
    if (primitives === undefined) return this.refuse(this.view.errors.get(action) ?? UNKNOWN_COMMAND, false);
    if (primitives.length === 0) return this.refuse(EMPTY_COMMAND, true);
    return this.run(primitives);
  }

  /** Whether this episode's form of the commands includes `command`, which runs `primitives` now. */
  private offers(command: string, primitives: readonly Primitive[]): boolean {
    if (this.offered === 'agentgym') return true;
    return PRIMITIVE_COMMANDS.has(command) || (command.startsWith('pickup ') && primitives.length === 1);
  }

  /** A command answered with `text` instead of a step of the game. */
  private refuse(text: string, valid: boolean): CommandOutcome {
    this.state = text;
    return { text, reward: this.reward, done: this.done, valid, primitives: 0 };
  }

  private run(primitives: readonly Primitive[]): CommandOutcome {
    let outcome: PrimitiveOutcome = { reward: 0, terminated: false, truncated: false };
    let ran = 0;
    for (const primitive of primitives) {
      outcome = this.game.step(primitive);
      ran += 1;
      const image = this.game.image();
      if (sameImage(image, this.image)) break;
      this.image = image;
    }
    // `update`: the new description (of `this.image`, which the loop left equal to the view now),
    // then AgentGym's done rules on the last primitive's outcome.
    this.view = describe(this.game, this.image);
    let text = this.view.description;
    let done = outcome.terminated;
    if (done) text += TASK_COMPLETED;
    this.reward = outcome.reward;
    if (done && this.reward <= 0.5) done = false;
    if (this.reward === 1 && !done) {
      done = true;
      text += TASK_COMPLETED;
    }
    this.done = done;
    this.state = text;
    return { text, reward: this.reward, done, valid: true, primitives: ran };
  }
}

/** `"\nAvailable actions: [\"a\", \"b\"]"`, the suffix AgentGym's server adds to every observation. */
export function availableActionsSuffix(actions: readonly string[]): string {
  return actions.length === 0
    ? '\nAvailable actions: []'
    : `\nAvailable actions: ["${actions.join('", "')}"]`;
}
