// A constrained choice's answer, checked against the choices it was given.
import { type GenerateResult, InvalidArgumentError } from '@pilotrl/core';

/** The choice a result names; a policy that answered anything else is at fault, and told so. */
export function chosenCommand(
  policyName: string,
  choices: readonly string[],
  result: GenerateResult,
): string {
  const index = result.choiceIndex ?? choices.indexOf(result.text);
  if (choices[index] !== result.text) {
    throw new InvalidArgumentError(
      `policy "${policyName}" answered a choice among ${choices.length} admissible commands with ${JSON.stringify(result.text)}${result.choiceIndex === undefined ? '' : ` (choiceIndex ${result.choiceIndex})`}, which is not that choice; a policy must return one of the \`choices\` exactly`,
    );
  }
  return result.text;
}
