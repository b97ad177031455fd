// AdamW over the model's variables: global-norm gradient clipping, bias-corrected moments and
// decoupled weight decay on matrices only (biases, gains and other vectors are not decayed).
import type { AdamParams } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';

type ResolvedAdam = Required<Omit<AdamParams, 'gradClipNorm'>> & { gradClipNorm?: number | undefined };

export class AdamW {
  /** Number of steps taken (for bias correction). */
  step = 0;
  readonly moments = new Map<string, { m: tf.Variable; v: tf.Variable }>();

  /** Applies `grads` to `weights`; returns the global gradient norm before clipping. */
  apply(
    weights: ReadonlyMap<string, tf.Variable>,
    grads: ReadonlyMap<string, tf.Tensor>,
    params: ResolvedAdam,
  ): number {
    const gradNorm = tf.tidy(() => {
      const squares = [...grads.values()].map((g) => tf.sum(tf.square(g)));
      return Math.sqrt(tf.addN(squares).dataSync()[0]!);
    });
    const clip = params.gradClipNorm;
    const scale = clip !== undefined && gradNorm > clip ? clip / (gradNorm + 1e-6) : 1;
    this.step += 1;
    const { learningRate: lr, beta1, beta2, eps, weightDecay } = params;
    const correction1 = 1 - beta1 ** this.step;
    const correction2 = 1 - beta2 ** this.step;
    for (const [name, grad] of grads) {
      const weight = weights.get(name)!;
      let state = this.moments.get(name);
      if (state === undefined) {
        state = tf.tidy(() => ({
          m: tf.variable(tf.zerosLike(weight), false),
          v: tf.variable(tf.zerosLike(weight), false),
        }));
        this.moments.set(name, state);
      }
      const { m, v } = state;
      tf.tidy(() => {
        const g = scale === 1 ? grad : tf.mul(grad, scale);
        const m1 = tf.add(tf.mul(m, beta1), tf.mul(g, 1 - beta1));
        const v1 = tf.add(tf.mul(v, beta2), tf.mul(tf.square(g), 1 - beta2));
        const update = tf.div(tf.div(m1, correction1), tf.add(tf.sqrt(tf.div(v1, correction2)), eps));
        const decay = weight.rank >= 2 ? weightDecay : 0;
        const decayed = decay === 0 ? weight : tf.mul(weight, 1 - lr * decay);
        weight.assign(tf.sub(decayed, tf.mul(update, lr)));
        m.assign(m1);
        v.assign(v1);
      });
    }
    return gradNorm;
  }

  dispose(): void {
    for (const { m, v } of this.moments.values()) tf.dispose([m, v]);
    this.moments.clear();
  }
}
