import { packageBuild } from '../../tooling/tsup-config';

export default packageBuild();
