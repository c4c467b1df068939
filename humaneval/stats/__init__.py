"""Statistical helpers below the analyses: resampling, kernels, proportions, grouping and the
replicate runner."""
