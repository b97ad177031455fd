// The policy-backend contract: where a run's weights live and train (a model in this process, a base
// model on a training server), as the descriptor a plug-in registers so that a curriculum names it
// (`policy.kind`) with its own keys, and what it offers the rest of the run, which the app checks a
// config against.
import type { z } from 'zod';
import type { ChatMessage } from './policy';
import type { Datum, TrainablePolicy } from './trainable-policy';

/** A supervised example: chat messages, then the reply to learn. */
export interface ReplyExample {
  prompt: readonly ChatMessage[];
  response: string;
}

/** Weights frozen at one version (they never train), and what lets them go. */
export interface FrozenPolicy {
  readonly policy: TrainablePolicy;
  dispose(): Promise<void>;
}

/** The policy a run trains, whichever backend holds its weights. */
export interface RunPolicy extends TrainablePolicy {
  /** Where the weights live, for the run's manifest: e.g. the tfjs backend's name, or `tinker`. */
  readonly backendName: string;
  /** One line on what trains: parameters and vocabulary, or the server and model. */
  describe(): string;
  /** `example` as a training datum in this policy's tokens, rendered as its sampler renders prompts. */
  replyDatum(example: ReplyExample): Datum;
  /** A copy of the current weights that stays as it is while this policy trains. */
  freeze(): Promise<FrozenPolicy>;
  dispose(): void;
}

/** What a backend can do; a config asking for more is refused at load, naming the key. */
export interface PolicyBackendOffers {
  /** Constrained decoding among given choices: `agent.actionSpace: choice`, plan steps, expert iteration. */
  readonly choices: boolean;
  /** A value head trained beside the policy (`policy.valueHead: true`). */
  readonly valueHead: boolean;
  /** Per-token entropies, for an entropy bonus (`loss.entropyCoef` above 0). */
  readonly entropy: boolean;
  /** Trains in this process: its compute is this process's CPU time, and this machine's memory holds it. */
  readonly localTraining: boolean;
  /** A `backend` key choosing the device backend, which `--backend` overrides. */
  readonly backendChoice: boolean;
}

/** The keys of `policy` every backend takes, beside its own. */
export interface PolicyOptions {
  /** The backend's id. */
  readonly kind: string;
  /** Seed of the weights' initialisation (and of whatever else the backend draws). */
  readonly seed: number;
  /** A value head trained with the policy (only where the backend offers one). */
  readonly valueHead: boolean;
  /** A checkpoint directory to start from instead of fresh weights. */
  readonly init?: string | undefined;
}

/** What the app hands a backend when it makes or loads a run's policy. */
export interface PolicyBackendContext {
  /** The curriculum's name, for the policy's. */
  readonly name: string;
  /** The seed sampling starts from. */
  readonly samplingSeed: number;
}

/** What a fresh policy may draw on beyond the context: the oracle's demonstrations, as text. */
export interface PolicyCreateContext extends PolicyBackendContext {
  /** Every prompt message and reply of the oracle's demonstrations of `tasks` training tasks, each once. */
  demonstrationTexts(tasks: number): Promise<string[]>;
  /** Writes one progress line. */
  log(line: string): void;
}

/** One problem with a backend's own keys, at `path` under `policy`. */
export interface PolicyOptionsProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** What starting a backend says: one line, and facts for the run's manifest (e.g. `tensorflowVersion`). */
export interface PolicyBackendStart {
  readonly line: string;
  readonly platform?: {
    readonly tensorflowVersion?: string;
    readonly backendSkipped?: Record<string, string>;
  };
}

/** One policy backend a config can name (`policy: { kind: <id>, ...its own keys }`). */
export interface PolicyBackendDescriptor<Options extends PolicyOptions = PolicyOptions> {
  /** Letters, digits and `. _ + / -`; the `policy.kind` a config gives. */
  readonly id: string;
  readonly description?: string;
  /** How errors name one of its policies: "a Tinker policy". */
  readonly title: string;
  /** What samples and trains, as errors name it: "the Tinker API". */
  readonly engine: string;
  /** Where the weights train, as errors name it: "a Tinker server". */
  readonly trainsOn: string;
  /** Its own keys of `policy` (beside kind, seed, valueHead and init), as a zod object. */
  readonly optionsSchema: z.ZodObject;
  /**
   * Keys of other backends that make no sense with this one, each with the reason a config giving
   * it is refused (instead of the plain "is a key of another backend").
   */
  readonly refusedKeys?: Readonly<Record<string, string>>;
  readonly offers: PolicyBackendOffers;
  /** The model's context length in tokens. */
  contextLength(options: Options): number;
  /** Problems among its own keys that no single key's schema sees (e.g. memory a model needs). */
  problems?(options: Options): readonly PolicyOptionsProblem[];
  /**
   * Starts what the backend runs on, before anything slow: says what runs, and where. `purpose`
   * says whether weights will train in this process, so a backend can refuse what cannot train.
   */
  start(options: Options, purpose: 'train' | 'evaluate'): Promise<PolicyBackendStart>;
  /** The policy of a fresh run, and hashes of the data it was built from. */
  create(
    options: Options,
    context: PolicyCreateContext,
  ): Promise<{ policy: RunPolicy; dataHashes: Record<string, string> }>;
  /** The policy saved in `dir` by its `saveState` (a checkpoint's, or `policy.init`). */
  load(options: Options, dir: string, context: PolicyBackendContext): Promise<RunPolicy>;
}
