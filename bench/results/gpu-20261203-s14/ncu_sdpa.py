# One cuDNN SDPA shape, run a few times (for ncu): bf16 B=4 H=32 S=4096, d from argv.
import sys, torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
d = int(sys.argv[1]); causal = len(sys.argv) > 2 and sys.argv[2] == "causal"
hkv = 8 if d == 64 else 32
q = torch.randn(4, 32, 4096, d, device="cuda", dtype=torch.bfloat16)
k = torch.randn(4, 32, 4096, d, device="cuda", dtype=torch.bfloat16)
v = torch.randn(4, 32, 4096, d, device="cuda", dtype=torch.bfloat16)
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(5):
        F.scaled_dot_product_attention(q, k, v, is_causal=causal)
torch.cuda.synchronize()
