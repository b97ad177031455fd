#!/usr/bin/env bash
# The GPU check: on a machine with an NVIDIA GPU, sets up the GPU tfjs backend
# (@tensorflow/tfjs-node-gpu on the TensorFlow C library and CUDA 12 libraries from PyPI's wheels:
# `pilotrl-tfjs setup --gpu`, several GB the first time) and the native CPU one, runs the policy
# bench (`pnpm --filter @pilotrl/policy-tfjs bench`) on each, and prints the GPU's tokens per second
# against the CPU's from this same run. Then it trains a Hugging Face model through HfPolicy on each
# backend (`bench:hf`, bench/hf-train.ts: a first step and three timed ones, every weight) and prints
# the two training rates and their ratio: the model in HF_MODEL_DIR (a Qwen3 or Llama directory)
# when given, else a random Qwen3 of hidden 512, 8 layers and vocabulary 8192, batch 8x256 tokens.
# Without a GPU, or without a driver for CUDA 12, it stops before installing anything, with one
# sentence saying which.
#   bash tooling/gpu-check.sh            # both bench sizes (1m, 5m)
#   bash tooling/gpu-check.sh --sizes=1m
#   HF_MODEL_DIR=models/Qwen3-0.6B bash tooling/gpu-check.sh
# NVIDIA_SMI=/path/to/nvidia-smi picks the driver's tool (default: nvidia-smi on PATH).
# Needs what `pnpm install` needs (Node 20+, pnpm, Python 3 with pip, a C++ compiler) and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "gpu check: $*" >&2
  exit 1
}

sizes="1m,5m"
for arg in "$@"; do
  case "$arg" in
    --sizes=*) sizes="${arg#--sizes=}" ;;
    *) fail "unknown argument '$arg' (usage: bash tooling/gpu-check.sh [--sizes=1m,5m])" ;;
  esac
done

# 1. A GPU, as the NVIDIA driver's own tool lists it.
smi="${NVIDIA_SMI:-nvidia-smi}"
if ! command -v "$smi" >/dev/null 2>&1; then
  fail "no NVIDIA GPU found: '$smi' is not installed, so this machine has no NVIDIA driver; run the check on a machine with an NVIDIA GPU and its driver."
fi
if ! gpus="$("$smi" --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1)" || [[ -z "$gpus" ]]; then
  fail "no NVIDIA GPU found: '$smi' lists none (${gpus:-no output}); check that the GPU is visible to this machine and its driver is loaded."
fi
echo "gpu check: NVIDIA GPU: ${gpus//$'\n'/; }"

# 2. CUDA: TensorFlow 2.15's GPU build needs a driver for CUDA 12 (it brings its own CUDA libraries).
cuda="$("$smi" 2>/dev/null | grep -oE 'CUDA Version: *[0-9]+(\.[0-9]+)?' | grep -oE '[0-9]+(\.[0-9]+)?$' || true)"
if [[ -z "$cuda" ]]; then
  fail "no CUDA found: '$smi' reports no CUDA version for the driver; install an NVIDIA driver for CUDA 12 or later."
fi
if (( ${cuda%%.*} < 12 )); then
  fail "CUDA $cuda found, but TensorFlow 2.15's GPU build needs a driver for CUDA 12 or later; update the NVIDIA driver."
fi
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  fail "no CUDA driver library found: libcuda.so.1 is not in the linker's cache (ldconfig -p), so TensorFlow cannot open the GPU; install the NVIDIA driver's CUDA library."
fi
echo "gpu check: CUDA $cuda (driver)"

# 3. The backends: the GPU one, and the native CPU one to compare with.
tfjs() { node --conditions=@pilotrl/source --import tsx packages/policy-tfjs/src/tfjs-bin.ts "$@"; }
setup_log="$(mktemp)"
trap 'rm -f "$setup_log"' EXIT
tfjs setup --gpu 2>&1 | tee "$setup_log" || fail "the GPU backend was not set up (its lines above say why)."
if ! grep -q 'TensorFlow sees a GPU' "$setup_log"; then
  fail "TensorFlow does not see the GPU through CUDA: the GPU backend built, but runs on CPU (its lines above say why)."
fi
tfjs setup || fail "the native CPU backend was not set up (its lines above say why)."

# 4. The bench on each, in its own process (the two bindings cannot share one).
out="$(mktemp -d)"
trap 'rm -f "$setup_log"; rm -rf "$out"' EXIT
for backend in tensorflow-gpu tensorflow; do
  echo
  echo "gpu check: the policy bench on $backend"
  pnpm --filter @pilotrl/policy-tfjs bench "--backends=$backend" "--sizes=$sizes" "--json=$out/$backend.json" ||
    fail "the policy bench failed on $backend (its lines above say why)."
done

# 5. A Hugging Face model's training steps through HfPolicy on each, in its own process too.
for backend in tensorflow-gpu tensorflow; do
  echo
  echo "gpu check: Hugging Face training on $backend"
  pnpm --filter @pilotrl/policy-tfjs bench:hf "--backend=$backend" "--json=$out/hf-$backend.json" ||
    fail "the Hugging Face training bench failed on $backend (its lines above say why)."
done

# 6. GPU against CPU, from this run's figures.
echo
node --import tsx tooling/gpu-check-report.ts "$out/tensorflow.json" "$out/tensorflow-gpu.json"
node -e '
  const [cpu, gpu] = process.argv.slice(1).map((f) => JSON.parse(require("fs").readFileSync(f, "utf8")));
  console.log(`gpu check: Hugging Face training (${gpu.model}; ${gpu.batch}x${gpu.seq} tokens/step): ` +
    `CPU (tensorflow) ${cpu.tokensPerSecond.toFixed(0)} tokens/s, GPU (tensorflow-gpu) ${gpu.tokensPerSecond.toFixed(0)} tokens/s; ` +
    `GPU / CPU ${(gpu.tokensPerSecond / cpu.tokensPerSecond).toFixed(2)}x`);
' "$out/hf-tensorflow.json" "$out/hf-tensorflow-gpu.json"
