"""A 2-node torch DDP (gloo) job: trains a tiny model, checkpoints every step, and checks that
every rank ends with the same parameters."""

import hashlib
import os
import time
from datetime import timedelta

import cua_pool


def train(steps=8, pause=0.0):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("gloo", init_method="env://", timeout=timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    attempt = int(os.environ["CUA_POOL_ATTEMPT"])
    torch.manual_seed(100 + rank)  # different starting weights: DDP must make them agree
    model = torch.nn.Linear(8, 1)
    ddp = DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    store = cua_pool.checkpoints()
    state = store.load()
    start = 0
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start = state["step"]
    print(f"attempt {attempt} rank {rank} of {world} starts at step {start}", flush=True)
    for step in range(start, steps):
        gen = torch.Generator().manual_seed(1000 * step + rank)  # each rank its own data, same on a rerun
        x = torch.randn(16, 8, generator=gen)
        y = x.sum(dim=1, keepdim=True)
        loss = ((ddp(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if rank == 0:
            store.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step + 1}, step + 1)
        print(f"step {step + 1} loss {loss.item():.4f}", flush=True)
        time.sleep(pause)
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    gathered = [torch.zeros_like(flat) for _ in range(world)]
    dist.all_gather(gathered, flat)
    same = all(torch.equal(gathered[0], other) for other in gathered)
    print(f"PARAMS {hashlib.sha256(flat.numpy().tobytes()).hexdigest()} same={same}", flush=True)
    dist.destroy_process_group()
    return {"same": same, "start": start, "attempt": attempt, "steps": steps, "world": world}
