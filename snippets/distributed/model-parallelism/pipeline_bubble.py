"""Pipeline schedules, simulated: GPipe and 1F1B share the bubble (p-1)/(m+p-1); 1F1B keeps fewer activations alive."""

# --8<-- [start:demo]
# time units per micro-batch per stage (a backward costs about two forwards)
FORWARD, BACKWARD = 1, 2


def schedule(order: list[list[tuple[str, int]]]) -> tuple[int, list[int]]:
    """Run each stage's ops in order, each as soon as its input is ready and
    the stage is free. Return the makespan and, per stage, the most
    micro-batches whose activations were alive at once."""
    p = len(order)
    # (op, micro-batch, stage) -> finish time
    done: dict[tuple[str, int, int], int] = {}
    free, position, alive, peak = [0] * p, [0] * p, [0] * p, [0] * p
    while any(position[s] < len(order[s]) for s in range(p)):
        for s in range(p):
            if position[s] == len(order[s]):
                continue
            op, i = order[s][position[s]]
            if op == "F":
                needs = ("F", i, s - 1)
            else:  # the next stage's backward, or the last stage's forward
                needs = ("B", i, s + 1) if s < p - 1 else ("F", i, s)
            # stage 0's forward reads the input batch
            if op == "F" and s == 0 or needs in done:
                start = max(free[s], done.get(needs, 0))
                cost = FORWARD if op == "F" else BACKWARD
                free[s] = done[(op, i, s)] = start + cost
                alive[s] += 1 if op == "F" else -1
                peak[s] = max(peak[s], alive[s])
                position[s] += 1
    return max(free), peak


def gpipe(p: int, m: int) -> list[list[tuple[str, int]]]:
    stage = [("F", i) for i in range(m)] + [("B", i) for i in range(m)]
    return [list(stage) for _ in range(p)]


def one_f_one_b(p: int, m: int) -> list[list[tuple[str, int]]]:
    order = []
    for s in range(p):
        warmup = min(p - 1 - s, m)  # forwards before the first backward
        steady = [op for i in range(m - warmup)
                  for op in (("F", warmup + i), ("B", i))]
        first = [("F", i) for i in range(warmup)]
        last = [("B", i) for i in range(m - warmup, m)]
        order.append(first + steady + last)
    return order


p = 4  # pipeline stages (GPUs)
for m in (4, 16):  # micro-batches per step
    for name, make in (("GPipe", gpipe), ("1F1B", one_f_one_b)):
        makespan, peak = schedule(make(p, m))
        # the idle fraction of every stage
        bubble = 1 - m * (FORWARD + BACKWARD) / makespan
        formula = (p - 1) / (m + p - 1)
        print(f"m={m:2} {name:5}: bubble {bubble:.3f}, (p-1)/(m+p-1) = "
              f"{formula:.3f}, stage 0 holds {peak[0]}")
# > m= 4 GPipe: bubble 0.429, (p-1)/(m+p-1) = 0.429, stage 0 holds 4
# > m= 4 1F1B : bubble 0.429, (p-1)/(m+p-1) = 0.429, stage 0 holds 4
# > m=16 GPipe: bubble 0.158, (p-1)/(m+p-1) = 0.158, stage 0 holds 16
# > m=16 1F1B : bubble 0.158, (p-1)/(m+p-1) = 0.158, stage 0 holds 4
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The bubble formula holds exactly, for both schedules, over a grid of stage and micro-batch counts.
    for stages in (1, 2, 3, 4, 8):
        for micro in (1, 2, 4, 7, 16, 32):
            for make in (gpipe, one_f_one_b):
                makespan, peak = schedule(make(stages, micro))
                assert makespan == (micro + stages - 1) * (FORWARD + BACKWARD)
                # GPipe keeps every micro-batch's activations until its backward; 1F1B at most p on stage 0.
                expected_peak = micro if make is gpipe else min(stages, micro)
                assert peak[0] == expected_peak
                assert all(x <= peak[0] for x in peak)


if __name__ == "__main__":
    _check()
