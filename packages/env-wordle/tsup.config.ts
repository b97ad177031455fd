import { packageBuild } from '../../tooling/tsup-config';

// esbuild drops the source files' comments, so every output file says which third-party material
// it carries and where its license is.
export default packageBuild(undefined, {
  banner: {
    js: "/*! @pilotrl/env-wordle includes the LMRL-Gym Wordle word lists (https://github.com/abdulhaim/LMRL-Gym), MIT License, (c) 2022 Charlie Snell, and AgentGym's Wordle prompt (https://github.com/WooooDyy/AgentGym), MIT License, (c) 2023 FudanNLP-Agent: see THIRD_PARTY_NOTICES.md */",
  },
});
