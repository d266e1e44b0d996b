"""The autograd engine runs CPU nodes on the thread that called backward()."""

# --8<-- [start:demo]
import threading

import torch


def hook_thread(device):
    """Run a backward and return (caller's thread, the hook's thread)."""
    x = torch.ones(3, device=device, requires_grad=True)
    ran_on = []
    x.register_hook(lambda g: ran_on.append(threading.get_ident()))
    (x * 2).sum().backward()
    return threading.get_ident(), ran_on[0]


caller, hook = hook_thread("cpu")
print(caller == hook)  # CPU nodes run on the caller's thread
# > True

result = []
worker = threading.Thread(target=lambda: result.append(hook_thread("cpu")))
worker.start()
worker.join()
print(result[0][0] == result[0][1], result[0][0] != caller)
# > True True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert result[0][1] != caller  # the worker's backward ran on the worker, not on the main thread


if __name__ == "__main__":
    _check()
