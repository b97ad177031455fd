// ALFWorld's compact episode view: the goal, what the agent holds, the receptacles it visited (most
// recent last, at most eight) and the last command with what it showed. Everything a policy needs
// to act in a few dozen tokens, where the conversation grows by a whole observation per turn.
import type { EpisodeView, EpisodeViewFactory } from '@pilotrl/core';

/** Receptacles named in the prompt; older visits fall off so the prompt stays short. */
const SHOWN_VISITS = 8;

class AlfworldStateView implements EpisodeView {
  private holding = 'nothing';
  private readonly visited: string[] = [];
  private lastAction = '';
  private lastObservation = '';

  constructor(private readonly goal: string) {}

  observe(action: string, observation: string): void {
    this.lastAction = action;
    this.lastObservation = observation.replace(/^You arrive at loc \d+\. /, '').trim();
    const go = /^go to (.+)$/.exec(action);
    if (go) {
      const seen = this.visited.indexOf(go[1]!);
      if (seen >= 0) this.visited.splice(seen, 1);
      this.visited.push(go[1]!);
    }
    const take = /^take (.+?) from /.exec(action);
    if (take && observation.startsWith('You pick up')) this.holding = take[1]!;
    // Older game files write `put X in/on Y` ("You put ..."), current ones `move X to Y` ("You move ...").
    if (/^(put|move) /.test(action) && /^You (put|move) /.test(observation)) this.holding = 'nothing';
  }

  prompt(): string {
    const lines = [
      this.goal,
      `holding: ${this.holding}`,
      `visited: ${this.visited.slice(-SHOWN_VISITS).join(', ') || 'none'}`,
    ];
    if (this.lastAction !== '') lines.push(`> ${this.lastAction}`, this.lastObservation);
    return lines.join('\n');
  }
}

/** The compact view of an ALFWorld episode (for `AgentOptions.view`). */
export const alfworldStateView: EpisodeViewFactory = ({ goal }) => new AlfworldStateView(goal);
