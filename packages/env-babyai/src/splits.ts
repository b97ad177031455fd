// AgentGym's 40 BabyAI levels and which of them, with which seeds, make up this package's splits.
// AgentGym resets data index `i` as level `i % 40 + 1` with seed `floor(i / 40)`.

/** AgentGym's `all_levels` (`environment.py`), level number 1-40 at index 0-39. */
export const AGENTGYM_LEVELS = [
  'BabyAI-GoToRedBallGrey-v0',
  'BabyAI-GoToRedBall-v0',
  'BabyAI-GoToRedBallNoDists-v0',
  'BabyAI-GoToObjS6-v0',
  'BabyAI-GoToLocalS8N7-v0',
  'BabyAI-GoToObjMazeS7-v0',
  'BabyAI-GoToImpUnlock-v0',
  'BabyAI-GoToSeqS5R2-v0',
  'BabyAI-GoToRedBlueBall-v0',
  'BabyAI-GoToDoor-v0',
  'BabyAI-GoToObjDoor-v0',
  'BabyAI-Open-v0',
  'BabyAI-OpenRedDoor-v0',
  'BabyAI-OpenDoorLoc-v0',
  'BabyAI-OpenRedBlueDoorsDebug-v0',
  'BabyAI-OpenDoorsOrderN4Debug-v0',
  'BabyAI-Pickup-v0',
  'BabyAI-UnblockPickup-v0',
  'BabyAI-PickupLoc-v0',
  'BabyAI-PickupDistDebug-v0',
  'BabyAI-PickupAbove-v0',
  'BabyAI-PutNextLocalS6N4-v0',
  'BabyAI-PutNextS7N4Carrying-v0',
  'BabyAI-Unlock-v0',
  'BabyAI-UnlockLocalDist-v0',
  'BabyAI-KeyInBox-v0',
  'BabyAI-UnlockPickupDist-v0',
  'BabyAI-BlockedUnlockPickup-v0',
  'BabyAI-UnlockToUnlock-v0',
  'BabyAI-ActionObjDoor-v0',
  'BabyAI-FindObjS7-v0',
  'BabyAI-KeyCorridorS6R3-v0',
  'BabyAI-OneRoomS20-v0',
  'BabyAI-MoveTwoAcrossS8N9-v0',
  'BabyAI-SynthS5R2-v0',
  'BabyAI-SynthLoc-v0',
  'BabyAI-SynthSeq-v0',
  'BabyAI-MiniBossLevel-v0',
  'BabyAI-BossLevel-v0',
  'BabyAI-BossLevelNoUnlock-v0',
] as const;

/** The 18 levels AgentTraj and AgentEval use (level numbers). */
export const AGENTGYM_DATA_LEVELS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 19, 20, 21, 30, 31, 33, 36] as const;

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);

/**
 * The splits: `train`, AgentGym's 18 data levels with seeds 0-44 (810 tasks, as many as AgentTraj);
 * `valid_seen`, the same levels with seeds 45-49; `valid_unseen`, six AgentGym levels that train
 * never shows (opening doors, unlocking, putting an object next to another) with seeds 0-9.
 */
export const BABYAI_SPLIT_PLAN = {
  train: { levels: AGENTGYM_DATA_LEVELS, seeds: range(0, 45) },
  valid_seen: { levels: AGENTGYM_DATA_LEVELS, seeds: range(45, 50) },
  valid_unseen: { levels: [12, 13, 14, 17, 22, 24], seeds: range(0, 10) },
} as const;
export type BabyaiSplit = keyof typeof BABYAI_SPLIT_PLAN;
