// Fixtures for tests of code built on this package (the `./test` subpath): a tiny Qwen3 model
// directory of random weights from a seed, which `loadHfPretrained` and `HfPolicy` open as they
// open a real one.

export { TINY_VOCAB_SIZE, tinyDirConfig, writeTinyHfDir } from './hf/tiny-hf-dir.testing';
