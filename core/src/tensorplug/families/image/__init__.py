"""The image family (TF.js's names; images are NHWC: batch, height, width, channels): ResizeBilinear,
ResizeNearestNeighbor and their Grad kernels (the gradients' backward kernels), CropAndResize and
its image gradient CropAndResizeGradImage (TF's), FlipLeftRight, RotateWithOffset, Transform, and
NonMaxSuppressionV3/V4/V5 (their outputs' lengths follow the scores' values unless padded). Here:
spec, ops, gradients, jvps, batching."""
