// Chat templates read from a model directory: Qwen3's and Llama 3's recognised and rendered as
// their Jinja does (checked against transformers in hf-models.engine.test.ts), anything else
// refused naming the file it came from.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readChatTemplate } from './hf-chat-template';

const scratch = mkdtempSync(join(tmpdir(), 'pilotrl-chat-template-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The markers of Qwen3's and Llama 3's templates; the rendering itself is ours, not this text's.
const QWEN3_LIKE =
  "{%- set ns = namespace(last_query_index=messages|length - 1) %}{{- '<|im_start|>' + message.role }}{{- '<think>\\n\\n</think>\\n\\n' }}";
const LLAMA3_LIKE =
  "{{ bos_token + '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}";

let count = 0;
function dir(files: Record<string, string>): string {
  const path = join(scratch, `m${count++}`);
  mkdirSync(path);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(path, name), text);
  return path;
}

describe('chat templates', () => {
  it("renders Qwen3's: system first, an empty thinking block before the last reply and when thinking is off", async () => {
    const template = await readChatTemplate(dir({ 'chat_template.jinja': QWEN3_LIKE }));
    expect(template.family).toBe('qwen3');
    const messages = [
      { role: 'system', content: 'Act.' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '<think>\nwhy\n</think>\n\ngo to desk 1' },
    ] as const;
    expect(template.render(messages, { addGenerationPrompt: false })).toBe(
      '<|im_start|>system\nAct.<|im_end|>\n<|im_start|>user\ngo<|im_end|>\n<|im_start|>assistant\n<think>\nwhy\n</think>\n\ngo to desk 1<|im_end|>\n',
    );
    expect(template.render(messages.slice(0, 2), { enableThinking: false })).toBe(
      '<|im_start|>system\nAct.<|im_end|>\n<|im_start|>user\ngo<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n',
    );
  });

  it("renders Llama 3's from tokenizer_config.json, with its bos token and trimmed contents", async () => {
    const template = await readChatTemplate(
      dir({
        'tokenizer_config.json': JSON.stringify({
          chat_template: LLAMA3_LIKE,
          bos_token: '<|begin_of_text|>',
        }),
      }),
    );
    expect(template.render([{ role: 'user', content: '  hi \n' }])).toBe(
      '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
    );
  });

  it('refuses other templates, naming the file', async () => {
    const chatMl = dir({
      'tokenizer_config.json': JSON.stringify({ chat_template: "{{ '<|im_start|>' + message.role }}" }),
    });
    await expect(readChatTemplate(chatMl)).rejects.toThrow(
      `${join(chatMl, 'tokenizer_config.json')}: chat_template is not one rendered here (Qwen3's or Llama 3's)`,
    );
    const llama31 = dir({ 'chat_template.jinja': `Cutting Knowledge Date: December 2023 ${LLAMA3_LIKE}` });
    await expect(readChatTemplate(llama31)).rejects.toThrow(
      `${join(llama31, 'chat_template.jinja')}: chat_template is not one`,
    );
    await expect(readChatTemplate(dir({}))).rejects.toThrow(/no chat template/);
  });
});
