// The protobuf side of the Tinker wire: the forward_backward request body (SkyRL 0.4.0 and the SDK
// since 0.25 take it only as protobuf; `forward_only` turns it into a forward pass) and the results
// of forward, forward_backward and sample futures, which SkyRL answers as protobuf. Types and
// framing come from the schema generated from the official SDK (tinker-public.generated.ts).
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  packFloat32,
  packInt32,
  packInt64,
  unpackBfloat16,
  unpackFloat32,
  unpackInt32,
  unpackInt64,
} from './packed-arrays';
import type { TinkerDatum } from './tinker-datum';
import {
  type BatchedTensor,
  ChunkSchema,
  DatumSchema,
  DType,
  EncodedTextChunkSchema,
  ForwardBackwardOutputSchema,
  ForwardBackwardRequestSchema,
  SampleResponseSchema,
  StopReason,
  type Tensor,
  TensorSchema,
} from './tinker-public.generated';

export const PROTO_CONTENT_TYPE = 'application/x-protobuf';

export interface ForwardBackwardWireRequest {
  modelId: string;
  seqId: number;
  lossFn: string;
  lossFnConfig?: Readonly<Record<string, number>> | undefined;
  forwardOnly: boolean;
  data: readonly TinkerDatum[];
}

/** Tinker's integer inputs (target tokens) travel as int64, everything else as float32. */
const INT64_INPUTS = new Set(['target_tokens']);

function tensorOf(name: string, values: readonly number[]): Tensor {
  const int64 = INT64_INPUTS.has(name);
  return create(TensorSchema, {
    dtype: int64 ? DType.DTYPE_INT64 : DType.DTYPE_FLOAT32,
    shape: [BigInt(values.length)],
    encoding: { case: 'dense', value: int64 ? packInt64(values) : packFloat32(values) },
  });
}

export function encodeForwardBackwardRequest(request: ForwardBackwardWireRequest): Uint8Array {
  const message = create(ForwardBackwardRequestSchema, {
    modelId: request.modelId,
    seqId: request.seqId,
    lossFn: request.lossFn,
    lossFnConfig: { ...(request.lossFnConfig ?? {}) },
    forwardOnly: request.forwardOnly,
    data: request.data.map((datum) =>
      create(DatumSchema, {
        modelInput: [
          create(ChunkSchema, {
            chunk: {
              case: 'encodedText',
              value: create(EncodedTextChunkSchema, { tokens: packInt32(datum.modelInput) }),
            },
          }),
        ],
        lossFnInputs: Object.fromEntries(
          Object.entries(datum.lossFnInputs).map(([name, values]) => [name, tensorOf(name, values)]),
        ),
      }),
    ),
  });
  return toBinary(ForwardBackwardRequestSchema, message);
}

export interface ForwardBackwardWireOutput {
  lossFnOutputType: string;
  /** Per datum, each output field (`logprobs`, `elementwise_loss`) as a flat array. */
  outputs: Record<string, number[]>[];
  metrics: Record<string, number>;
}

function unpackBatched(tensor: BatchedTensor, name: string): number[][] {
  const width = {
    [DType.DTYPE_FLOAT32]: 4,
    [DType.DTYPE_INT64]: 8,
    [DType.DTYPE_INT32]: 4,
    [DType.DTYPE_BFLOAT16]: 2,
  }[tensor.dtype as number];
  if (width === undefined) throw new RangeError(`output field ${name} has unsupported dtype ${tensor.dtype}`);
  const offsets = unpackInt64(tensor.offsets, `${name}.offsets`);
  const rows: number[][] = [];
  for (let i = 0; i + 1 < offsets.length; i++) {
    const slice = tensor.data.subarray(offsets[i], offsets[i + 1]);
    const what = `${name}[${i}]`;
    if (tensor.dtype === DType.DTYPE_FLOAT32) rows.push(unpackFloat32(slice, what));
    else if (tensor.dtype === DType.DTYPE_INT64) rows.push(unpackInt64(slice, what));
    else if (tensor.dtype === DType.DTYPE_INT32) rows.push(unpackInt32(slice, what));
    else rows.push(unpackBfloat16(slice, what));
  }
  return rows;
}

export function decodeForwardBackwardOutput(bytes: Uint8Array): ForwardBackwardWireOutput {
  const message = fromBinary(ForwardBackwardOutputSchema, bytes);
  const outputs: Record<string, number[]>[] = [];
  for (const record of message.lossFnOutputs) {
    const fields = Object.entries(record.fields).map(
      ([name, tensor]) => [name, unpackBatched(tensor, name)] as const,
    );
    const count = Number(record.numDatums) || (fields[0]?.[1].length ?? 0);
    for (let d = 0; d < count; d++) {
      outputs.push(Object.fromEntries(fields.map(([name, rows]) => [name, rows[d] ?? []])));
    }
  }
  return {
    lossFnOutputType: message.lossFnOutputType.split(':').at(-1) ?? '',
    outputs,
    metrics: { ...message.metrics },
  };
}

export interface SampledWireSequence {
  tokens: number[];
  logprobs: number[] | undefined;
  stopReason: 'stop' | 'length';
}

export interface SampleWireOutput {
  sequences: SampledWireSequence[];
  /** Logprob of each prompt token given the ones before it; NaN where there is none (the first). */
  promptLogprobs: number[] | undefined;
}

export function decodeSampleResponse(bytes: Uint8Array): SampleWireOutput {
  const message = fromBinary(SampleResponseSchema, bytes);
  return {
    sequences: message.sequences.map((sequence, i) => {
      if (sequence.stopReason !== StopReason.STOP && sequence.stopReason !== StopReason.LENGTH) {
        throw new RangeError(`sequence ${i} has an unknown stop reason ${sequence.stopReason}`);
      }
      return {
        tokens: unpackInt32(sequence.tokens, `sequences[${i}].tokens`),
        logprobs:
          sequence.logprobs === undefined || sequence.logprobs.byteLength === 0
            ? undefined
            : unpackFloat32(sequence.logprobs, `sequences[${i}].logprobs`),
        stopReason: sequence.stopReason === StopReason.STOP ? 'stop' : 'length',
      };
    }),
    promptLogprobs:
      message.promptLogprobs === undefined
        ? undefined
        : unpackFloat32(message.promptLogprobs, 'prompt_logprobs'),
  };
}
