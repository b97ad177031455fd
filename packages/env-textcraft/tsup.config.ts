import { packageBuild } from '../../tooling/tsup-config';

// esbuild drops the source files' comments, so every output file says which third-party material
// it carries and where its license is.
export default packageBuild(undefined, {
  banner: {
    js: "/*! @pilotrl/env-textcraft includes AgentGym's TextCraft prompts and game rules (https://github.com/WooooDyy/AgentGym), MIT License, (c) 2023 FudanNLP-Agent: see THIRD_PARTY_NOTICES.md */",
  },
});
