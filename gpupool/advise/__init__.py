"""Right-sizing a stack from what its GPUs really did (`gpupool advise`)."""
