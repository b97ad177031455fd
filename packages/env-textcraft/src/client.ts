// What AgentGym's TextCraft client sends the server for a model reply. The 2024 client (all of
// AgentTraj-L) keeps the text after the last `Action:` and before any `Instruction:`, drops every
// character outside `[A-Za-z0-9, ]` and collapses whitespace; the 2025 client takes the single
// `Action:` line and refuses a reply with several without asking the server.
export type ClientVersion = '2024' | '2025';

/** The 2025 client's answer to a reply with more than one `Action:` (reward 0, not done). */
export const TEXTCRAFT_MULTIPLE_ACTIONS_ERROR =
  "Error: Only one 'Action' is allowed per response. Please adjust your response.";

const clean = (text: string) =>
  text
    .replace(/[^A-Za-z0-9, ]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The command the client sends for `reply`, or `{ refused }` with the observation the 2025 client
 * returns itself when the reply has several `Action:` lines.
 */
export function textcraftClientAction(
  reply: string,
  version: ClientVersion = '2024',
): { action: string } | { refused: string } {
  if (version === '2024') return { action: clean(reply.split('Instruction:')[0]!.split('Action:').at(-1)!) };
  const found = [...reply.matchAll(/Action:\s*(.*?)(?=\n|$)/gs)].map((match) => match[1]!);
  if (found.length > 1) return { refused: TEXTCRAFT_MULTIPLE_ACTIONS_ERROR };
  return { action: clean(found[0] ?? '') };
}
