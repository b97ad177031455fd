import { packageBuild } from '../../tooling/tsup-config';

export default packageBuild(['src/index.ts', 'src/test.ts', 'src/tfjs-bin.ts']);
