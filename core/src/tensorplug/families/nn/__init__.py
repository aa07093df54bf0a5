"""The nn family: Softmax and LogSoftmax (numerically stable), and SparseSoftmaxCrossEntropyWithLogits
(TF's fused loss of integer class labels). Here: spec, ops, gradients, jvps, batching."""
