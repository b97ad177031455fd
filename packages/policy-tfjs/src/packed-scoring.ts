// Packed scoring: a prompt and many candidate continuations in one sequence. The candidates are
// merged into a trie (shared prefixes become shared tokens); each trie token attends to the
// prompt and its own ancestors and sits at position promptLength + depth, so its logits equal
// those of a plain causal pass over prompt + that candidate. One forward pass gives every
// candidate's token logprobs, and the exact constrained distribution of decoding restricted to
// the candidates (a softmax over the allowed children at every trie node).
import * as tf from '@tensorflow/tfjs-core';
import { inScope, MASKED, type TransformerModel } from './model';
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

export interface CandidateScores {
  /** Per candidate, the model's logprob of each of its tokens. */
  tokenLogprobs: number[][];
  /** Per candidate, the logprob of each token under decoding constrained to the candidates. */
  constrainedTokenLogprobs: number[][];
  /** Per candidate, the sum of its constrained token logprobs: log P(candidate | constrained). */
  constrainedLogprobs: number[];
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

/** Scores the candidates of every request in one batched forward pass. */
export function scoreCandidates(
  model: TransformerModel,
  requests: readonly ScoreRequest[],
): CandidateScores[] {
  const tries = requests.map((r) => buildTrie(r.candidates));
  const width = Math.max(...requests.map((r, i) => r.prompt.length + tries[i]!.nodes.length));
  const batch = requests.length;
  const ids = new Int32Array(batch * width).fill(PAD_ID);
  const positions = new Int32Array(batch * width);
  const bias = new Float32Array(batch * width * width).fill(MASKED);
  // Rows whose logits are needed: the prompt end and every trie node with children.
  const predictorRows: number[] = [];
  const rowOfState: Map<number, number>[] = [];
  requests.forEach((request, b) => {
    const { nodes } = tries[b]!;
    const p = request.prompt.length;
    const base = b * width;
    const states = new Map<number, number>();
    for (let i = 0; i < width; i++) {
      const row = (base + i) * width;
      if (i < p) {
        ids[base + i] = request.prompt[i]!;
        positions[base + i] = i;
        bias.fill(0, row, row + i + 1);
      } else if (i < p + nodes.length) {
        const node = nodes[i - p]!;
        ids[base + i] = node.token;
        positions[base + i] = p + node.depth;
        bias.fill(0, row, row + p);
        for (let a = i - p; a >= 0; a = nodes[a]!.parent) bias[row + p + a] = 0;
      } else {
        bias[row + i] = 0;
      }
    }
    states.set(-1, predictorRows.length);
    predictorRows.push(base + p - 1);
    nodes.forEach((node, n) => {
      if (node.children.size > 0) {
        states.set(n, predictorRows.length);
        predictorRows.push(base + p + n);
      }
    });
    rowOfState.push(states);
  });

  const vocab = model.config.vocabSize;
  const logits = inScope(() => {
    const { hidden } = model.run(
      tf.tensor2d(ids, [batch, width], 'int32'),
      tf.tensor2d(positions, [batch, width], 'int32'),
      tf.tensor4d(bias, [batch, 1, width, width]),
    );
    const rows = tf.gather(hidden, tf.tensor1d(predictorRows, 'int32')) as tf.Tensor2D;
    return model.logits(rows).dataSync() as Float32Array;
  });

  return requests.map((request, b) => {
    const { nodes, roots, paths } = tries[b]!;
    const states = rowOfState[b]!;
    const temperature =
      request.temperature === undefined || request.temperature === 0 ? 1 : request.temperature;
    // Per node: model logprob and constrained logprob of its token given its parent state.
    const modelLogprob = new Float64Array(nodes.length);
    const constrained = new Float64Array(nodes.length);
    const visit = (state: number, children: Map<number, number>) => {
      const offset = states.get(state)! * vocab;
      const row = logits.subarray(offset, offset + vocab);
      const logZ = logSumExp(row, 1);
      const allowed = [...children.keys()];
      const allowedZ = logSumExp(
        Float32Array.from(allowed, (t) => row[t]!),
        1 / temperature,
      );
      for (const [token, n] of children) {
        modelLogprob[n] = row[token]! - logZ;
        constrained[n] = row[token]! / temperature - allowedZ;
      }
    };
    visit(-1, roots);
    nodes.forEach((node, n) => {
      if (node.children.size > 0) visit(n, node.children);
    });
    const tokenLogprobs = paths.map((path) => path.map((n) => modelLogprob[n]!));
    const constrainedTokenLogprobs = paths.map((path) => path.map((n) => constrained[n]!));
    return {
      tokenLogprobs,
      constrainedTokenLogprobs,
      constrainedLogprobs: constrainedTokenLogprobs.map((values) => values.reduce((s, v) => s + v, 0)),
    };
  });
}

/** log Σ exp(scale · values). */
function logSumExp(values: Float32Array, scale: number): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) if (v * scale > max) max = v * scale;
  let total = 0;
  for (const v of values) total += Math.exp(v * scale - max);
  return max + Math.log(total);
}
