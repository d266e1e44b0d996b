"""A preallocated KV cache written at a position: same outputs as torch.cat, one buffer, one compiled graph."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F

B, H, T_MAX, D = 1, 2, 16, 8


def step_static(q, k, v, k_buf, v_buf, pos):
    # write this step's k/v at `pos` (a 1-element tensor), in place
    k_buf.index_copy_(2, pos, k)
    v_buf.index_copy_(2, pos, v)
    # unwritten slots must get no weight; the mask is (L, S) = (1, T_MAX)
    valid = (torch.arange(T_MAX) <= pos)[None, :]
    return F.scaled_dot_product_attention(q, k_buf, v_buf, attn_mask=valid)


def step_cat(q, k, v, cache):
    cache["k"] = torch.cat([cache["k"], k], dim=2)  # a new, longer tensor
    cache["v"] = torch.cat([cache["v"], v], dim=2)
    return F.scaled_dot_product_attention(q, cache["k"], cache["v"])


graphs = {"static": 0, "cat": 0}


def counting(name):
    def backend(gm, example_inputs):  # called once per compiled graph
        graphs[name] += 1
        return gm.forward
    return backend


static = torch.compile(step_static, backend=counting("static"))
cat = torch.compile(step_cat, backend=counting("cat"))

torch.manual_seed(0)
k_buf = torch.zeros(B, H, T_MAX, D)
v_buf = torch.zeros(B, H, T_MAX, D)
cache = {"k": torch.zeros(B, H, 0, D), "v": torch.zeros(B, H, 0, D)}
ptr = k_buf.data_ptr()
for t in range(4):  # the 4th step reuses a graph: no new compile
    q, k, v = torch.randn(3, B, H, 1, D)
    a = static(q, k, v, k_buf, v_buf, torch.tensor([t]))
    b = cat(q, k, v, cache)
    torch.testing.assert_close(a, b)
print(graphs, k_buf.data_ptr() == ptr)
# > {'static': 1, 'cat': 3} True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import torch._dynamo

    # One graph for the static cache, three for cat (length 0 and 1 specialized, then dynamic).
    assert graphs == {"static": 1, "cat": 3}
    assert k_buf.data_ptr() == ptr  # the same buffer all along
    # The cat cache copied every token so far at every step: T(T+1)/2 token copies over T steps.
    assert sum(t + 1 for t in range(4)) == 4 * 5 // 2 == 10
    # A Python-int position written by slice assignment: a new graph every step here (3 for 3 steps).
    torch._dynamo.reset()
    count = {"n": 0}

    def backend(gm, example_inputs):
        count["n"] += 1
        return gm.forward

    def step_int(q, k, v, k_buf, v_buf, pos: int):
        k_buf[:, :, pos] = k[:, :, 0]
        v_buf[:, :, pos] = v[:, :, 0]
        valid = (torch.arange(T_MAX) <= pos)[None, :]
        return F.scaled_dot_product_attention(q, k_buf, v_buf, attn_mask=valid)

    # The functions compiled above, run eagerly: the same results (and coverage sees their lines).
    kb, vb = torch.zeros_like(k_buf), torch.zeros_like(v_buf)
    eager_cache = {"k": torch.zeros(B, H, 0, D), "v": torch.zeros(B, H, 0, D)}
    for t in range(3):
        q, k, v = torch.randn(3, B, H, 1, D)
        a = step_static(q, k, v, kb, vb, torch.tensor([t]))
        torch.testing.assert_close(a, step_cat(q, k, v, eager_cache))
        torch.testing.assert_close(a, step_int(q, k, v, torch.zeros_like(kb).copy_(kb), vb.clone(), t))
    f = torch.compile(step_int, backend=backend)
    kb, vb = torch.zeros_like(k_buf), torch.zeros_like(v_buf)
    for t in range(3):
        q, k, v = torch.randn(3, B, H, 1, D)
        f(q, k, v, kb, vb, t)
    assert count["n"] == 3, count
    # mark_static_address (what static-cache implementations call for cudagraphs) exists in 2.14.1.
    assert callable(torch._dynamo.mark_static_address)
    # Forgetting the validity mask: the zeros in unwritten slots get softmax weight.
    q = torch.randn(B, H, 1, D)
    no_mask = F.scaled_dot_product_attention(q, k_buf, v_buf)
    masked = F.scaled_dot_product_attention(q, k_buf, v_buf, attn_mask=(torch.arange(T_MAX) <= 3)[None, :])
    assert not torch.allclose(no_mask, masked)
    torch._dynamo.reset()


if __name__ == "__main__":
    _check()
