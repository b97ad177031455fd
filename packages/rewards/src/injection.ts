// Detection of agent text that tries to instruct the judge (prompt injection). Both judges flag
// such plans as `instruction_injection` and cap their scores, so injecting never pays.

const PATTERNS: readonly [string, RegExp][] = [
  [
    'ignore-instructions',
    /\b(ignore|disregard|override|forget|bypass|skip)\b.{0,40}\b(rubric|instructions?|rules|criteria|guidelines|prompt|above|previous|scoring)\b/i,
  ],
  [
    'score-demand',
    /\b(give|assign|award|output|return|grant)\b.{0,40}\b(scores?|ratings?|marks?|points|grades?)\b/i,
  ],
  ['score-value', /\b(scores?|rate|rating|grade)\b.{0,30}\b(5|five|full|max(imum)?|perfect|highest|top)\b/i],
  ['full-marks', /\b(full|perfect|maximum|top)\s+(marks|scores?|ratings?|points)\b/i],
  [
    'addresses-judge',
    /\b(you are|act as|as an?|dear|note to( the)?|attention)\s+(an?\s+)?(the\s+)?(judge|evaluator|grader|reviewer|assistant|ai|language model|llm)\b/i,
  ],
  [
    'judge-obligation',
    /\b(judges?|evaluators?|graders?|reviewers?)\b.{0,30}\b(must|should|shall|will|need to|has to)\b/i,
  ],
  ['role-marker', /(^|\n|\s)(system|assistant|user|developer)\s*:/i],
  ['markup', /<\/?\s*(system|instructions?|im_start|im_end|prompt|rubric)\b/i],
  ['rubric-json', /"?(correctness|followability|standardi[sz]ation)"?\s*[:=]/i],
  ['new-instructions', /\bnew\s+(instructions?|rules|task)\b/i],
];

/** Names of the injection patterns found in `text`; empty when none. */
export function detectInstructionInjection(text: string): string[] {
  return PATTERNS.filter(([, pattern]) => pattern.test(text)).map(([name]) => name);
}

export const INJECTION_FLAG = 'instruction_injection';
