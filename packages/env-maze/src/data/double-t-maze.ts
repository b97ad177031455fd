// LMRL-Gym's `double_t_maze` and AgentGym's start cells. Sources: abdulhaim/LMRL-Gym @
// 83abeedb3a461c3d7d20572b73318a259d85f2ac, llm_rl_scripts/maze/env/mazes.py (`double_t_maze`; MIT,
// Copyright (c) 2022 Charlie Snell), and WooooDyy/AgentGym @ 3ef9235d23e68e7c2920c5422ad957dc8ced5c6c,
// agentenv-lmrlgym/agentenv_lmrlgym/maze/environment.py (`start_positions`) and maze/utils.py (the
// goal; MIT, Copyright (c) 2023 FudanNLP-Agent). See THIRD_PARTY_NOTICES.md in this package.

/** Rows top to bottom, `1` a wall and `0` open; 10 rows of 13 columns. */
export const DOUBLE_T_MAZE = [
  '1111111111111',
  '1000001000001',
  '1110111110111',
  '1110111110111',
  '1110111110111',
  '1110000000111',
  '1111110111111',
  '1111110111111',
  '1111110111111',
  '1111111111111',
] as const;

/** The goal cell as (row, column). */
export const MAZE_GOAL: readonly [number, number] = [8, 6];

/** AgentGym's start cell of each game (its `game` argument indexes this list); game 25 is the goal. */
export const AGENTGYM_START_POSITIONS: readonly (readonly [number, number])[] = [
  [1, 1],
  [1, 2],
  [1, 3],
  [1, 4],
  [1, 5],
  [1, 7],
  [1, 8],
  [1, 9],
  [1, 10],
  [1, 11],
  [2, 3],
  [3, 3],
  [4, 3],
  [5, 3],
  [5, 4],
  [5, 5],
  [5, 6],
  [6, 6],
  [7, 6],
  [5, 7],
  [5, 8],
  [5, 9],
  [4, 9],
  [3, 9],
  [2, 9],
  [8, 6],
];
