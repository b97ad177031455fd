import { packageBuild } from '../../tooling/tsup-config';

// esbuild drops the source files' comments, so every output file says which third-party material
// it carries and where its license is.
export default packageBuild(undefined, {
  banner: {
    js: "/*! @pilotrl/env-babyai includes BabyAI level start states generated with Minigrid (https://github.com/Farama-Foundation/Minigrid), Apache License 2.0, (c) 2020 Maxime Chevalier-Boisvert and Farama Foundation, and AgentGym's BabyAI text interface and prompt (https://github.com/WooooDyy/AgentGym), MIT License, (c) 2023 FudanNLP-Agent: see THIRD_PARTY_NOTICES.md */",
  },
});
