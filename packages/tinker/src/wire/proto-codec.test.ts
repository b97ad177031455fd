import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { packFloat32, packInt32, packInt64, unpackFloat32, unpackInt32, unpackInt64 } from './packed-arrays';
import {
  decodeForwardBackwardOutput,
  decodeSampleResponse,
  encodeForwardBackwardRequest,
} from './proto-codec';
import {
  DType,
  ForwardBackwardOutputSchema,
  ForwardBackwardRequestSchema,
  SampleResponseSchema,
  StopReason,
} from './tinker-public.generated';

describe('the forward_backward request', () => {
  it('carries tokens as int32, target tokens as int64 and the rest as float32', () => {
    const bytes = encodeForwardBackwardRequest({
      modelId: 'model_1',
      seqId: 7,
      lossFn: 'ppo',
      lossFnConfig: { clip_low_threshold: 0.8, clip_high_threshold: 1.2 },
      forwardOnly: false,
      data: [{ modelInput: [5, 6], lossFnInputs: { target_tokens: [6, 7], weights: [1, 0.5] } }],
    });
    const message = fromBinary(ForwardBackwardRequestSchema, bytes);
    expect(message).toMatchObject({ modelId: 'model_1', seqId: 7, lossFn: 'ppo', forwardOnly: false });
    expect(message.lossFnConfig).toEqual({ clip_low_threshold: 0.8, clip_high_threshold: 1.2 });
    const [datum] = message.data;
    const chunk = datum!.modelInput[0]!.chunk;
    expect(chunk.case).toBe('encodedText');
    expect(unpackInt32(chunk.case === 'encodedText' ? chunk.value.tokens : new Uint8Array())).toEqual([5, 6]);
    const targets = datum!.lossFnInputs.target_tokens!;
    expect(targets.dtype).toBe(DType.DTYPE_INT64);
    expect(unpackInt64(targets.encoding.value as Uint8Array)).toEqual([6, 7]);
    const weights = datum!.lossFnInputs.weights!;
    expect(weights.dtype).toBe(DType.DTYPE_FLOAT32);
    expect(unpackFloat32(weights.encoding.value as Uint8Array)).toEqual([1, 0.5]);
  });
});

describe('results', () => {
  it('splits a batched output into datums by its byte offsets', () => {
    const logprobs = [[-1.5, -2.25], [-0.5]];
    const message = create(ForwardBackwardOutputSchema, {
      lossFnOutputType: 'scalar',
      metrics: { 'loss:sum': 4.25 },
      lossFnOutputs: [
        {
          numDatums: 2n,
          fields: {
            logprobs: {
              dtype: DType.DTYPE_FLOAT32,
              data: packFloat32(logprobs.flat()),
              offsets: packInt64([0, 8, 12]),
            },
          },
        },
      ],
    });
    expect(decodeForwardBackwardOutput(toBinary(ForwardBackwardOutputSchema, message))).toEqual({
      lossFnOutputType: 'scalar',
      outputs: [{ logprobs: logprobs[0] }, { logprobs: logprobs[1] }],
      metrics: { 'loss:sum': 4.25 },
    });
  });

  it('reads sampled tokens, logprobs and stop reasons', () => {
    const message = create(SampleResponseSchema, {
      sequences: [
        { tokens: packInt32([3, 4]), logprobs: packFloat32([-0.5, -1]), stopReason: StopReason.STOP },
        { tokens: packInt32([9]), stopReason: StopReason.LENGTH },
      ],
    });
    expect(decodeSampleResponse(toBinary(SampleResponseSchema, message))).toEqual({
      sequences: [
        { tokens: [3, 4], logprobs: [-0.5, -1], stopReason: 'stop' },
        { tokens: [9], logprobs: undefined, stopReason: 'length' },
      ],
      promptLogprobs: undefined,
    });
  });

  it('refuses a payload that is not a whole number of values', () => {
    expect(() => unpackFloat32(new Uint8Array(6), 'logprobs')).toThrow(/logprobs: 6 bytes/);
  });
});
