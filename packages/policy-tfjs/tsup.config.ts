import { packageBuild } from '../../tooling/tsup-config';

export default packageBuild(['src/index.ts', 'src/tfjs-bin.ts']);
