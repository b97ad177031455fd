import { packageBuild } from '../../tooling/tsup-config';

// The bundle carries ALFWorld's data (src/data); esbuild drops the source files' comments, so
// every output file says where the data comes from and where its license is.
export default packageBuild(['src/index.ts', 'src/replay-cli.ts'], {
  banner: {
    js: '/*! @pilotrl/env-alfworld includes data from ALFWorld (https://github.com/alfworld/alfworld), MIT License, (c) 2020 Mohit Shridhar and others: see THIRD_PARTY_NOTICES.md */',
  },
});
