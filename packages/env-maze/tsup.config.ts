import { packageBuild } from '../../tooling/tsup-config';

// esbuild drops the source files' comments, so every output file says which third-party material
// it carries and where its license is.
export default packageBuild(undefined, {
  banner: {
    js: "/*! @pilotrl/env-maze includes the LMRL-Gym maze layout (https://github.com/abdulhaim/LMRL-Gym), MIT License, (c) 2022 Charlie Snell, and AgentGym's Maze prompt (https://github.com/WooooDyy/AgentGym), MIT License, (c) 2023 FudanNLP-Agent: see THIRD_PARTY_NOTICES.md */",
  },
});
