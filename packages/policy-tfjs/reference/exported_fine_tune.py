"""What transformers and PEFT compute on an exported HfPolicy state, for the engine test of
@pilotrl/policy-tfjs's export of fine-tuned Hugging Face models.

    python exported_fine_tune.py < request.json

The request: "base" (the model directory the state was trained on), "merged" (its export as a
whole model), "adapter" (its export as a PEFT adapter, or null), "lora" ({"rank", "alpha",
"target_modules"}, or null for a state that trained every weight), "ids" (rows of token ids),
"prompts", "max_new_tokens". Prints JSON: "merged" (the merged model loaded without a dtype
argument: its "dtype", the "logits" of each row and the "greedy" ids after each prompt); with an
adapter, "adapter" (the same of the base model with the adapter loaded by
PeftModel.from_pretrained) and "peft" (the tensor names, sorted, and the adapter_config.json that
PEFT itself saves for a fresh adapter of "lora" on "base").
"""

import json
import sys
import tempfile
from pathlib import Path

import torch
from peft import LoraConfig, PeftModel, get_peft_model
from safetensors import safe_open
from transformers import AutoModelForCausalLM


def computed(model, request: dict) -> dict:
    model.eval()
    answer = {"dtype": str(next(model.parameters()).dtype), "logits": [], "greedy": []}
    with torch.no_grad():
        for row in request["ids"]:
            answer["logits"].append(model(input_ids=torch.tensor([row])).logits[0].float().tolist())
        for prompt in request["prompts"]:
            generated = model.generate(input_ids=torch.tensor([prompt]),
                                       attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                                       do_sample=False, max_new_tokens=request["max_new_tokens"], pad_token_id=0)
            answer["greedy"].append(generated[0, len(prompt):].tolist())
    return answer


def peft_own_save(request: dict) -> dict:
    lora = request["lora"]
    base = AutoModelForCausalLM.from_pretrained(request["base"], dtype=torch.float32)
    fresh = get_peft_model(base, LoraConfig(r=lora["rank"], lora_alpha=lora["alpha"], target_modules=lora["target_modules"],
                                            lora_dropout=0.0, task_type="CAUSAL_LM"))
    with tempfile.TemporaryDirectory() as saved:
        fresh.save_pretrained(saved)
        with safe_open(str(Path(saved) / "adapter_model.safetensors"), "pt") as weights:
            names = sorted(weights.keys())
        config = json.loads((Path(saved) / "adapter_config.json").read_text())
    return {"names": names, "config": config}


def main() -> None:
    request = json.load(sys.stdin)
    torch.manual_seed(0)
    answer = {"merged": computed(AutoModelForCausalLM.from_pretrained(request["merged"]), request)}
    if request["adapter"] is not None:
        answer["peft"] = peft_own_save(request)
        base = AutoModelForCausalLM.from_pretrained(request["base"], dtype=torch.float32)
        answer["adapter"] = computed(PeftModel.from_pretrained(base, request["adapter"]), request)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
