"""The convolution family, under TF.js's names: Conv2D and Conv3D, and the backward kernels their
gradients call, Conv2DBackpropInput / Conv3DBackpropInputV2 (the gradient of a convolution with
respect to its input, also the transposed convolution). Here: spec, ops, gradients, jvps, batching."""
