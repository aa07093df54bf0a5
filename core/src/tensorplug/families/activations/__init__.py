"""The activations family (TF.js's names): Elu and its backward kernel EluGrad, Relu's backward kernel
ReluGrad (TF's), Selu, LeakyRelu, Prelu, Relu6, Step, Softplus, Gelu and its backward kernel
GeluGrad, LogSigmoid; and the elementwise kernels TF.js has beyond the Array API: SquaredDifference,
Rsqrt, AddN. Here: spec, ops, gradients, jvps, arithmetic."""
