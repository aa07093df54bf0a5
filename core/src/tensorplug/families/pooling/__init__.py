"""The pooling family (TF.js's names): MaxPool, AvgPool (2-D), MaxPool3D, AvgPool3D, their backward
kernels MaxPoolGrad, AvgPoolGrad, MaxPool3DGrad, AvgPool3DGrad, and MaxPoolWithArgmax; also
Dilation2D (a windowed max of x + filter). Here: spec, ops, gradients, jvps."""
