"""AdamW steps of transformers' causal LM loss on a model directory, with PEFT LoRA adapters or on
every weight, for the engine test of @pilotrl/policy-tfjs's LoRA and supervised step.

    python lora_step.py < request.json

The request: "model" (a directory of tiny_hf_models.py), "lora" ({"rank", "alpha", "target_modules"}
or null for every weight), "ids" (rows of token ids), "loss_mask" (1 = the token is a target), "adam"
({"lr", "beta1", "beta2", "eps", "weight_decay"}), "steps". Rows are right-padded with id 0 and label
-100. Weight decay applies to matrices only, as in the package's AdamW. Prints JSON: "initial" (the
trainable weights before the first step, by our names: PEFT's `<layer>.lora_A.default.weight` is
`<layer>.lora_A.weight`), "losses" (before each step) and "after" (the trainable weights after each
step).
"""

import json
import sys

import torch
from transformers import AutoModelForCausalLM


def our_name(name: str) -> str:
    return name.removeprefix("base_model.model.").replace(".default.", ".")


def main() -> None:
    request = json.load(sys.stdin)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(request["model"], dtype=torch.float32)
    lora = request["lora"]
    if lora is not None:
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(model, LoraConfig(r=lora["rank"], lora_alpha=lora["alpha"],
                                                 target_modules=lora["target_modules"], lora_dropout=0.0))
    trainable = {our_name(n): p for n, p in model.named_parameters() if p.requires_grad}

    rows, masks = request["ids"], request["loss_mask"]
    time = max(len(row) for row in rows)
    input_ids = torch.tensor([row + [0] * (time - len(row)) for row in rows])
    labels = torch.tensor([[i if m == 1 else -100 for i, m in zip(row, mask)] + [-100] * (time - len(row))
                           for row, mask in zip(rows, masks)])

    adam = request["adam"]
    matrices = [p for p in trainable.values() if p.ndim >= 2]
    vectors = [p for p in trainable.values() if p.ndim < 2]
    optimizer = torch.optim.AdamW([{"params": matrices, "weight_decay": adam["weight_decay"]},
                                   {"params": vectors, "weight_decay": 0.0}],
                                  lr=adam["lr"], betas=(adam["beta1"], adam["beta2"]), eps=adam["eps"])

    def weights() -> dict:
        return {name: p.detach().tolist() for name, p in trainable.items()}

    answer = {"initial": weights(), "losses": [], "after": []}
    model.train()
    for _ in range(request["steps"]):
        optimizer.zero_grad()
        loss = model(input_ids=input_ids, labels=labels).loss
        loss.backward()
        optimizer.step()
        answer["losses"].append(loss.item())
        answer["after"].append(weights())
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
