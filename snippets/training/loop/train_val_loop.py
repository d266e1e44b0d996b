"""The canonical train + validation loop, on a tiny synthetic problem: the validation loss drops."""

# --8<-- [start:demo]
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def train_one_epoch(model, loader, loss_fn, optimizer, device) -> float:
    model.train()  # Dropout/BatchNorm in training mode
    total, seen = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()  # clear last step's grads (sets them to None)
        loss = loss_fn(model(x), y)  # forward + loss
        loss.backward()  # grads for every parameter
        optimizer.step()  # update
        total += loss.item() * len(x)  # .item(): a float, no graph kept alive
        seen += len(x)
    return total / seen


@torch.inference_mode()  # no graph, no saved activations
def evaluate(model, loader, loss_fn, device) -> tuple[float, float]:
    model.eval()  # Dropout off, BatchNorm uses running stats
    total, correct, seen = 0.0, 0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        total += loss_fn(logits, y).item() * len(x)
        correct += (logits.argmax(dim=1) == y).sum().item()
        seen += len(x)
    return total / seen, correct / seen


device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
x = torch.randn(512, 10)
# 3 classes from a hidden linear rule
y = (x @ torch.randn(10, 3)).argmax(dim=1)
train_loader = DataLoader(
    TensorDataset(x[:384], y[:384]), batch_size=32, shuffle=True
)
val_loader = DataLoader(TensorDataset(x[384:], y[384:]), batch_size=64)

model = nn.Sequential(
    nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 3)
).to(device)
loss_fn = nn.CrossEntropyLoss()
# built after .to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)

val_before, _ = evaluate(model, val_loader, loss_fn, device)
for _ in range(8):  # epochs
    train_loss = train_one_epoch(
        model, train_loader, loss_fn, optimizer, device
    )
    val_loss, val_acc = evaluate(model, val_loader, loss_fn, device)
print(val_loss < 0.5 * val_before, val_acc > 0.8)
# > True True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The device idiom: None (so the CPU) exactly when no accelerator is usable; the plain call does
    # not check, and names the build's accelerator type even without a device.
    usable = torch.accelerator.is_available()
    assert (torch.accelerator.current_accelerator(check_available=True) is None) == (not usable)
    assert device.type == (torch.accelerator.current_accelerator().type if usable else "cpu")
    # On a CUDA build without a usable GPU (this CPU lane), the unchecked call still says "cuda".
    assert usable or not torch.backends.cuda.is_built() or torch.accelerator.current_accelerator().type == "cuda"
    # The loop learned: the validation loss fell well below chance level (ln 3) and the training loss did too.
    assert val_before > 0.7 and val_loss < 0.5 * val_before and val_acc > 0.8
    assert train_loss < 0.5
    # evaluate() left the model in eval mode; train_one_epoch() switches it back.
    assert not model.training
    # With eval() and inference_mode, evaluation is deterministic and records no graph.
    outputs: list[torch.Tensor] = []
    handle = model.register_forward_hook(lambda module, args, output: outputs.append(output))
    assert evaluate(model, val_loader, loss_fn, device) == evaluate(model, val_loader, loss_fn, device)
    assert all(not o.requires_grad and o.is_inference() for o in outputs)
    # In training mode the forward output does carry a graph (and dropout is active).
    outputs.clear()
    train_one_epoch(model, train_loader, loss_fn, optimizer, device)
    handle.remove()
    assert model.training and all(o.requires_grad and o.grad_fn is not None for o in outputs)


if __name__ == "__main__":
    _check()
