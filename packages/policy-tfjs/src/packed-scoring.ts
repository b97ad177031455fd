// Packed scoring: a prompt and many candidate continuations in one sequence. The candidates are
// merged into a trie (shared prefixes become shared tokens); each trie token attends to the
// prompt and its own ancestors and sits at position promptLength + depth, so its logits equal
// those of a plain causal pass over prompt + that candidate. One forward pass gives every
// candidate's token logprobs, and the exact constrained distribution of decoding restricted to
// the candidates (a softmax over the allowed children at every trie node).
import * as tf from '@tensorflow/tfjs-core';
import { inScope, type LayerCache, MASKED, type TransformerModel } from './model';
import type { PrefixCache, PrefixHit } from './prefix-cache';
import { PAD_ID } from './tokenizer';

interface TrieNode {
  token: number;
  /** Index of the parent node, or -1 when the parent is the end of the prompt. */
  parent: number;
  depth: number;
  children: Map<number, number>;
}

export interface ScoreRequest {
  prompt: readonly number[];
  candidates: readonly (readonly number[])[];
  /** Temperature of the constrained distribution (1 when omitted or 0). */
  temperature?: number;
}

/** What choosing among candidates reads: the distribution of decoding constrained to them. */
export interface ConstrainedScores {
  /** Per candidate, the logprob of each token under decoding constrained to the candidates. */
  constrainedTokenLogprobs: number[][];
  /** Per candidate, the sum of its constrained token logprobs: log P(candidate | constrained). */
  constrainedLogprobs: number[];
}

export interface CandidateScores extends ConstrainedScores {
  /** Per candidate, the model's logprob of each of its tokens. */
  tokenLogprobs: number[][];
}

function buildTrie(candidates: readonly (readonly number[])[]) {
  const nodes: TrieNode[] = [];
  const roots = new Map<number, number>();
  const paths = candidates.map((candidate) => {
    const path: number[] = [];
    let children = roots;
    let parent = -1;
    candidate.forEach((token, depth) => {
      let index = children.get(token);
      if (index === undefined) {
        index = nodes.length;
        nodes.push({ token, parent, depth, children: new Map() });
        children.set(token, index);
      }
      path.push(index);
      parent = index;
      children = nodes[index]!.children;
    });
    return path;
  });
  return { nodes, roots, paths };
}

/** Packed length of a request: prompt tokens plus distinct trie tokens. */
export function packedLength(request: ScoreRequest): number {
  return request.prompt.length + buildTrie(request.candidates).nodes.length;
}

/**
 * Scores the candidates of every request in one batched forward pass. With `prefixCache`, each
 * prompt runs from the end of its longest cached prefix (the cached keys and values stand in for
 * the rest), and the prompts' keys and values are cached for later calls.
 */
export function scoreCandidates(
  model: TransformerModel,
  requests: readonly ScoreRequest[],
  prefixCache?: PrefixCache,
): CandidateScores[] {
  const pass = packedPass(model, requests, prefixCache);
  return requests.map((request, b) => ({
    tokenLogprobs: modelTokenLogprobs(pass, b),
    ...constrainedScores(pass, b, request.temperature),
  }));
}

/**
 * `scoreCandidates` without the model's own logprob of every candidate token, which choosing does
 * not read: that needs a log-sum-exp over the whole vocabulary at every trie node with children,
 * the larger part of a choice's scoring outside the model. The constrained scores are the same.
 */
export function scoreChoices(
  model: TransformerModel,
  requests: readonly ScoreRequest[],
  prefixCache?: PrefixCache,
): ConstrainedScores[] {
  const pass = packedPass(model, requests, prefixCache);
  return requests.map((request, b) => constrainedScores(pass, b, request.temperature));
}

/** The logits of one packed pass: per request, its trie and the logits row of each trie state. */
interface PackedPass {
  tries: ReturnType<typeof buildTrie>[];
  /** Per request, trie state (-1: the prompt's end, else a node) → row of `logits`. */
  rowOfState: Map<number, number>[];
  /** [rows, vocab], row-major. */
  logits: Float32Array;
  vocab: number;
}

function packedPass(
  model: TransformerModel,
  requests: readonly ScoreRequest[],
  prefixCache: PrefixCache | undefined,
): PackedPass {
  const tries = requests.map((r) => buildTrie(r.candidates));
  const packed = requests.map((r, i) => r.prompt.length + tries[i]!.nodes.length);
  let hits = requests.map((r) => prefixCache?.lookup(r.prompt));
  // The batch runs as wide as its widest row: when a prompt without a long cached prefix keeps it
  // wide, reading the others' cached keys and values costs more than it saves.
  if (2 * Math.max(...packed.map((n, i) => n - (hits[i]?.length ?? 0))) > Math.max(...packed)) {
    hits = hits.map(() => undefined);
  }
  const reused = hits.map((hit) => hit?.length ?? 0);
  const past = Math.max(...reused);
  const width = Math.max(...packed.map((n, i) => n - reused[i]!));
  const keys = past + width;
  const batch = requests.length;
  const ids = new Int32Array(batch * width).fill(PAD_ID);
  const positions = new Int32Array(batch * width);
  const bias = new Float32Array(batch * width * keys).fill(MASKED);
  // Rows whose logits are needed: the prompt end and every trie node with children.
  const predictorRows: number[] = [];
  const rowOfState: Map<number, number>[] = [];
  requests.forEach((request, b) => {
    const { nodes } = tries[b]!;
    const p = request.prompt.length;
    // Row i holds token c + i: the prompt from its first uncached token, then the trie. Its keys
    // are the cached ones (columns 0..c-1) and the new ones (column past + j for new token j).
    const c = reused[b]!;
    const fresh = p - c;
    const base = b * width;
    const states = new Map<number, number>();
    for (let i = 0; i < width; i++) {
      const row = (base + i) * keys;
      if (i < fresh) {
        ids[base + i] = request.prompt[c + i]!;
        positions[base + i] = c + i;
        bias.fill(0, row, row + c);
        bias.fill(0, row + past, row + past + i + 1);
      } else if (i < fresh + nodes.length) {
        const node = nodes[i - fresh]!;
        ids[base + i] = node.token;
        positions[base + i] = p + node.depth;
        bias.fill(0, row, row + c);
        bias.fill(0, row + past, row + past + fresh);
        for (let a = i - fresh; a >= 0; a = nodes[a]!.parent) bias[row + past + fresh + a] = 0;
      } else {
        bias[row + past + i] = 0;
      }
    }
    states.set(-1, predictorRows.length);
    predictorRows.push(base + fresh - 1);
    nodes.forEach((node, n) => {
      if (node.children.size > 0) {
        states.set(n, predictorRows.length);
        predictorRows.push(base + fresh + n);
      }
    });
    rowOfState.push(states);
  });

  const vocab = model.config.vocabSize;
  const logits = inScope(() => {
    const { hidden, cache } = model.run(
      tf.tensor2d(ids, [batch, width], 'int32'),
      tf.tensor2d(positions, [batch, width], 'int32'),
      tf.tensor4d(bias, [batch, 1, width, keys]),
      past > 0 ? pastOf(model, hits, past) : undefined,
      prefixCache !== undefined,
    );
    const rows = tf.gather(hidden, tf.tensor1d(predictorRows, 'int32')) as tf.Tensor2D;
    const values = model.logits(rows).dataSync() as Float32Array;
    if (prefixCache !== undefined) {
      prefixCache.store(
        cache.map(({ k, v }) => ({ k: tf.keep(k), v: tf.keep(v) })),
        requests.map((request, b) => ({
          tokens: request.prompt,
          row: b,
          reused: reused[b]!,
          freshFrom: past,
        })),
      );
    }
    return values;
  });

  return { tries, rowOfState, logits, vocab };
}

/** Per candidate of request `b`, the logprob of each of its tokens under decoding constrained to the candidates. */
function constrainedScores(
  pass: PackedPass,
  b: number,
  requestTemperature: number | undefined,
): ConstrainedScores {
  const { nodes, roots, paths } = pass.tries[b]!;
  const states = pass.rowOfState[b]!;
  const { logits, vocab } = pass;
  const temperature = requestTemperature === undefined || requestTemperature === 0 ? 1 : requestTemperature;
  // Per node: constrained logprob of its token given its parent state.
  const constrained = new Float64Array(nodes.length);
  const visit = (state: number, children: Map<number, number>) => {
    const offset = states.get(state)! * vocab;
    const allowedZ = childrenLogSumExp(logits, offset, children, 1 / temperature);
    for (const [token, n] of children) constrained[n] = logits[offset + token]! / temperature - allowedZ;
  };
  visit(-1, roots);
  nodes.forEach((node, n) => {
    if (node.children.size > 0) visit(n, node.children);
  });
  const constrainedTokenLogprobs = paths.map((path) => path.map((n) => constrained[n]!));
  return {
    constrainedTokenLogprobs,
    constrainedLogprobs: constrainedTokenLogprobs.map((values) => values.reduce((s, v) => s + v, 0)),
  };
}

/** Per candidate of request `b`, the model's logprob of each of its tokens. */
function modelTokenLogprobs(pass: PackedPass, b: number): number[][] {
  const { nodes, roots, paths } = pass.tries[b]!;
  const states = pass.rowOfState[b]!;
  const { logits, vocab } = pass;
  const modelLogprob = new Float64Array(nodes.length);
  const visit = (state: number, children: Map<number, number>) => {
    const offset = states.get(state)! * vocab;
    const logZ = rowLogSumExp(logits, offset, vocab);
    for (const [token, n] of children) modelLogprob[n] = logits[offset + token]! - logZ;
  };
  visit(-1, roots);
  nodes.forEach((node, n) => {
    if (node.children.size > 0) visit(n, node.children);
  });
  return paths.map((path) => path.map((n) => modelLogprob[n]!));
}

/**
 * Per layer, the cached keys and values of every request, [batch, heads, past, headDim]: a
 * request's first `hit.length` columns, zeros after (its attention bias hides them), gathered in
 * one op per layer from the groups the hits lie in.
 */
function pastOf(
  model: TransformerModel,
  hits: readonly (PrefixHit | undefined)[],
  past: number,
): LayerCache[] {
  const { nLayers, nHeads, dModel } = model.config;
  const headDim = dModel / nHeads;
  const groups = [...new Set(hits.flatMap((hit) => (hit === undefined ? [] : [hit.group])))];
  const offsets = new Map<PrefixHit['group'], number>();
  let rows = 0;
  for (const group of groups) {
    offsets.set(group, rows);
    rows += group.layers[0]!.k.size / headDim;
  }
  // Row `rows` of the sources is zeros: the columns past a hit's length read it.
  const index = new Int32Array(hits.length * nHeads * past).fill(rows);
  hits.forEach((hit, b) => {
    if (hit === undefined) return;
    const [, , columns] = hit.group.layers[0]!.k.shape;
    const offset = offsets.get(hit.group)!;
    for (let h = 0; h < nHeads; h++) {
      const from = offset + (hit.row * nHeads + h) * columns;
      const to = (b * nHeads + h) * past;
      for (let t = 0; t < hit.length; t++) {
        index[to + t] = from + (t < hit.reused ? t : hit.freshFrom + t - hit.reused);
      }
    }
  });
  const indices = tf.tensor1d(index, 'int32');
  const gather = (l: number, key: 'k' | 'v') =>
    tf.reshape(
      tf.gather(
        tf.concat([
          ...groups.map((g) => tf.reshape(g.layers[l]![key], [-1, headDim])),
          tf.zeros([1, headDim]),
        ]),
        indices,
      ),
      [hits.length, nHeads, past, headDim],
    ) as tf.Tensor4D;
  return Array.from({ length: nLayers }, (_, l) => ({ k: gather(l, 'k'), v: gather(l, 'v') }));
}

/** log Σ exp(values[offset .. offset + length)), in float64; indexed loops, no copy (a hot path). */
function rowLogSumExp(values: Float32Array, offset: number, length: number): number {
  const end = offset + length;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = offset; i < end; i++) if (values[i]! > max) max = values[i]!;
  let total = 0;
  for (let i = offset; i < end; i++) total += Math.exp(values[i]! - max);
  return max + Math.log(total);
}

/** log Σ exp(scale · values[offset + token]) over the children's tokens, in their insertion order. */
function childrenLogSumExp(
  values: Float32Array,
  offset: number,
  children: ReadonlyMap<number, number>,
  scale: number,
): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const token of children.keys())
    if (values[offset + token]! * scale > max) max = values[offset + token]! * scale;
  let total = 0;
  for (const token of children.keys()) total += Math.exp(values[offset + token]! * scale - max);
  return max + Math.log(total);
}
