// Zod schemas of the Tinker API's JSON answers, transcribed from SkyRL 0.4.0's pydantic models
// (`skyrl/tinker/api.py`, `types.py`) and the SDK's types. Parsed leniently: unknown fields are
// ignored, since the hosted service adds fields SkyRL does not have.
import { z } from 'zod';

export const clientConfigSchema = z.object({ pjwt_auth_enabled: z.boolean().default(false) });

export const serverCapabilitiesSchema = z.object({
  supported_models: z.array(z.object({ model_name: z.string().nullish() })),
});

export const createSessionSchema = z.object({
  session_id: z.string().min(1),
  info_message: z.string().nullish(),
  warning_message: z.string().nullish(),
  error_message: z.string().nullish(),
});

/** SkyRL answers create_model at once with the model id; the hosted service answers a future. */
export const createModelSchema = z.object({
  model_id: z.string().min(1).optional(),
  request_id: z.union([z.string(), z.number()]).transform(String).optional(),
});

export const futureSchema = z.object({
  request_id: z.union([z.string(), z.number()]).transform(String),
});

export const createModelResultSchema = z.object({ model_id: z.string().min(1) });

export const optimStepResultSchema = z.object({
  metrics: z.record(z.string(), z.number().nullable()).nullish(),
});

export const weightsPathResultSchema = z.object({
  path: z.string().nullish(),
  sampling_session_id: z.string().nullish(),
});

export const modelInfoSchema = z.object({
  model_id: z.string(),
  status: z.string().optional(),
  model_data: z
    .object({
      base_model: z.string().optional(),
      lora_config: z.object({ rank: z.number() }).nullish(),
    })
    .optional(),
});
