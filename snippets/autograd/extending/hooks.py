"""Tensor hooks read or replace gradients, module hooks see activations, saved-tensor hooks repack saved tensors."""

# --8<-- [start:tensor_hook]
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3
h.register_hook(lambda grad: print("grad reaching h:", grad))  # read it
# a returned tensor replaces it
handle = x.register_hook(lambda grad: grad.clamp(max=20.0))
(h**2).sum().backward()
# > grad reaching h: tensor([ 6., 12.])
print(x.grad)  # 3 * [6, 12] = [18, 36], clamped before it was accumulated
# > tensor([18., 20.])
handle.remove()  # hooks stay until removed
# --8<-- [end:tensor_hook]

x_hook = x  # kept for the checks

# --8<-- [start:module_hooks]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
captured = {}


def keep_activation(module, inputs, output):
    captured["activation"] = output.detach()


# gradients w.r.t. the module's inputs and outputs
def keep_gradient(module, grad_input, grad_output):
    captured["grad_output"] = grad_output[0]


model[1].register_forward_hook(keep_activation)
model[1].register_full_backward_hook(keep_gradient)
model(torch.randn(5, 3)).sum().backward()
print(captured["activation"].shape, captured["grad_output"].shape)
# > torch.Size([5, 4]) torch.Size([5, 4])
# --8<-- [end:module_hooks]

model_hooks = model  # kept for the checks

# --8<-- [start:saved_hooks]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
x = torch.randn(32, 64)
kept = []


def pack(tensor):  # runs in forward, each time a tensor is saved for backward
    kept.append(tuple(tensor.shape))
    return tensor.to(torch.bfloat16)  # keep a half-size copy instead


def unpack(tensor):  # runs in backward, when the tensor is needed
    return tensor.to(torch.float32)


with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    loss = model(x).pow(2).mean()
loss.backward()
# x; tanh's output (twice: tanh and the 2nd Linear save it); W2; pow's input
print(kept)
# > [(32, 64), (32, 64), (32, 64), (64, 1), (32, 1)]
# --8<-- [end:saved_hooks]

model_saved, x_saved = model, x  # kept for the checks


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Tensor hook: the returned tensor replaced the gradient before accumulation; removal works.
    assert x_hook.grad.tolist() == [18.0, 20.0]
    x_hook.grad = None
    (x_hook * 3).pow(2).sum().backward()
    assert x_hook.grad.tolist() == [18.0, 36.0]  # handle removed: unclamped
    # A hook on a parameter is how per-parameter gradient clipping or logging is done.
    p = nn.Parameter(torch.ones(2))
    p.register_hook(lambda grad: grad * 0.5)
    (p * 4).sum().backward()
    assert p.grad.tolist() == [2.0, 2.0]
    # Post-accumulate hook (torch >= 2.1): fires after .grad is written, e.g. to step the optimizer in backward.
    q = nn.Parameter(torch.ones(2))
    after = []
    q.register_post_accumulate_grad_hook(lambda t: after.append(t.grad.clone()))
    (q * 3).sum().backward()
    assert len(after) == 1 and after[0].tolist() == [3.0, 3.0]

    # Module hooks: the activation is ReLU's output; the grad reaching it is the last layer's weight on each row.
    relu_model = model_hooks
    assert (captured["activation"] >= 0).all()
    torch.testing.assert_close(captured["grad_output"], relu_model[2].weight.detach().expand(5, 4))
    # A full backward hook's grad_input is w.r.t. the module's inputs, not its parameters: a Linear fed
    # plain data gets grad_input == (None,) and a warning saying so.
    lin = nn.Linear(3, 2)
    grads_in = []
    lin.register_full_backward_hook(lambda m, gin, gout: grads_in.append(gin))
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are computed with respect to"):
        lin(torch.ones(4, 3)).sum().backward()
    assert grads_in == [(None,)]

    # The old non-full register_backward_hook is deprecated (FutureWarning) for modules made of several ops.
    old = nn.Linear(3, 2)
    old.register_backward_hook(lambda m, gin, gout: None)
    with pytest.warns(FutureWarning, match="Using a non-full backward hook when the forward contains multiple"):
        old(torch.ones(4, 3, requires_grad=True)).sum().backward()

    # Saved-tensor hooks: pack runs per save, not per distinct tensor. The first Linear's weight is not
    # saved (its input x needs no gradient); tanh's output is packed twice.
    packed = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        hidden = model_saved[1](model_saved[0](x_saved))
        model_saved[2](hidden).pow(2).mean()
    assert packed[0] is x_saved
    assert packed[1].data_ptr() == packed[2].data_ptr() == hidden.data_ptr()
    assert torch.equal(packed[3], model_saved[2].weight.detach().t())
    assert not any(t.data_ptr() == model_saved[0].weight.data_ptr() for t in packed)
    # save_on_cpu is the built-in pack/unpack pair (offload to host memory); on a CPU it changes nothing.
    offloaded = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
    offloaded.load_state_dict(model_saved.state_dict())
    with torch.autograd.graph.save_on_cpu():
        offloaded(x_saved).pow(2).mean().backward()
    # The bf16 round-trip changes gradients only slightly.
    reference = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
    reference.load_state_dict(model_saved.state_dict())
    reference(x_saved).pow(2).mean().backward()
    torch.testing.assert_close(model_saved[0].weight.grad, reference[0].weight.grad, rtol=2e-2, atol=1e-3)
    assert not torch.equal(model_saved[0].weight.grad, reference[0].weight.grad)  # but not exactly
    torch.testing.assert_close(offloaded[0].weight.grad, reference[0].weight.grad)


if __name__ == "__main__":
    _check()
