import { packageBuild } from '../../tooling/tsup-config';

export default packageBuild(['src/index.ts', 'src/replay-cli.ts']);
