// The plan judges a curriculum's plan stage can name (`judge: reference`), each a descriptor:
// what it requires of the run (`llm`: the config's chat model) and how to make it. Register your
// own with `judgeRegistry.register(descriptor.id, descriptor)`, or ship it in a plug-in.
import { createRegistry, InvalidArgumentError, type JudgeDescriptor } from '@pilotrl/core';
import { createLlmJudge } from './llm-judge';
import { createReferenceJudge } from './reference-judge';

export const judgeRegistry = createRegistry<JudgeDescriptor>('judge');

const builtinJudges: JudgeDescriptor[] = [
  {
    id: 'reference',
    description: "the deterministic rubric judge, against the oracle's plan and actions",
    requires: [],
    create: () => createReferenceJudge(),
  },
  {
    id: 'llm',
    description: 'an LLM asked for the rubric as JSON, re-asked after an answer that is not',
    requires: ['llm'],
    create: ({ chatModel }) => {
      if (chatModel === undefined)
        throw new InvalidArgumentError('the llm judge needs a chat model (an `llm` section)');
      return createLlmJudge({ client: chatModel });
    },
  },
];
for (const descriptor of builtinJudges) judgeRegistry.register(descriptor.id, descriptor);
